// SPDX-License-Identifier: GPL-2.0
/*
 * The "cache-top" view: the files of a filesystem with the most pages in
 * the page cache (fsiter-views(7)):
 *
 *   fs.type ext4
 *   fs.dev 8:1
 *   top 20
 *   file CACHED DIRTY WRITEBACK INO PATH     the top files, most cached first
 *   rest FILES CACHED DIRTY WRITEBACK        the other files the reader may observe
 *   other FILES CACHED DIRTY WRITEBACK       the files it may not: no names;
 *   other - - - -                            or not even sums
 *
 * The fs_sb iterator runs the program once per cached inode that the
 * reader may observe (owns or may write, and could reach; every one with
 * expose-cache), with its counts in ctx->pages, and once more at the end
 * with inode NULL. In that last run ctx->pages is the sums over the
 * others only for a link attached with BPF_F_FS_ITER_WITHHELD_SUMS
 * (option expose-totals; with expose-cache, sums of 0); otherwise NULL,
 * since with one file withheld the sums would be its own page-cache
 * state, and "other" says "-" for each: not known, which 0 would not say.
 * The program keeps the top files in a bounded min-heap by cached pages,
 * and prints in the last run.
 *
 * State is per walk, never global: one walk may take several read()s and
 * several readers may read the pin at once. Each walk's heap is its own
 * (sb_walks.h).
 *
 * N is read-only data, set by fsiter-pin before loading (policy option
 * top=N): iterator links have no cookie on 6.1, so each distinct N is a
 * program of its own.
 *
 * The whole list is printed by the last run, which must fit the seq_file
 * buffer of one object (32 KiB): hence at most TOP_MAX files and paths of
 * at most PATH_SHOWN bytes as printed, escaped (escape.h) so that a name
 * cannot break its line.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "sb_walks.h"
#include "escape.h"

char LICENSE[] SEC("license") = "GPL";

#define TOP_MAX		100	/* src/policy_fields.c: POLICY_TOP_MAX */
#define READERS		32	/* concurrent walks of one loaded view */
#define NAME_DEPTH	32	/* components of a path walked up */
#define PATH_LEN	256	/* a path as kept: ".../" and the tail if longer */
#define PATH_SHOWN	224	/* its bytes as printed, less the NUL */
#define NAME_LEN	255	/* NAME_MAX */

/* Set by fsiter-pin from the entry's top=N (1..TOP_MAX). */
const volatile __u32 fsiter_top SEC(".rodata.param") = 20;

struct top_file {
	__u64 cached, dirty, writeback, ino;
	__u32 deleted;
	char path[PATH_LEN];
};

struct top_walk {
	struct walk_head head;		/* sb_walks.h */
	struct sb_sums seen;		/* every file the program ran for */
	__u32 n;			/* files in the heap */
	__u32 heap[TOP_MAX];		/* slots, a min-heap by cached pages */
	struct top_file slot[TOP_MAX];
	__u64 names[NAME_DEPTH];	/* a path's names, innermost first */
	__u32 lens[NAME_DEPTH];
	char scratch[2 * PATH_LEN];	/* a path built from its end */
	__u64 pos;			/* where it starts */
	__u64 cut;			/* names left out: "..." goes first */
	char name[NAME_LEN + 1];	/* the name being put, as the dentry has it */
	__u64 name_len;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, READERS);
	__type(key, __u64);		/* the reader's struct seq_file */
	__type(value, struct top_walk);
} walks SEC(".maps");

/* A blank walk, too big for the stack, to start one from. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct top_walk);
} blank SEC(".maps");

static __u64 top_n(void)
{
	__u64 n = fsiter_top;

	return n < 1 ? 1 : n > TOP_MAX ? TOP_MAX : n;
}

static __u64 cached_at(struct top_walk *w, __u64 h)
{
	__u64 s;

	barrier_var(h);
	if (h >= TOP_MAX)
		return 0;
	s = w->heap[h];
	barrier_var(s);
	if (s >= TOP_MAX)
		return 0;
	return w->slot[s].cached;
}

static void swap(struct top_walk *w, __u64 a, __u64 b)
{
	__u32 t;

	barrier_var(a);
	barrier_var(b);
	if (a >= TOP_MAX || b >= TOP_MAX)
		return;
	t = w->heap[a];
	w->heap[a] = w->heap[b];
	w->heap[b] = t;
}

/* One step of restoring the heap below H, among its first N. */
struct top_sift {
	struct top_walk *w;
	__u64 h, n;
};

static long sift_step(__u32 i, void *data)
{
	struct top_sift *s = data;
	struct top_walk *w = s->w;
	__u64 h = s->h, l = 2 * h + 1, r = l + 1, m = h;

	if (l < s->n && cached_at(w, l) < cached_at(w, m))
		m = l;
	if (r < s->n && cached_at(w, r) < cached_at(w, m))
		m = r;
	if (m == h)
		return 1;
	swap(w, h, m);
	s->h = m;
	return 0;
}

/* A bpf_loop rather than a loop: the verifier checks one step, not every
 * path through eight. 2^7 > TOP_MAX.
 */
