/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The views a policy can name, as plain data: the parser checks names
 * against it without knowing anything of BPF; views.c adds the programs.
 */
#ifndef FSITER_VIEW_TABLE_H
#define FSITER_VIEW_TABLE_H

enum view_target {
	VIEW_TARGET_INODE,	/* iter/fs_inode: one file */
	VIEW_TARGET_MNT,	/* iter/fs_mnt: the mount a path is on */
};

enum view_id {
	VIEW_INODE,
	VIEW_CACHE,
	VIEW_INODE_RAW,
	VIEW_MOUNT,
	VIEW_COUNT,
};

/* What a view reveals beyond what stat(2) on the path would. */
#define VIEW_SHOWS_KADDR	0x1	/* kernel addresses: root only by default */
/* Page-cache state: shown only to readers who own or may write the file,
 * unless the entry has expose-cache (the view's "all" program).
 */
#define VIEW_SHOWS_CACHE	0x2

struct view_desc {
	enum view_id id;
	const char *name;
	enum view_target target;
	unsigned int flags;
	const char *summary;
};

extern const struct view_desc view_table[VIEW_COUNT];

const struct view_desc *view_lookup(const char *name);
/* "inode, cache, inode-raw, mount", for messages. */
const char *view_names(void);

#endif
