// SPDX-License-Identifier: GPL-2.0
/*
 * The "cache-summary" view: the page cache of a whole filesystem, in
 * "key value" lines (fsiter-views(7)):
 *
 *   fs.type ext4
 *   fs.dev 8:1
 *   cache.inodes N       inodes with pages in the cache, or -
 *   cache.cached N       pages, or -
 *   cache.dirty N        or -
 *   cache.writeback N    or -
 *   observed.inodes N    the part of those held by files the reader may observe
 *   observed.cached N
 *   observed.dirty N
 *   observed.writeback N
 *   observed.share F     observed.cached / cache.cached, 0 to 1, or -
 *
 * The fs_sb iterator runs the program once per cached inode of the
 * filesystem that the reader may observe (owns or may write, and could
 * reach; every one with expose-cache), with that inode's counts in
 * ctx->pages, and once more at the end with inode NULL. In that last run
 * ctx->pages is the sums over the others, which it does not name, only
 * for a link attached with BPF_F_FS_ITER_WITHHELD_SUMS (option
 * expose-totals; with expose-cache, sums of 0, nothing being withheld);
 * otherwise NULL: with one file withheld, the sums would be its own
 * page-cache state. Then no total is known, and the totals and the share
 * print "-", every key kept, so that a parser sees the same lines. The
 * program adds up the first kind and prints everything in the last run.
 *
 * One walk may take several read()s, and several readers may read the
 * same pin at once: the sums of each walk are its own (sb_walks.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "sb_walks.h"

char LICENSE[] SEC("license") = "GPL";

/* Concurrent walks of one loaded view. */
#define READERS 256

struct sum_walk {
	struct walk_head head;	/* sb_walks.h */
	struct sb_sums seen;	/* the inodes the program ran for */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, READERS);
	__type(key, __u64);		/* the reader's struct seq_file */
	__type(value, struct sum_walk);
} walks SEC(".maps");

/* A fraction with four decimals, as 10000 times it. */
static __u64 share(__u64 part, __u64 whole)
{
	return whole ? part * 10000 / whole : 0;
}

SEC("iter/fs_sb")
int fsiter_sb_sum(struct bpf_iter__fs_sb *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct bpf_fs_sb_pages *pages = ctx->pages;
	struct inode *inode = ctx->inode;
	struct dentry *root = ctx->root;
	struct sum_walk zero = {}, *w;
	struct sb_sums all;
	__u64 frac;

	w = walk_begin(&walks, ctx->meta, &zero, inode, READERS);
	if (!w)
		return 0;
	if (inode) {
		if (pages)
			sums_add(&w->seen, pages);
		return 0;
	}

	/*
	 * The last run: ctx->pages holds the sums over what the reader may
	 * not see, or is NULL when the kernel withholds even those.
	 */
	print_fs(seq, root);
	all = w->seen;
	if (pages) {
		sums_add(&all, pages);
		BPF_SEQ_PRINTF(seq, "cache.inodes %llu\ncache.cached %llu\n",
			       all.inodes, all.cached);
		BPF_SEQ_PRINTF(seq, "cache.dirty %llu\ncache.writeback %llu\n",
			       all.dirty, all.writeback);
	} else {
		BPF_SEQ_PRINTF(seq, "cache.inodes -\ncache.cached -\ncache.dirty -\ncache.writeback -\n");
	}
	BPF_SEQ_PRINTF(seq, "observed.inodes %llu\nobserved.cached %llu\n",
		       w->seen.inodes, w->seen.cached);
	BPF_SEQ_PRINTF(seq, "observed.dirty %llu\nobserved.writeback %llu\n",
		       w->seen.dirty, w->seen.writeback);
	if (pages) {
		frac = share(w->seen.cached, all.cached);
		BPF_SEQ_PRINTF(seq, "observed.share %llu.%04llu\n", frac / 10000, frac % 10000);
	} else {
		BPF_SEQ_PRINTF(seq, "observed.share -\n");
	}
	walk_done(&walks, seq);
	return 0;
}
