// SPDX-License-Identifier: GPL-2.0
/*
 * bench/guest.sh times the two folio walks of bpf/folio_walk.h, window by
 * window as the inode view runs:
 *
 *   walk_loop    the RFC's find_present + get_order per folio (baseline)
 *   walk_batch   bpf_filemap_get_folios(), as the inode view does
 *   count_loop, count_batch
 *                the same walks, printing one "ino I folios N" line per window
 *                instead of a line per folio: the walk without the printing
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "folio_walk.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline int run(struct bpf_iter__fs_inode *ctx, bool batch,
			       bool print)
{
	struct fsiter_folio_walk w = {
		.seq = ctx->meta->seq,
		.inode = ctx->inode,
		.next = ctx->first,
		.first = ctx->first,
		.last = ctx->last,
		.print = print,
	};

	if (!w.inode)
		return 0;
	if (batch)
		bpf_loop(FOLIO_WALK_CALLS, folio_walk_batch, &w, 0);
	else
		bpf_loop(FOLIO_WALK_CALLS, folio_walk_one, &w, 0);
	/* i_ino also puts struct inode in this object's BTF: libbpf refuses
	 * a kfunc whose argument type is only declared.
	 */
	if (!print)
		BPF_SEQ_PRINTF(w.seq, "ino %lu folios %lu\n", w.inode->i_ino,
			       w.folios);
	return 0;
}

SEC("iter/fs_inode")
int walk_loop(struct bpf_iter__fs_inode *ctx)
{
	return run(ctx, false, true);
}

SEC("iter/fs_inode")
int walk_batch(struct bpf_iter__fs_inode *ctx)
{
	return run(ctx, true, true);
}

SEC("iter/fs_inode")
int count_loop(struct bpf_iter__fs_inode *ctx)
{
	return run(ctx, false, false);
}

SEC("iter/fs_inode")
int count_batch(struct bpf_iter__fs_inode *ctx)
{
	return run(ctx, true, false);
}
