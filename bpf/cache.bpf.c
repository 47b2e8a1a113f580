// SPDX-License-Identifier: GPL-2.0
/*
 * The "cache" view: one line with the page-cache counts of a file.
 *
 *   cached N dirty N writeback N evicted N pages N
 *
 * Counts are in pages; "pages" is the file size in pages. The kernel takes
 * the counts when the read starts (ctx->stat), so the program runs once.
 *
 * Page-cache state is a side channel: fsiter_cache shows it only to a
 * reader who owns the file or may write it, as mincore(2) does, and prints
 * a "withheld" line to anyone else. fsiter_cache_all shows it to every
 * reader the pin lets in; fsiter-pin attaches it only for entries with the
 * option expose-cache.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "fsiter_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline int show(struct seq_file *seq, struct inode *inode,
				struct cachestat *cs, bool check)
{
	__u64 pages;

	if (!inode || !cs)
		return 0;
	if (check && bpf_filemap_may_observe(inode)) {
		BPF_SEQ_PRINTF(seq, FSITER_WITHHELD);
		return 0;
	}
	pages = ((__u64)inode->i_size + 4095) >> 12;
	BPF_SEQ_PRINTF(seq, "cached %llu dirty %llu writeback %llu evicted %llu pages %llu\n",
		       cs->nr_cache, cs->nr_dirty, cs->nr_writeback,
		       cs->nr_evicted, pages);
	return 0;
}

SEC("iter/fs_inode")
int fsiter_cache(struct bpf_iter__fs_inode *ctx)
{
	return show(ctx->meta->seq, ctx->inode, ctx->stat, true);
}

SEC("iter/fs_inode")
int fsiter_cache_all(struct bpf_iter__fs_inode *ctx)
{
	return show(ctx->meta->seq, ctx->inode, ctx->stat, false);
}
