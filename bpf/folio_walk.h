/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Listing the folios of one fs_inode window, two ways: the inode view
 * uses the batch; bench/folio_walk.bpf.c times both.
 *
 *   folio_walk_one    the RFC's way: bpf_filemap_find_present() and
 *                     bpf_filemap_get_order() for each folio; each call
 *                     descends the xarray from its root
 *   folio_walk_batch  bpf_filemap_get_folios(): one walk per
 *                     FSITER_FOLIO_BATCH folios
 *
 * Both are bpf_loop() callbacks over a struct fsiter_folio_walk, and print each
 * folio that starts in the window as "folio INDEX ORDER [dirty]
 * [writeback]" (fsiter-views(7)), or only count them. A kfunc error ends
 * the walk with w->err set: it never reads as "no more folios".
 */
#ifndef FSITER_FOLIO_WALK_H
#define FSITER_FOLIO_WALK_H

#include "fsiter_kfuncs.h"

struct fsiter_folio_walk {
	struct seq_file *seq;
	struct inode *inode;
	unsigned long next;	/* first index not walked yet */
	unsigned long first;	/* the window */
	unsigned long last;
	unsigned long folios;	/* folios of the window seen */
	long err;		/* the kfunc error that ended the walk, or 0 */
	bool print;
};

static __always_inline void folio_seen(struct fsiter_folio_walk *w, __u64 index,
				       __u32 order, __u32 flags)
{
	/* A folio that starts in an earlier window was listed there. */
	if (index < w->first)
		return;
	w->folios++;
	if (w->print)
		BPF_SEQ_PRINTF(w->seq, "folio %llu %u%s%s\n", index, order,
			       flags & BPF_FILEMAP_FOLIO_DIRTY ? " dirty" : "",
			       flags & BPF_FILEMAP_FOLIO_WRITEBACK ? " writeback" : "");
}

/* find_present and get_order know nothing of dirty or writeback. */
static long folio_walk_one(__u32 i, void *data)
{
	struct fsiter_folio_walk *w = data;
	long index, order;

	index = bpf_filemap_find_present(w->inode, w->next, w->last);
	if (index == -1)	/* ULONG_MAX: none left in the window */
		return 1;
	if (index < 0) {
		w->err = index;
		return 1;
	}
	order = bpf_filemap_get_order(w->inode, index);
	folio_seen(w, index, order, 0);
	w->next = index + (1UL << order);
	return w->next == 0 || w->next > w->last;
}

static long folio_walk_batch(__u32 i, void *data)
{
	struct bpf_filemap_folio f[FSITER_FOLIO_BATCH] = {};
	struct fsiter_folio_walk *w = data;
	long nr, k;

	nr = bpf_filemap_get_folios(w->inode, w->next, w->last, f, sizeof(f));
	if (nr < 0)
		w->err = nr;
	if (nr <= 0)		/* 0: none left in the window */
		return 1;
	for (k = 0; k < nr && k < FSITER_FOLIO_BATCH; k++)
		folio_seen(w, f[k].index, f[k].order, f[k].flags);
	w->next = f[k - 1].index + (1UL << f[k - 1].order);
	return w->next == 0 || w->next > w->last;
}

/* Twice what a window can hold, for folios that grew into it. */
#define FOLIO_WALK_CALLS (2 * FSITER_WINDOW_ENTRIES)

#endif /* FSITER_FOLIO_WALK_H */