static void sift_down(struct top_walk *w, __u64 h, __u64 n)
{
	struct top_sift s = { .w = w, .h = h, .n = n };

	bpf_loop(8, sift_step, &s, 0);
}

static void sift_up(struct top_walk *w, __u64 h)
{
	for (int lvl = 0; lvl < 8 && h > 0; lvl++) {
		__u64 p = (h - 1) / 2;

		if (cached_at(w, p) <= cached_at(w, h))
			return;
		swap(w, h, p);
		h = p;
	}
}

/* Walking a dentry up to the mount's root. */
struct top_up {
	struct top_walk *w;
	struct dentry *d;
	struct dentry *root;
	__u64 n;		/* names collected */
	bool under;		/* reached root */
	bool deep;		/* more than NAME_DEPTH names */
};

/*
 * The index is the callback's own, never a count kept in U: the 6.1
 * verifier checks a bpf_loop callback once, with U as it is before the
 * first call, and removes the branches that call did not take, so a
 * bound on a count kept in U (0 then) would be gone at run time.
 */
static long walk_up(__u32 idx, void *data)
{
	struct top_up *u = data;
	struct dentry *d = u->d;
	__u64 i = idx;

	barrier_var(i);

	if (d == u->root) {
		u->under = true;
		return 1;
	}
	if (d == d->d_parent)	/* the filesystem's root, not under root */
		return 1;
	if (i >= NAME_DEPTH) {
		u->deep = true;
		return 1;
	}
	u->w->names[i] = (__u64)d->d_name.name;
	u->w->lens[i] = d->d_name.len;
	u->n = i + 1;
	u->d = d->d_parent;
	return 0;
}

/*
 * Building the path from its end, innermost name first, each byte as the
 * view prints it (escape.h): PATH_SHOWN bounds the line as printed. The
 * state of the build is in the walk's map value, not in the callbacks'
 * context: the verifier reads a map value as any number, so the bounds
 * on the position stay (see walk_up() for what it does with a count kept
 * in the context).
 */
struct top_build {
	struct top_walk *w;
	__u64 n;
};

/* A byte of w->name, from its end, before w->pos. */
static long put_byte(__u32 idx, void *data)
{
	struct top_build *b = data;
	struct top_walk *w = b->w;
	__u64 j = idx, len = w->name_len, pos = w->pos, need;
	__u8 c;

	barrier_var(j);
	if (j >= len || j >= NAME_LEN)
		return 1;
	c = w->name[(len - 1 - j) & NAME_LEN];
	need = esc_plain(c) ? 1 : ESC_WIDTH;
	/* Room for it, the name's '/' and a leading "..." */
	if (pos < need + 1 + 3 || pos > PATH_SHOWN) {
		w->cut = 1;
		return 1;
	}
	pos -= need;
	if (need == 1)
		w->scratch[pos & (PATH_LEN - 1)] = c;
	else
		esc_octal(&w->scratch[pos & (PATH_LEN - 1)], c);
	w->pos = pos;
	return 0;
}

static long put_name(__u32 idx, void *data)
{
	__u64 i = idx;

	barrier_var(i);
	struct top_build *b = data;
	struct top_walk *w = b->w;
	struct top_build nb = { .w = w };
	__u64 len, start = w->pos, pos;
	const char *name;

	if (i >= b->n || i >= NAME_DEPTH)
		return 1;
	len = w->lens[i & (NAME_DEPTH - 1)];
	name = (const char *)w->names[i & (NAME_DEPTH - 1)];
	/* Room for "/name" and a leading "...", before any escape */
	if (len > NAME_LEN || start < len + 1 + 3) {
		w->cut = 1;
		return 1;
	}
	/*
	 * Keep the mask: clang drops it as len <= NAME_LEN is known, and the
	 * 6.12 verifier can lose len's unsigned bounds ("R2 unbounded memory
	 * access").
	 */
	barrier_var(len);
	bpf_probe_read_kernel(w->name, len & NAME_LEN, name);
	w->name_len = len;
	bpf_loop(NAME_LEN, put_byte, &nb, 0);
	if (w->cut) {
		w->pos = start;		/* no half name */
		return 1;
	}
	pos = w->pos - 1;
	barrier_var(pos);
	if (pos >= PATH_LEN)
		return 1;
	w->scratch[pos] = '/';
	w->pos = pos;
	return 0;
}

/* DENTRY's path from ROOT into F: "a/b" under ROOT, "/a/b" from the
 * filesystem's root if not under it, ".../b" if too deep or too long,
 * "." for ROOT itself ("/" for the filesystem's root outside ROOT), "?"
 * without a dentry.
 */
static void set_path(struct top_walk *w, struct top_file *f, struct dentry *dentry,
		     struct dentry *root)
{
	struct top_up u = { .w = w, .d = dentry, .root = root };
	struct top_build b = { .w = w };
	__u64 pos;

