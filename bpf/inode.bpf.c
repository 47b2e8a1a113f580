// SPDX-License-Identifier: GPL-2.0
/*
 * The "inode" view: the superblock, the inode, the page-cache counts and
 * every cached folio with its order and whether it is dirty or under
 * writeback, as "key value" lines (fsiter-views(7)).
 *
 * The program reads ctx->first/ctx->last, so the kernel runs it once per
 * window of at most FSITER_WINDOW_ENTRIES page-cache entries: the header
 * comes with the first window, each window lists its own folios. That
 * keeps every run within the seq_file buffer, whatever the file size.
 *
 * The kernel shows page-cache state (counts and folios) only to a reader
 * who owns the file or may write it, as mincore(2) does, unless the link
 * was attached with BPF_F_FS_ITER_EXPOSE_CACHE (option expose-cache): for
 * anyone else ctx->stat is NULL, and the view prints the superblock and
 * inode lines and a "cache.withheld" line. A walk that a kfunc error ended
 * early says so in a "folios.error" line.
 *
 * The name is escaped (escape.h): it is one line whatever it holds.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "folio_walk.h"
#include "escape.h"

char LICENSE[] SEC("license") = "GPL";

#define NAME_MAX	255

/* Octal, as stat(1) %f would be in octal: bpf_seq_printf() has no %o. */
static void print_mode(struct seq_file *seq, umode_t m)
{
	if (m >> 15)
		BPF_SEQ_PRINTF(seq, "inode.mode 0%u%u%u%u%u%u\n", m >> 15,
			       (m >> 12) & 7, (m >> 9) & 7, (m >> 6) & 7,
			       (m >> 3) & 7, m & 7);
	else
		BPF_SEQ_PRINTF(seq, "inode.mode 0%u%u%u%u%u\n", (m >> 12) & 7,
			       (m >> 9) & 7, (m >> 6) & 7, (m >> 3) & 7, m & 7);
}

static void print_inode(struct seq_file *seq, struct inode *inode,
			struct dentry *dentry)
{
	struct super_block *sb = inode->i_sb;
	dev_t dev = sb->s_dev;

	BPF_SEQ_PRINTF(seq, "fs.type %s\n", sb->s_type->name);
	BPF_SEQ_PRINTF(seq, "fs.dev %u:%u\n", dev >> 20, dev & ((1U << 20) - 1));
	BPF_SEQ_PRINTF(seq, "fs.blocksize %lu\n", sb->s_blocksize);
	BPF_SEQ_PRINTF(seq, "fs.ops %ps\n", sb->s_op);
	if (dentry) {
		__u32 len = dentry->d_name.len;

		BPF_SEQ_PRINTF(seq, "inode.name ");
		esc_seq_str(seq, dentry->d_name.name, len < NAME_MAX ? len : NAME_MAX);
		BPF_SEQ_PRINTF(seq, "\n");
	}
	BPF_SEQ_PRINTF(seq, "inode.ino %lu\n", inode->i_ino);
	print_mode(seq, inode->i_mode);
	BPF_SEQ_PRINTF(seq, "inode.nlink %u\n", inode->i_nlink);
	BPF_SEQ_PRINTF(seq, "inode.uid %u\n", inode->i_uid.val);
	BPF_SEQ_PRINTF(seq, "inode.gid %u\n", inode->i_gid.val);
	BPF_SEQ_PRINTF(seq, "inode.size %lld\n", inode->i_size);
	BPF_SEQ_PRINTF(seq, "inode.blocks %llu\n", inode->i_blocks);
	BPF_SEQ_PRINTF(seq, "inode.state 0x%lx\n", inode->i_state);
	BPF_SEQ_PRINTF(seq, "inode.flags 0x%x\n", inode->i_flags);
	BPF_SEQ_PRINTF(seq, "inode.ops %ps\n", inode->i_op);
}

static void print_cache(struct seq_file *seq, struct inode *inode,
			struct cachestat *cs)
{
	BPF_SEQ_PRINTF(seq, "mapping.nrpages %lu\n", inode->i_mapping->nrpages);
	BPF_SEQ_PRINTF(seq, "cache.cached %llu\n", cs->nr_cache);
	BPF_SEQ_PRINTF(seq, "cache.dirty %llu\n", cs->nr_dirty);
	BPF_SEQ_PRINTF(seq, "cache.writeback %llu\n", cs->nr_writeback);
	BPF_SEQ_PRINTF(seq, "cache.evicted %llu\n", cs->nr_evicted);
}

/* Each context field is read straight from ctx: the verifier refuses
 * loads through a pointer derived from ctx.
 */
SEC("iter/fs_inode")
int fsiter_inode(struct bpf_iter__fs_inode *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct dentry *dentry = ctx->dentry;
	struct inode *inode = ctx->inode;
	struct cachestat *cs = ctx->stat;
	__u64 first = ctx->first, last = ctx->last;
	struct fsiter_folio_walk w = {};

	if (!inode)
		return 0;
	if (first == 0)
		print_inode(seq, inode, dentry);
	/* Withheld: the kernel runs the program once, with first 0. */
	if (!cs) {
		BPF_SEQ_PRINTF(seq, FSITER_WITHHELD);
		return 0;
	}
	if (first == 0)
		print_cache(seq, inode, cs);

	w.seq = seq;
	w.inode = inode;
	w.first = first;
	w.next = first;
	w.last = last;
	w.print = true;
	bpf_loop(FOLIO_WALK_CALLS, folio_walk_batch, &w, 0);
	if (w.err)
		BPF_SEQ_PRINTF(seq, "folios.error %ld\n", w.err);
	return 0;
}
