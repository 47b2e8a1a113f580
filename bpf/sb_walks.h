/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of one walk of an fs_sb view (cache-summary, cache-top), kept
 * from one run of its program to the next: never a global, which two
 * readers of one pin would share, since one walk may take several read()s
 * and several readers may read at once.
 *
 * Each walk has an entry of a hash map, keyed by its reader's seq_file
 * (ctx->meta->seq) and marked with the iterator's session_id, unique per
 * open iterator: a run that finds no entry, or one of another session (a
 * seq_file freed and allocated again), starts afresh from a blank value.
 * seq_num cannot tell when a walk starts: the kernel takes a skipped
 * object's number back, so the final run of a walk that ran the program
 * once has seq_num 0 too. The entry is deleted once printed in the last
 * run.
 *
 * The map is preallocated and not an LRU: an LRU map evicts live entries
 * as soon as its free nodes sit on another CPU's list, whatever its size.
 * A walk whose reader stopped midway leaves its entry behind; when the
 * map is full, a new walk first deletes the entries that no run touched
 * for WALK_STALE_NS. The entry counts the runs: in the last run, a count
 * other than seq_num + 1 means the walk lost its entry midway (more than
 * the map's size of walks at once, or a pause over WALK_STALE_NS), and
 * the view prints an "error" line instead of wrong results.
 *
 * The value of such a map starts with a struct walk_head.
 */
#ifndef FSITER_SB_WALKS_H
#define FSITER_SB_WALKS_H

#define WALK_STALE_NS	(30ULL * 1000 * 1000 * 1000)

struct walk_head {
	__u64 stamp;		/* the time of the walk's last run */
	__u64 session;		/* ctx->meta->session_id */
	__u64 runs;		/* runs for an inode so far */
};

struct walk_gc {
	__u64 now;
};

static long walk_gc_one(struct bpf_map *map, __u64 *key, struct walk_head *h,
			struct walk_gc *gc)
{
	if (gc->now - h->stamp > WALK_STALE_NS)
		bpf_map_delete_elem(map, key);
	return 0;
}

/*
 * The entry in MAP of the walk of META, started afresh from BLANK if it
 * has none; NULL if there is no room. A run for an inode counts itself.
 */
static __always_inline void *walk_get(void *map, struct bpf_iter_meta *meta,
				      const void *blank, bool inode)
{
	__u64 key = (__u64)meta->seq, session = meta->session_id;
	struct walk_head *w;

	w = bpf_map_lookup_elem(map, &key);
	if (!w || w->session != session) {
		if (!blank)
			return NULL;
		if (bpf_map_update_elem(map, &key, blank, BPF_ANY)) {
			struct walk_gc gc = { .now = bpf_ktime_get_ns() };

			bpf_for_each_map_elem(map, walk_gc_one, &gc, 0);
			bpf_map_update_elem(map, &key, blank, BPF_ANY);
		}
		w = bpf_map_lookup_elem(map, &key);
		if (!w)
			return NULL;
		w->session = session;
	}
	w->stamp = bpf_ktime_get_ns();
	if (inode)
		w->runs++;
	return w;
}

/* In the last run: did the walk keep its entry all along? */
static __always_inline bool walk_whole(const struct walk_head *w, __u64 seq_num)
{
	/* The last run's seq_num is that of the last run for an inode (0 if
	 * none, or ~0 when the kernel skipped objects and ran none).
	 */
	return w->runs == seq_num + 1 || (w->runs == 0 && seq_num == 0);
}

static __always_inline void walk_done(void *map, struct seq_file *seq)
{
	__u64 key = (__u64)seq;

	bpf_map_delete_elem(map, &key);
}

/* What the views add up over the inodes of a walk. */
struct sb_sums {
	__u64 inodes, cached, dirty, writeback;
};

static __always_inline void sums_add(struct sb_sums *s, const struct bpf_fs_sb_pages *p)
{
	s->inodes += p->nr_inodes;
	s->cached += p->nr_cache;
	s->dirty += p->nr_dirty;
	s->writeback += p->nr_writeback;
}

/* The first two lines of each view: "fs.type ext4", "fs.dev 8:1". */
static __always_inline void print_fs(struct seq_file *seq, struct dentry *root)
{
	char type[32] = {};
	__u32 dev = 0;

	if (root) {
		dev = root->d_sb->s_dev;
		bpf_probe_read_kernel_str(type, sizeof(type), root->d_sb->s_type->name);
	}
	BPF_SEQ_PRINTF(seq, "fs.type %s\n", type[0] ? type : "-");
	BPF_SEQ_PRINTF(seq, "fs.dev %u:%u\n", dev >> 20, dev & ((1U << 20) - 1));
}

/*
 * walk_get(), and what every view does when it fails: the entry of this
 * run's walk, or NULL when the run has nothing more to do. That is when
 * there is no room for the walk, or in the last run (inode NULL) when the
 * walk lost its entry midway; a last run then prints an "error" line
 * instead of results, and frees the entry if it has one. READERS is the
 * map's size, for the message.
 */
static __always_inline void *walk_begin(void *map, struct bpf_iter_meta *meta,
					const void *blank, bool inode, int readers)
{
	struct walk_head *w = walk_get(map, meta, blank, inode);

	if (w && (inode || walk_whole(w, meta->seq_num)))
		return w;
	if (!inode) {
		BPF_SEQ_PRINTF(meta->seq,
			       "error more than %d concurrent readers, or a pause of over %llu s; read again\n",
			       readers, WALK_STALE_NS / 1000000000);
		if (w)
			walk_done(map, meta->seq);
	}
	return NULL;
}

#endif /* FSITER_SB_WALKS_H */
