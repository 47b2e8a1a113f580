/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The views a policy can name, as plain data (views.def): the parser
 * checks names against it without knowing anything of BPF; views.c loads
 * the programs it names.
 */
#ifndef FSITER_VIEW_TABLE_H
#define FSITER_VIEW_TABLE_H

#include <stdbool.h>

/* What a view attaches to; target_kind.c says how to handle each. */
enum view_target {
	TARGET_INODE,	/* iter/fs_inode: one file */
	TARGET_MNT,	/* iter/fs_mnt: the mount a path is on */
	TARGET_SB,	/* iter/fs_sb: the cached files of a path's filesystem */
	TARGET_KINDS,
};

/* Kernel features, as kernel_support.c finds them in BTF, in the order
 * its messages list them.
 */
enum kernel_feature {
	FEAT_FS_INODE	= 1 << 0,	/* the iter/fs_inode target */
	FEAT_FOLIOS	= 1 << 1,	/* bpf_filemap_get_folios() */
	FEAT_FS_MNT	= 1 << 2,	/* the iter/fs_mnt target */
	FEAT_CACHE_RULE	= 1 << 3,	/* the kernel's page-cache rule, and its flag */
	FEAT_FS_SB	= 1 << 4,	/* the iter/fs_sb target */
};

#define VIEW(id, ...) VIEW_##id,
enum view_id {
#include "views.def"
	VIEW_COUNT,
};
#undef VIEW

/* What a view reveals beyond what stat(2) on the path would. */
#define VIEW_SHOWS_KADDR	0x1	/* kernel addresses: root only by default */
/* Page-cache state: the kernel shows it only to readers who own or may
 * write the file, unless the entry has expose-cache, which attaches the
 * link with FSITER_F_EXPOSE_CACHE.
 */
#define VIEW_SHOWS_CACHE	0x2
/* Takes the option top=N: a __u32 at the start of its program's
 * read-only data section VIEW_PARAM_SECTION, which is also the name of
 * the map libbpf makes of it in the kernel.
 */
#define VIEW_TAKES_TOP		0x4
#define VIEW_PARAM_SECTION	".rodata.param"

struct view_desc {
	enum view_id id;
	const char *name;
	enum view_target target;
	unsigned int flags;
	unsigned int features;	/* enum kernel_feature, beyond the target's */
	const char *prog;		/* the iterator program's name */
	const char *summary;
};

extern const struct view_desc view_table[VIEW_COUNT];

const struct view_desc *view_lookup(const char *name);
/* "inode, cache, inode-raw, mount", for messages. */
const char *view_names(void);
/* "inode, cache": the views that show page-cache state (expose-cache). */
const char *view_names_showing_cache(void);
/* "cache-top": the views that take top=N. */
const char *view_names_taking_top(void);
/* "cache-summary, cache-top": the views of a whole filesystem (TARGET_SB),
 * whose totals the option expose-totals makes whole.
 */
const char *view_names_whole_fs(void);
/* The view whose program is called PROG_NAME (as truncated in prog info). */
const struct view_desc *view_by_prog_name(const char *prog_name);

#endif
