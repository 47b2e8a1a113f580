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

/*
 * How long targets_open() waits for the filesystems of the paths it opens
 * after the last answer (FSITER_OPEN_TIMEOUT overrides), how many times
 * that it waits at most in all, and how much longer for each answer (a
 * long list on a loaded machine answers steadily but slowly: 5000 tmpfs
 * paths took over 40 s under three TCG guests); how many paths it looks
 * up at once, and the stack of each thread that does.
 */
#define TARGET_OPEN_TIMEOUT_S	10
#define TARGET_OPEN_TOTAL_TIMES	4
#define TARGET_OPEN_PER_ANSWER_MS	50
#define TARGET_OPEN_THREADS	32
#define TARGET_OPEN_STACK	(512 * 1024)
/* The helper's argv[0] and name (comm); a worker thread's name while it
 * looks up its Kth path is TARGET_HELPER_BUSY and K.
 */
#define TARGET_HELPER_NAME	"fsiter-pin-open"
#define TARGET_HELPER_BUSY	"open:"	/* + up to 10 digits: 15, the most */

/*
 * Open each of the N paths PATHS[I] with O_PATH into *TS[I], RETS[I] 0 or
 * -errno, one component at a time from "/" (openat2 of each name under
 * the directory fd before it, RESOLVE_NO_SYMLINKS and RESOLVE_BENEATH),
 * refusing any symlink on the way: a path means what the policy says,
 * whatever anyone swapped in; and note the first directory that a user
 * other than root may write or make writable (unsafe_len: dir_unsafe()).
 * O_PATH does not open the file itself, so FIFOs and devices see nothing.
 *
 * The lookups may still block (a hard NFS mount whose server is gone, a
 * FUSE daemon that read a request and never answers: that wait cannot
 * even be killed), so a helper process makes them (this program again,
 * from /proc/self/exe, as TARGET_HELPER_NAME: a constructor in open_helper.c
 * runs it), up to TARGET_OPEN_THREADS at once, and passes each fd back
 * over a socket (SCM_RIGHTS). The caller waits until no path has answered
 * for targets_open_timeout() seconds, or TARGET_OPEN_TOTAL_TIMES that in
 * all and TARGET_OPEN_PER_ANSWER_MS more for each path that answered (a
 * server that answers just in time, every time, gains that little per
 * path); then each path not answered fails
 * with -ETIMEDOUT, the helper is killed and left behind without waiting
 * for it (reaped at the next call, or by init). While it is not reaped,
 * a later call does not ask for the paths it had no answer for again:
 * they fail at once with -EINPROGRESS. This process gets no thread, and the helper
 * keeps no fd of it but its socket. The FSITER_FAULT point "open" is
 * passed here, once per path in order. 0, or -ENOMEM (nothing opened).
 */
int targets_open(size_t n, const char *const *paths, struct target *const *ts,
		 int *rets);
/* targets_open() of one path: 0 or -errno. */
int target_open(const char *path, struct target *t);
/* The bound targets_open() applies, in seconds: FSITER_OPEN_TIMEOUT (1 to
 * 3600; another value is warned about) or TARGET_OPEN_TIMEOUT_S.
 */
unsigned int targets_open_timeout(void);
void target_close(struct target *t);
/* Why opening failed, for "path 'X': <why>". */
const char *target_strerror(int err);

#endif
