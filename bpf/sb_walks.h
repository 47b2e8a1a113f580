/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of one walk of an fs_sb view (cache-summary, cache-top), kept
 * from one run of its program to the next: never a global, which two
 * readers of one pin would share, since one walk may take several read()s
 * and several readers may read at once.
 *
 * Each walk has an entry of a hash map, keyed by its reader's seq_file
 * (ctx->meta->seq), started afresh from a blank value when its walk starts
 * (seq_num 0) and deleted once printed in the last run. The map is
 * preallocated and not an LRU: an LRU map evicts live entries as soon as
 * its free nodes sit on another CPU's list, whatever its size. A walk
 * whose reader stopped midway leaves its entry behind; when the map is
 * full, a new walk first deletes the entries that no run touched for
 * WALK_STALE_NS. A walk that finds no entry (more than the map's size of
 * walks at once, or it paused longer than that and was collected) prints
 * an "error" line instead of wrong results.
 *
 * The value of such a map starts with a __u64 stamp: the time of the
 * walk's last run.
 */
#ifndef FSITER_SB_WALKS_H
#define FSITER_SB_WALKS_H

#define WALK_STALE_NS	(30ULL * 1000 * 1000 * 1000)

struct walk_gc {
	__u64 now;
};

static long walk_gc_one(struct bpf_map *map, __u64 *key, __u64 *stamp,
			struct walk_gc *gc)
{
	if (gc->now - *stamp > WALK_STALE_NS)
		bpf_map_delete_elem(map, key);
	return 0;
}

/*
 * The entry of the walk of SEQ in MAP, started afresh from BLANK if the
 * walk starts now (SEQ_NUM 0), with its stamp set; NULL if there is none.
 */
static __always_inline void *walk_get(void *map, struct seq_file *seq,
				      __u64 seq_num, const void *blank)
{
	__u64 key = (__u64)seq, *w;

	if (seq_num == 0 && blank &&
	    bpf_map_update_elem(map, &key, blank, BPF_ANY)) {
		struct walk_gc gc = { .now = bpf_ktime_get_ns() };

		bpf_for_each_map_elem(map, walk_gc_one, &gc, 0);
		bpf_map_update_elem(map, &key, blank, BPF_ANY);
	}
	w = bpf_map_lookup_elem(map, &key);
	if (w)
		*w = bpf_ktime_get_ns();
	return w;
}

static __always_inline void walk_done(void *map, struct seq_file *seq)
{
	__u64 key = (__u64)seq;

	bpf_map_delete_elem(map, &key);
}

#endif /* FSITER_SB_WALKS_H */
