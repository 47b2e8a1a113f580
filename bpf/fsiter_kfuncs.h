/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page-cache kfuncs of the fs_inode iterator (kernel/patches/), as BPF
 * programs declare them. They take only the iterator's own ctx->inode.
 */
#ifndef FSITER_KFUNCS_H
#define FSITER_KFUNCS_H

extern void bpf_filemap_cachestat(struct inode *inode, unsigned long from,
				  unsigned long last, struct cachestat *cs) __ksym;
extern long bpf_filemap_find_present(struct inode *inode, unsigned long from,
				     unsigned long last) __ksym;
extern long bpf_filemap_get_order(struct inode *inode, unsigned long index) __ksym;
/*
 * Fills @folios with the cached folios of [from, last] in one walk;
 * returns how many, 0 when there are no more, or -errno (-EACCES when the
 * reader may not see the page cache, -EAGAIN when it gave up).
 */
extern long bpf_filemap_get_folios(struct inode *inode, unsigned long from,
				   unsigned long last,
				   struct bpf_filemap_folio *folios,
				   __u32 folios__sz) __ksym;

/*
 * The line a view prints instead of page-cache state that its reader may
 * not see (fsiter-views(7), cache.withheld).
 */
#define FSITER_WITHHELD "cache.withheld the reader neither owns nor may write this file\n"

/* Most page-cache entries in one fs_inode window (FS_INODE_WINDOW_ENTRIES). */
#define FSITER_WINDOW_ENTRIES 512

/*
 * Folios listed per bpf_filemap_get_folios() call: its buffer lives on
 * the BPF stack of a bpf_loop callback, 16 bytes an entry.
 */
#define FSITER_FOLIO_BATCH 16

#endif /* FSITER_KFUNCS_H */
