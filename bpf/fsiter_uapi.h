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
};

/* union bpf_iter_link_info, .fs member */
struct fsiter_iter_link_info {
	struct {
		__u32 type;	/* enum fsiter_fs_iter_type */
		__u32 fd;
	} fs;
};

#endif /* FSITER_UAPI_H */
