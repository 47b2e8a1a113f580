// SPDX-License-Identifier: GPL-2.0
/*
 * The "cache" view: the page-cache counts of a file, as "key value" lines
 * (fsiter-views(7)), the keys the inode view prints them under:
 *
 *   cache.cached N
 *   cache.dirty N
 *   cache.writeback N
 *   cache.evicted N
 *   inode.pages N
 *
 * Counts are in pages; inode.pages is the file size in 4 KiB pages. The kernel takes
 * the counts when the read starts (ctx->stat), so the program runs once.
 *
 * Page-cache state is a side channel: the kernel shows it only to a
 * reader who owns the file or may write it, as mincore(2) does, unless the
 * link was attached with BPF_F_FS_ITER_EXPOSE_CACHE (option expose-cache);
 * for anyone else ctx->stat is NULL and the view prints a "cache.withheld"
 * line.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "fsiter_kfuncs.h"

char LICENSE[] SEC("license") = "GPL";

SEC("iter/fs_inode")
int fsiter_cache(struct bpf_iter__fs_inode *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct inode *inode = ctx->inode;
	struct cachestat *cs = ctx->stat;
	__u64 pages;

	if (!inode)
		return 0;
	if (!cs) {
		BPF_SEQ_PRINTF(seq, FSITER_WITHHELD);
		return 0;
	}
	pages = ((__u64)inode->i_size + 4095) >> 12;
	BPF_SEQ_PRINTF(seq, "cache.cached %llu\ncache.dirty %llu\n",
		       cs->nr_cache, cs->nr_dirty);
	BPF_SEQ_PRINTF(seq, "cache.writeback %llu\ncache.evicted %llu\ninode.pages %llu\n",
		       cs->nr_writeback, cs->nr_evicted, pages);
	return 0;
}
