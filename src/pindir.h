/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pin directory in bpffs, and how apply changes it at once.
 *
 * apply builds the next pin directory in a work directory beside it
 * (PIN_DIR_staging, mode 0700, so nobody but root reaches anything in
 * it): the pins it keeps are hard links to the current ones, new ones are
 * pinned there with their final owner, mode and ACL. Then one
 * renameat2(RENAME_EXCHANGE) swaps it with PIN_DIR: the new directory
 * takes PIN_DIR's name and the old one lands in the work directory, out
 * of every reader's reach in the same step. Wherever apply stops, readers
 * see the old set of pins or the new one, never a mix, and never a pin
 * with permissions the policy did not give it.
 *
 * A lock (flock on the work directory, lock.h: a bounded wait) orders
 * apply, remove, list and audit: apply and remove take it exclusive and
 * first empty the work directory, which holds nothing but what a killed
 * run left; audit and apply --dry-run take it shared, and so does list,
 * which also empties the work directory when nobody else holds the lock
 * (exclusive for that moment, then shared).
 */
#ifndef FSITER_PINDIR_H
#define FSITER_PINDIR_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct pin_dir {
	char path[PATH_MAX];	/* PIN_DIR as the policy names it */
	char parent[PATH_MAX];
	char base[NAME_MAX + 1 - 16];	/* room for "_staging" */
	int parent_fd;		/* -1 */
	char work_path[PATH_MAX];
	int work_fd;		/* locked; -1 */
	int cur_fd;		/* PIN_DIR, -1 if it does not exist */
	char new_path[PATH_MAX];
	int new_fd;		/* the next PIN_DIR, in the work dir; -1 */
	mode_t mode;		/* PIN_DIR's: PINDIR_MODE, or the policy's */
	bool made_parent;	/* pindir_open() created PATH's parent */
	bool made_work;		/* pindir_open() created the work directory */
	/* Directories gen_carry() moves over at the switch (not owned). */
	const char **carry;
	size_t nr_carry;
};


/*
 * PIN_DIR's mode unless the policy says (set pin-dir-mode): whoever may
 * search it lists the names, so that `cat PIN_DIR/\*` works; each pin's
 * own owner, mode and ACL decide who reads it. 0711 hides the names:
 * readers open the names they were told.
 */
#define PINDIR_MODE	0755

/* DIR/NAME into OUT; -ENAMETOOLONG if it does not fit. */
int path_join(char out[PATH_MAX], const char *dir, const char *name);

void pindir_init(struct pin_dir *d);
#define PINDIR_CREATE	0x1	/* create PATH's parents and the work dir */
#define PINDIR_LOOK	0x2	/* change nothing: no clean-up, a shared lock */
#define PINDIR_TIDY	0x4	/* look, but clean up if the lock is free now,
				 * then hold it shared like PINDIR_LOOK */
/*
 * Open and lock PATH's work directory (creating it and PATH's parents
 * first with PINDIR_CREATE), empty it unless PINDIR_LOOK, and open PATH
 * if it exists. 0, -ENOENT if there is no work directory and no
 * PINDIR_CREATE, or -errno (reported).
 */
int pindir_open(struct pin_dir *d, const char *path, unsigned int flags);
void pindir_close(struct pin_dir *d);
/* The names in PIN_DIR, sorted; none if it does not exist. */
int pindir_names(struct pin_dir *d, char ***names, size_t *n);
void pindir_free_names(char **names, size_t n);
/* Unpin NAME from PIN_DIR. 0 or -errno. */
int pin_remove(struct pin_dir *d, const char *name);

/* Is PIN_DIR root's, its mode (d->mode), without ACL entries (or absent)?
 * 1; 0 with WHAT saying what differs; or -errno.
 */
int pindir_check(struct pin_dir *d, char *what, size_t size);
/* Make PIN_DIR root's, its mode, without ACL entries. 0 or -errno. */
int pindir_restore(struct pin_dir *d);

/* Make the next PIN_DIR in the work directory: empty, root's, no ACL. */
int gen_begin(struct pin_dir *d);
/* Keep PIN_DIR's pin NAME in the next one (a hard link). */
int gen_keep(struct pin_dir *d, const char *name);
/*
 * Carry NAME, which is not a pin of ours, over to the next PIN_DIR as it
 * is: a hard link now, or a directory (which takes none) moved over by
 * gen_commit() just before the switch, and back if the switch fails.
 * NAME must live until gen_commit() or gen_abort(). 0 or -errno (said).
 */
int gen_carry(struct pin_dir *d, const char *name);
/* Swap the next PIN_DIR in, and remove the old one. */
int gen_commit(struct pin_dir *d);
/* Remove the next PIN_DIR: nothing changed. */
void gen_abort(struct pin_dir *d);

#endif
