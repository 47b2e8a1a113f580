/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The UAPI additions of kernel/patches/, for user space built against
 * distribution headers, which lack them. Layouts match the patched
 * include/uapi/linux/bpf.h.
 */
#ifndef FSITER_UAPI_H
#define FSITER_UAPI_H

#include <linux/types.h>

enum fsiter_fs_iter_type {
	FSITER_FS_ITER_INODE = 0,	/* BPF_FS_ITER_INODE */
	FSITER_FS_ITER_MNT = 1,		/* BPF_FS_ITER_MNT */
	FSITER_FS_ITER_SB = 2,		/* BPF_FS_ITER_SB */
};

/* The program section (libbpf's SEC()) of each type's iterator target. */
#define FSITER_FS_ITER_SECTIONS {			\
	[FSITER_FS_ITER_INODE] = "iter/fs_inode",	\
	[FSITER_FS_ITER_MNT] = "iter/fs_mnt",		\
	[FSITER_FS_ITER_SB] = "iter/fs_sb",		\
}

/*
 * union bpf_iter_link_info.fs.flags, and bpf_link_info.iter.fs.flags.
 *
 * BPF_F_FS_ITER_EXPOSE_CACHE: the page cache to every reader.
 *
 * BPF_F_FS_ITER_WITHHELD_SUMS, BPF_FS_ITER_SB only (-EINVAL on the
 * others): the final run of the program (inode NULL) gets in ctx->pages
 * the sums over the inodes withheld from the reader. Without it (and
 * without EXPOSE_CACHE) ctx->pages is NULL there: the sums are page-cache
 * state of the files the reader may not observe, exactly one file's when
 * one is withheld. Attaching with it needs CAP_FOWNER and
 * CAP_DAC_READ_SEARCH, as EXPOSE_CACHE on fs_sb does (-EPERM). With
 * EXPOSE_CACHE nothing is withheld: ctx->pages points at zero sums.
 */
#define FSITER_F_EXPOSE_CACHE	(1U << 0)
#define FSITER_F_WITHHELD_SUMS	(1U << 1)

/* union bpf_iter_link_info, .fs member */
struct fsiter_iter_link_info {
	struct {
		__u32 type;	/* enum fsiter_fs_iter_type */
		__u32 fd;
		__u32 flags;	/* FSITER_F_* */
	} fs;
};

/*
 * struct bpf_link_info as the patched kernel fills it for an fs iterator
 * link, up to .iter.fs, with room to spare: the kernel copies back at most
 * its own size and wants any excess zeroed.
 */
struct fsiter_link_info {
	__u32 type;
	__u32 id;
	__u32 prog_id;
	__u32 :32;
	struct {
		__aligned_u64 target_name;
		__u32 target_name_len;
		__u32 :32;
		struct {
			__u32 type;	/* enum fsiter_fs_iter_type */
			__u32 mnt_id;
			__u64 ino;	/* FSITER_FS_ITER_INODE */
			__u32 dev;	/* INODE and SB: the superblock's, new_encode_dev() */
			__u32 gone;	/* 1 once the target is gone */
			__u32 flags;	/* FSITER_F_*, as attached */
			__u32 magic;	/* FSITER_FS_ITER_SB: s_magic; 0 on older kernels */
		} fs;
	} iter;
	__u8 spare[64];
};

#endif /* FSITER_UAPI_H */
