// SPDX-License-Identifier: GPL-2.0
/*
 * The "inode-raw" view: a BTF dump of the inode and of its super_block,
 * with kernel pointers. Root only unless the policy says otherwise.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

SEC("iter/fs_inode")
int fsiter_inode_raw(struct bpf_iter__fs_inode *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct inode *inode = ctx->inode;
	struct btf_ptr ptr = {};

	if (!inode)
		return 0;

	ptr.type_id = bpf_core_type_id_kernel(struct inode);
	ptr.ptr = inode;
	bpf_seq_printf_btf(seq, &ptr, sizeof(ptr), 0);

	ptr.type_id = bpf_core_type_id_kernel(struct super_block);
	ptr.ptr = inode->i_sb;
	bpf_seq_printf_btf(seq, &ptr, sizeof(ptr), 0);
	return 0;
}