	f->deleted = 0;
	if (!dentry) {
		f->path[0] = '?';
		f->path[1] = '\0';
		return;
	}
	/* An unhashed name is no longer in its directory, unless it is a root. */
	f->deleted = dentry != dentry->d_parent && !dentry->d_hash.pprev;
	bpf_loop(NAME_DEPTH + 1, walk_up, &u, 0);
	if (u.n == 0 && !u.deep) {	/* ROOT, or the filesystem's root */
		f->path[0] = u.under ? '.' : '/';
		f->path[1] = '\0';
		return;
	}
	b.n = u.n;
	w->scratch[PATH_SHOWN] = '\0';
	w->pos = PATH_SHOWN;
	w->cut = 0;
	bpf_loop(NAME_DEPTH, put_name, &b, 0);
	pos = w->pos;
	if (w->cut || u.deep) {
		pos -= 3;
		barrier_var(pos);
		if (pos < PATH_LEN) {
			w->scratch[pos] = '.';
			w->scratch[(pos + 1) & (PATH_LEN - 1)] = '.';
			w->scratch[(pos + 2) & (PATH_LEN - 1)] = '.';
		}
	} else if (u.under) {
		pos++;		/* relative: no leading '/' */
	}
	bpf_probe_read_kernel(f->path, PATH_LEN, &w->scratch[pos & (PATH_LEN - 1)]);
}

static void fill(struct top_walk *w, __u64 s, struct bpf_iter__fs_sb *ctx,
		 struct inode *inode, struct bpf_fs_sb_pages *pages)
{
	struct top_file *f;

	barrier_var(s);
	if (s >= TOP_MAX)
		return;
	f = &w->slot[s];
	f->cached = pages->nr_cache;
	f->dirty = pages->nr_dirty;
	f->writeback = pages->nr_writeback;
	f->ino = inode->i_ino;
	set_path(w, f, ctx->dentry, ctx->root);
}

struct top_print {
	struct top_walk *w;
	struct seq_file *seq;
	struct sb_sums shown;
};

/* Heapsort in place: the heap's slots end most cached first. */
static long sort_step(__u32 idx, void *data)
{
	struct top_print *p = data;
	struct top_walk *w = p->w;
	__u64 i = idx, last;

	barrier_var(i);

	if (i >= w->n || i >= TOP_MAX)
		return 1;
	last = w->n - 1 - i;
	swap(w, 0, last);
	sift_down(w, 0, last);
	return 0;
}

static long print_file(__u32 idx, void *data)
{
	struct top_print *p = data;
	struct top_walk *w = p->w;
	struct top_file *f;
	__u64 i = idx, s;

	barrier_var(i);
	if (i >= w->n || i >= TOP_MAX)
		return 1;
	s = w->heap[i];
	barrier_var(s);
	if (s >= TOP_MAX)
		return 1;
	f = &w->slot[s];
	BPF_SEQ_PRINTF(p->seq, "file %llu %llu %llu %llu %s%s\n", f->cached, f->dirty,
		       f->writeback, f->ino, f->path, f->deleted ? " (deleted)" : "");
	p->shown.inodes++;
	p->shown.cached += f->cached;
	p->shown.dirty += f->dirty;
	p->shown.writeback += f->writeback;
	return 0;
}

SEC("iter/fs_sb")
int fsiter_sb_top(struct bpf_iter__fs_sb *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct bpf_fs_sb_pages *pages = ctx->pages;
	struct inode *inode = ctx->inode;
	struct dentry *root = ctx->root;
	struct top_print p = {};
	__u32 zero = 0;
	__u64 n = top_n(), h;
	struct top_walk *w;

	w = walk_begin(&walks, ctx->meta, bpf_map_lookup_elem(&blank, &zero), inode, READERS);
	if (!w)
		return 0;

	if (inode) {
		if (!pages)
			return 0;
		sums_add(&w->seen, pages);
		h = w->n;
		barrier_var(h);
		if (h < n && h < TOP_MAX) {
			w->heap[h] = h;
			fill(w, h, ctx, inode, pages);
			w->n++;
			sift_up(w, h);
		} else if (pages->nr_cache > cached_at(w, 0)) {
			fill(w, w->heap[0], ctx, inode, pages);
			sift_down(w, 0, w->n);
		}
		return 0;
	}

	/*
	 * The last run: ctx->pages holds the sums over what the reader may
	 * not see, or is NULL when the kernel withholds even those.
	 */
	print_fs(seq, root);
	BPF_SEQ_PRINTF(seq, "top %llu\n", n);
	p.w = w;
	p.seq = seq;
	bpf_loop(TOP_MAX, sort_step, &p, 0);
	bpf_loop(TOP_MAX, print_file, &p, 0);
	BPF_SEQ_PRINTF(seq, "rest %llu %llu %llu %llu\n", w->seen.inodes - p.shown.inodes,
		       w->seen.cached - p.shown.cached, w->seen.dirty - p.shown.dirty,
		       w->seen.writeback - p.shown.writeback);
	if (pages)
		BPF_SEQ_PRINTF(seq, "other %llu %llu %llu %llu\n", pages->nr_inodes,
			       pages->nr_cache, pages->nr_dirty, pages->nr_writeback);
	else
		BPF_SEQ_PRINTF(seq, "other - - - -\n");
	walk_done(&walks, seq);
	return 0;
}
