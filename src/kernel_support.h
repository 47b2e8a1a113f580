/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel must have, and which patch of kernel/patches/
 * brings each piece: apply checks before it changes anything.
 */
#ifndef FSITER_KERNEL_SUPPORT_H
#define FSITER_KERNEL_SUPPORT_H

#include <stdbool.h>
#include "view_table.h"

/*
 * Check, in the kernel's BTF, for what the views marked in USED need, and
 * for link info on fs iterators. Reports each missing piece with the patch
 * that provides it. 0, -ENOTSUP, or another negative errno.
 */
int kernel_check_views(const bool used[VIEW_COUNT]);
/*
 * Does the bpffs directory DIRFD take POSIX ACLs? 0, -ENOTSUP (reported,
 * naming the patch), or another negative errno (reported).
 */
int kernel_check_bpffs_acl(int dirfd, const char *dir);

#endif
