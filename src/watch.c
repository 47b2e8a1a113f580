// SPDX-License-Identifier: GPL-2.0
/* watch's loop: apply whenever the mount table changes; see engine.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "diag.h"
#include "engine.h"
#include "plan.h"

/* Mounts that come in a burst (a disk with partitions) apply once: after
 * SETTLE_MS without a change, or SETTLE_MAX_MS after the first one,
 * whichever comes first, so that a mount table that never stops changing
 * still gets applied.
 */
#define SETTLE_MS	300
#define SETTLE_MAX_MS	5000

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/*
 * Wait for a change of the mount table, at most TIMEOUT_MS (-1: forever).
 * mountinfo polls with POLLPRI when a mount or umount happens in this
 * namespace. 1 on a change, 0 on timeout, or -errno.
 */
static int wait_change(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI };
	int r;

	do {
		r = poll(&p, 1, timeout_ms);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r > 0;
}

int engine_watch(const char *policy, long timeout_s)
{
	long deadline, settle_end;
	int fd, ret, last;

	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		err("/proc/self/mountinfo: %s", strerror(-ret));
		return ret;
	}
	last = plan_apply(policy, false, false);
	/* Quiet for TIMEOUT_S from now: the apply itself may take a while. */
	deadline = timeout_s >= 0 ? now_ms() + timeout_s * 1000 : -1;
	for (;;) {
		long left = deadline < 0 ? -1 : deadline - now_ms();

		if (deadline >= 0 && left <= 0)
			break;
		ret = wait_change(fd, left > 0 ? (int)left : -1);
		if (ret < 0) {
			err("waiting for mount changes: %s", strerror(-ret));
			break;
		}
		if (!ret)
			break;
		settle_end = now_ms() + SETTLE_MAX_MS;
		while (now_ms() < settle_end && wait_change(fd, SETTLE_MS) > 0)
			;
		info("the mount table changed: applying %s again", policy);
		last = plan_apply(policy, false, false);
		if (timeout_s >= 0)
			deadline = now_ms() + timeout_s * 1000;
	}
	close(fd);
	return last;
}
