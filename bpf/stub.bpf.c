// SPDX-License-Identifier: GPL-2.0
/*
 * Not a view: what a revoked pin's link runs from then on. Before
 * fsiter-pin revokes a pin (removes it, or replaces it with another
 * link), it gives the link one of these programs with BPF_LINK_UPDATE
 * (src/neuter.c), so that an fd on the link that someone took while they
 * could (the pin's owner may make it writable, and BPF_OBJ_GET gives a
 * link to whoever may read and write its pin) starts walks that print
 * nothing.
 *
 * The kernel replaces an iterator link's program only with one of the
 * same type, attach type and attach BTF id, that is of the same target:
 * one program per target kind, named as src/target_kind.c says. None
 * reads its context, so each runs once per object, and prints nothing.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("iter/fs_inode")
int revoked_inode(struct bpf_iter__fs_inode *ctx)
{
	return 0;
}

SEC("iter/fs_mnt")
int revoked_mnt(struct bpf_iter__fs_mnt *ctx)
{
	return 0;
}

SEC("iter/fs_sb")
int revoked_sb(struct bpf_iter__fs_sb *ctx)
{
	return 0;
}
