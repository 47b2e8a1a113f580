// SPDX-License-Identifier: GPL-2.0
/*
 * The "mount" view: one mount, as "key value" lines (fsiter-views(7)):
 * the RFC's dump_mnt plus what findmnt shows: the options, the
 * propagation, the source, the root of the mount within its filesystem,
 * the filesystem's type and generic options, and the mount point. The
 * kernel runs it with the mount tree locked, so the walk up to the root
 * sees a consistent tree. Names are escaped (escape.h): one line whatever
 * they hold.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "escape.h"

char LICENSE[] SEC("license") = "GPL";

/* include/linux/mount.h */
#define MNT_NOSUID	0x01
#define MNT_NODEV	0x02
#define MNT_NOEXEC	0x04
#define MNT_NOATIME	0x08
#define MNT_NODIRATIME	0x10
#define MNT_RELATIME	0x20
#define MNT_READONLY	0x40
#define MNT_NOSYMFOLLOW	0x80
#define MNT_SHARED	0x1000
#define MNT_UNBINDABLE	0x2000

/* include/linux/fs.h: the superblock flags mountinfo shows for every fs. */
#define SB_RDONLY	0x01
#define SB_SYNCHRONOUS	0x10
#define SB_MANDLOCK	0x40
#define SB_DIRSYNC	0x80
#define SB_LAZYTIME	0x2000000

/* Names the walk has room for (a power of two, for the masks). */
#define MAX_DEPTH	32
/* Steps of the walk up: the names and the mounts crossed between them. */
#define WALK_STEPS	(4 * MAX_DEPTH)
/*
 * The deepest mount point and mount root shown; deeper ones are cut at
 * the top with "...". Their names are escaped (escape.h), each byte in up
 * to 4: 18 + 10 names of NAME_MAX bytes, 28 * (1 + 4 * 255) = 28588
 * bytes, the source (SOURCE_MAX bytes, 1020 escaped) and the other lines,
 * about 400, fit the 32 KiB the kernel gives one object; a read past it
 * would fail with E2BIG.
 */
#define DEPTH_SHOWN	18
#define ROOT_SHOWN	10
#define NAME_MAX	255
#define SOURCE_MAX	255

struct path_walk {
	struct seq_file *seq;
	struct mount *mnt;
	struct dentry *dentry;
	__u64 names[MAX_DEPTH];	/* component names, innermost first */
	__u64 n;		/* names kept */
	__u64 hops;		/* mounts crossed before the next name */
	bool done;		/* reached the root of the mount tree */
};

/*
 * One step up: to the mount point in the parent mount, or to the parent
 * dentry, keeping the name. Every count kept in W is derived from the
 * callback's own index: the 6.1 verifier checks a bpf_loop callback once,
 * with W as it is before the first call, and hard-wires the branches
 * that call did not take, so a bound on a count it saw as 0 (the names
 * kept, say) would be gone at run time (cache-top.bpf.c has the same).
 */
static long walk_up(__u32 idx, void *data)
{
	struct path_walk *w = data;
	struct mount *mnt = w->mnt;
	struct dentry *dentry = w->dentry;
	__u64 i = idx, k;

	barrier_var(i);
	if (dentry == mnt->mnt.mnt_root || dentry == dentry->d_parent) {
		struct mount *parent = mnt->mnt_parent;

		if (parent == mnt) {	/* the root, or a detached mount */
			w->done = true;
			return 1;
		}
		w->dentry = mnt->mnt_mountpoint;
		w->mnt = parent;
		w->hops = i + 1 - w->n;	/* the steps so far, less the names */
		return 0;
	}
	k = i - w->hops;		/* the names so far */
	if (k >= DEPTH_SHOWN)
		return 1;
	w->names[k] = (__u64)dentry->d_name.name;
	w->n = k + 1;
	w->dentry = dentry->d_parent;
	return 0;
}

/*
 * One step up from the root of the mount towards the root of its
 * filesystem, keeping the name: the path mountinfo's field 4 shows (as
 * dentry_path(); a filesystem with its own show_path(), such as btrfs
 * for a subvolume, shows it otherwise there).
 */
static long root_up(__u32 idx, void *data)
{
	struct path_walk *w = data;
	struct dentry *dentry = w->dentry;
	__u64 i = idx;

	barrier_var(i);
	if (dentry == dentry->d_parent) {
		w->done = true;
		return 1;
	}
	if (i >= ROOT_SHOWN)
		return 1;
	w->names[i & (MAX_DEPTH - 1)] = (__u64)dentry->d_name.name;
	w->n = i + 1;
	w->dentry = dentry->d_parent;
	return 0;
}

static long print_name(__u32 i, void *data)
{
	struct path_walk *w = data;
	struct seq_file *seq = w->seq;
	__u32 k = w->n - 1 - i;

	if (i >= w->n)
		return 1;
	BPF_SEQ_PRINTF(seq, "/");
	esc_seq_str(seq, (const void *)w->names[k & (MAX_DEPTH - 1)], NAME_MAX);
	return 0;
}

