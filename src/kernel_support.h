/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel must have, and which patch of the series
 * (kernel/patches/<version>/) brings each piece: apply checks before it
 * changes anything, and reports all that is missing in one message.
 */
#ifndef FSITER_KERNEL_SUPPORT_H
#define FSITER_KERNEL_SUPPORT_H

#include <stdbool.h>
#include <linux/types.h>
#include "view_table.h"

#define KERNEL_MISSING_MAX 8

/* What the checks found missing, and the patches that bring it. */
struct kernel_missing {
	const char *what[KERNEL_MISSING_MAX];
	const char *patches[KERNEL_MISSING_MAX];
	size_t nr, nr_patches;
};

/*
 * Check, in the kernel's BTF, for what the views marked in USED need, for
 * link info on fs iterators, and for the flags in LINK_FLAGS (FSITER_F_*,
 * those of every entry together); each missing piece is added to KM.
 * 0, -ENOTSUP, or another negative errno (reported).
 */
int kernel_check_views(const bool used[VIEW_COUNT], __u32 link_flags,
		       struct kernel_missing *km);
/* The same, in BTF (kernel_check_views() loads the kernel's). */
struct btf;
int kernel_check_btf(const struct btf *btf, const bool used[VIEW_COUNT],
		     __u32 link_flags, struct kernel_missing *km);
/*
 * Does the bpffs directory DIRFD take POSIX ACLs? 0, -ENOTSUP (added to
 * KM), or another negative errno (reported).
 */
int kernel_check_bpffs_acl(int dirfd, const char *dir,
			   struct kernel_missing *km);
/*
 * One message naming every piece in KM, the patches that bring them and
 * the series of the running kernel. Nothing if KM is empty.
 */
void kernel_report_missing(const struct kernel_missing *km);

#endif
