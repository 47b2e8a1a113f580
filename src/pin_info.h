/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a pin is, as the kernel tells: its owner and mode, and for an
 * iterator link, the program (name, tag) and the target (link info).
 */
#ifndef FSITER_PIN_INFO_H
#define FSITER_PIN_INFO_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>
#include <linux/bpf.h>
#include "pindir.h"

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
	__u32 flags;		/* FSITER_F_*, as the link was attached */
	__u32 magic;		/* fs_sb: the superblock's s_magic */
	__u32 top;		/* a view that takes top=N: its program's N */
};

/* What the pin NAME in PIN_DIR is. 0 or -errno. */
int pin_read(struct pin_dir *d, const char *name, struct pin_info *pi);
/* What NAME in D is if it is not one of fsiter-pin's own pins (an
 * iterator link of one of the views), in words; NULL if it is one.
 */
const char *pin_foreign(struct pin_dir *d, const char *name);
/* The same, for a pin already read into PI. */
const char *pin_info_foreign(const struct pin_info *pi);
/* Hex of a program tag, as bpftool shows it. */
void bpf_tag_hex(const unsigned char tag[BPF_TAG_SIZE],
		 char out[BPF_TAG_SIZE * 2 + 1]);

#endif
