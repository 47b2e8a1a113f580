/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pin directory's lock (flock on its work directory), taken with a
 * bounded wait: a run that hangs (a dead NFS server under audit, a
 * debugger) must not hang every apply after it. While it waits it says
 * which process holds the lock (/proc/locks), and after LOCK_WAIT_S
 * seconds (FSITER_LOCK_TIMEOUT overrides) it gives up with -ETIMEDOUT.
 */
#ifndef FSITER_LOCK_H
#define FSITER_LOCK_H

#include <sys/types.h>

#define LOCK_WAIT_S	60

/*
 * flock(FD, OP) (LOCK_EX or LOCK_SH) on the directory PATH, waiting at
 * most the bound. 0, -ETIMEDOUT (reported, with the holder), or -errno.
 */
int lock_wait(int fd, const char *path, int op);
/* The pid holding a flock on FD's inode, other than us; 0 if none is
 * found. COMM gets its name.
 */
pid_t lock_holder(int fd, char *comm, size_t size);

#endif
