/* SPDX-License-Identifier: GPL-2.0 */
/* Opening the paths of a policy: no symlinks, no side effects. */
#ifndef FSITER_TARGETS_H
#define FSITER_TARGETS_H

#include <sys/types.h>
#include "dir_trust.h"

struct target {
	int fd;		/* O_PATH, or -1 */
	/*
	 * The inode as the kernel knows it, which is what link info reports:
	 * i_ino and the superblock's device. stat(2) may say otherwise (an
	 * overlayfs reports the real file's), so they come from fdinfo and
	 * mountinfo.
	 */
	dev_t dev;
	ino_t ino;
	mode_t mode;	/* file type and permissions */
	int mnt_id;	/* the mount the path resolved on */
	unsigned int nlink;
	/*
	 * The first directory on the way that a user other than root could
	 * change (an unsafe path transition, as systemd-tmpfiles calls it):
	 * the length of its path in the policy's path, 0 if none; and who.
	 */
	unsigned int unsafe_len;
	struct dir_trust unsafe;
};

/* How long target_open() waits for a path's filesystem. */
#define TARGET_OPEN_TIMEOUT_S	10

/*
 * Open PATH with O_PATH, one component at a time from "/" (openat2 of
 * each name under the directory fd before it, RESOLVE_NO_SYMLINKS and
 * RESOLVE_BENEATH), refusing any symlink on the way: a path means what
 * the policy says, whatever anyone swapped in; and note the first
 * directory that a user other than root may write or make writable
 * (unsafe_len: dir_unsafe()). O_PATH
 * does not open the file itself, so FIFOs and devices see nothing. The lookup itself may still block (a hard NFS
 * mount whose server is gone, a FUSE daemon that does not answer), so it
 * runs in a thread of its own, and after TARGET_OPEN_TIMEOUT_S seconds
 * the caller goes on with -ETIMEDOUT; the thread, stuck in the kernel,
 * closes what it opened if it ever returns, and dies with the process.
 * 0 or -errno.
 */
int target_open(const char *path, struct target *t);
void target_close(struct target *t);
/* Why opening failed, for "path 'X': <why>". */
const char *target_strerror(int err);

#endif
