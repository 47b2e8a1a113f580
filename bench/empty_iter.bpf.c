// SPDX-License-Identifier: GPL-2.0
/*
 * An fs_mnt program that prints nothing: what a read of a pinned iterator
 * costs (open, the reads, close) before a view does any work of its own.
 * bench/guest.sh times it beside the mount view and statmount(2).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("iter/fs_mnt")
int fsiter_empty(struct bpf_iter__fs_mnt *ctx)
{
	return 0;
}
