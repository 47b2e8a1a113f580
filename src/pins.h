/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pin directory in bpffs: opening and locking it, reading what a pin
 * is, and the staging directory where apply builds new pins before it
 * renames them into place.
 */
#ifndef FSITER_PINS_H
#define FSITER_PINS_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>
#include <linux/bpf.h>

/* Inside the pin directory; policy names start with a letter or digit. */
#define STAGING_NAME	"_staging"

struct pin_dir {
	char path[PATH_MAX];
	int fd;		/* O_RDONLY | O_DIRECTORY, flock()ed; -1 */
	char staging[PATH_MAX];
	int staging_fd;	/* -1 */
};

struct pin_info {
	char name[NAME_MAX + 1];
	uid_t uid;
	gid_t gid;
	mode_t mode;
	bool is_link;		/* an iterator link of an fs target */
	__u32 link_id;
	__u32 prog_id;
	char prog_name[BPF_OBJ_NAME_LEN];
	char tag[BPF_TAG_SIZE * 2 + 1];
	__u32 fs_type;		/* enum fsiter_fs_iter_type */
	__u32 mnt_id;
	__u64 ino;
	__u32 dev;		/* new_encode_dev(), as st_dev */
	bool gone;
};

/* DIR/NAME into OUT; -ENAMETOOLONG if it does not fit. */
int path_join(char out[PATH_MAX], const char *dir, const char *name);

void pindir_init(struct pin_dir *d);
/*
 * Open PATH, creating it and its missing parents (mode 0755) if CREATE,
 * and take the apply lock on it: concurrent runs take turns.
 * 0, -ENOENT if it does not exist and !CREATE, or -errno (reported).
 */
int pindir_open(struct pin_dir *d, const char *path, bool create);
void pindir_close(struct pin_dir *d);
/* The names in the directory, sorted, without the staging directory. */
int pindir_names(struct pin_dir *d, char ***names, size_t *n);
void pindir_free_names(char **names, size_t n);
/* What the pin NAME is. 0 or -errno. */
int pin_read(struct pin_dir *d, const char *name, struct pin_info *pi);

/* Empty staging directory, mode 0700 and no ACL: only root sees into it. */
int staging_begin(struct pin_dir *d);
/* Remove the staging directory and whatever is left in it. */
int staging_end(struct pin_dir *d);

#endif
