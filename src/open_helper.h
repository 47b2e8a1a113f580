/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process that looks up a run's paths for targets_open() (targets.h):
 * fsiter-pin executed again, as TARGET_HELPER_NAME, with a socket as its
 * fd 3, run by a constructor in open_helper.c before main(). It reads one
 * request per path until the parent shuts writing, walks them up to
 * TARGET_OPEN_THREADS at once, and sends one reply per path, with the fd
 * (SCM_RIGHTS) if it opened one.
 */
#ifndef FSITER_OPEN_HELPER_H
#define FSITER_OPEN_HELPER_H

#include <stdint.h>
#include <sys/types.h>
#include "dir_trust.h"

/* What the helper sends for the Kth path it was given, with the fd. */
struct open_reply {
	uint32_t k;
	int32_t ret;
	uint32_t mode;
	uint32_t nlink;
	uint32_t unsafe_len;
	struct dir_trust unsafe;
};

/* What the parent sends for each path, the path following. */
struct open_request {
	uint32_t k;
	uint32_t hang;
};

/* Start the helper with SOCK as its fd 3 (a SOCK_SEQPACKET socket): its
 * pid, or -errno.
 */
pid_t open_helper_spawn(int sock);

#endif
