/* SPDX-License-Identifier: GPL-2.0 */
/* A bpffs of the test's own, in a mount namespace of its own. */
#ifndef FSITER_TEST_PRIVATE_BPFFS_H
#define FSITER_TEST_PRIVATE_BPFFS_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>

/*
 * Mount a bpffs (mode 0700) on a new directory made from the mkdtemp()
 * template TOP. 0; 77 (ctest's skip) with a message where this cannot be
 * done here (not root, no mount namespace, no bpffs); 2 if TOP cannot be
 * made.
 */
static inline int private_bpffs(char *top)
{
	if (geteuid() != 0) {
		printf("skipped: needs root (a bpffs of its own)\n");
		return 77;
	}
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		printf("skipped: no mount namespace: %s\n", strerror(errno));
		return 77;
	}
	if (!mkdtemp(top)) {
		perror(top);
		return 2;
	}
	if (mount("bpf", top, "bpf", 0, "mode=0700")) {
		printf("skipped: cannot mount bpffs: %s\n", strerror(errno));
		rmdir(top);
		return 77;
	}
	return 0;
}

#endif