static void print_opt(struct seq_file *seq, int flags, int bit, const char *name)
{
	if (flags & bit)
		BPF_SEQ_PRINTF(seq, ",%s", name);
}

/* "KEY PATH\n": the names W kept, outermost first, "..." if cut. */
static void print_path(struct seq_file *seq, const char *key, struct path_walk *w)
{
	BPF_SEQ_PRINTF(seq, "%s %s", key, w->done ? "" : "...");
	if (w->n == 0)
		BPF_SEQ_PRINTF(seq, "/");
	bpf_loop(MAX_DEPTH, print_name, w, 0);
	BPF_SEQ_PRINTF(seq, "\n");
}

/* The superblock's options that mountinfo's last field starts with. */
static void print_sb_opts(struct seq_file *seq, struct super_block *sb)
{
	unsigned long flags = sb->s_flags;

	BPF_SEQ_PRINTF(seq, "fs.opts %s", flags & SB_RDONLY ? "ro" : "rw");
	print_opt(seq, flags, SB_SYNCHRONOUS, "sync");
	print_opt(seq, flags, SB_DIRSYNC, "dirsync");
	print_opt(seq, flags, SB_MANDLOCK, "mand");
	print_opt(seq, flags, SB_LAZYTIME, "lazytime");
	BPF_SEQ_PRINTF(seq, "\n");
}

SEC("iter/fs_mnt")
int fsiter_mount(struct bpf_iter__fs_mnt *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct mount *mnt = ctx->mnt;
	struct path_walk w = {};
	struct super_block *sb;
	struct mount *master;
	int flags;
	dev_t dev;

	if (!mnt)
		return 0;

	sb = mnt->mnt.mnt_sb;
	dev = sb->s_dev;
	flags = mnt->mnt.mnt_flags;	/* read once: remount may change it */
	BPF_SEQ_PRINTF(seq, "mnt.id %d\n", mnt->mnt_id);
	BPF_SEQ_PRINTF(seq, "mnt.parent %d\n", mnt->mnt_parent->mnt_id);
	BPF_SEQ_PRINTF(seq, "mnt.flags 0x%x\n", flags);

	BPF_SEQ_PRINTF(seq, "mnt.opts %s", flags & MNT_READONLY ? "ro" : "rw");
	print_opt(seq, flags, MNT_NOSUID, "nosuid");
	print_opt(seq, flags, MNT_NODEV, "nodev");
	print_opt(seq, flags, MNT_NOEXEC, "noexec");
	print_opt(seq, flags, MNT_NOATIME, "noatime");
	print_opt(seq, flags, MNT_NODIRATIME, "nodiratime");
	print_opt(seq, flags, MNT_RELATIME, "relatime");
	print_opt(seq, flags, MNT_NOSYMFOLLOW, "nosymfollow");
	BPF_SEQ_PRINTF(seq, "\n");

	BPF_SEQ_PRINTF(seq, "mnt.propagation");
	if (flags & MNT_SHARED)
		BPF_SEQ_PRINTF(seq, " shared:%d", mnt->mnt_group_id);
	master = mnt->mnt_master;
	if (master)
		BPF_SEQ_PRINTF(seq, " master:%d", master->mnt_group_id);
	if (flags & MNT_UNBINDABLE)
		BPF_SEQ_PRINTF(seq, " unbindable");
	BPF_SEQ_PRINTF(seq, "\n");

	BPF_SEQ_PRINTF(seq, "mnt.detached %d\n", mnt->mnt_parent == mnt && !mnt->mnt_ns);
	BPF_SEQ_PRINTF(seq, "mnt.source ");
	if (mnt->mnt_devname)
		esc_seq_str(seq, mnt->mnt_devname, SOURCE_MAX);
	else
		BPF_SEQ_PRINTF(seq, "none");
	BPF_SEQ_PRINTF(seq, "\n");

	/* The root of the mount within its filesystem (bind mounts). */
	w.seq = seq;
	w.dentry = mnt->mnt.mnt_root;
	bpf_loop(ROOT_SHOWN + 1, root_up, &w, 0);
	print_path(seq, "mnt.root", &w);

	BPF_SEQ_PRINTF(seq, "fs.type %s\n", sb->s_type->name);
	BPF_SEQ_PRINTF(seq, "fs.dev %u:%u\n", dev >> 20, dev & ((1U << 20) - 1));
	print_sb_opts(seq, sb);

	/* The mount point, from the root of the mount tree. */
	__builtin_memset(&w, 0, sizeof(w));
	w.seq = seq;
	w.dentry = mnt->mnt_mountpoint;
	if (mnt->mnt_parent == mnt) {
		BPF_SEQ_PRINTF(seq, "mnt.point /\n");
		return 0;
	}
	w.mnt = mnt->mnt_parent;
	bpf_loop(WALK_STEPS, walk_up, &w, 0);
	print_path(seq, "mnt.point", &w);
	return 0;
}
