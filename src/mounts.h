/* SPDX-License-Identifier: GPL-2.0 */
/* Mount tables through libmount: bpffs, and mount ids for list. */
#ifndef FSITER_MOUNTS_H
#define FSITER_MOUNTS_H

#include <stdbool.h>
#include <sys/types.h>

#define BPFFS_MOUNT_POINT	"/sys/fs/bpf"

/*
 * Make sure bpffs is mounted at /sys/fs/bpf when DIR is under it, mounting
 * it (mode 0700, as systemd does) if not, unless DRY_RUN; *MOUNTED says
 * whether this call mounted it (and said so), even if it then fails. Then
 * check that DIR, or its deepest existing ancestor, is on bpffs. 0, 1 if
 * DRY_RUN and bpffs is not mounted (so nothing is pinned), or -errno,
 * reported.
 */
int mounts_ensure_bpffs(const char *dir, bool dry_run, bool *mounted);
/*
 * The device of mount ID's superblock, as mountinfo shows it. 0 or -errno.
 * The table is read once and kept until mounts_forget().
 */
int mounts_devno_of(int id, dev_t *dev);
void mounts_forget(void);
/* The mount point of mount ID in this namespace, malloc'ed, or NULL. */
char *mounts_target_of(int id);

#endif
