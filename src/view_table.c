// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "view_table.h"

const struct view_desc view_table[VIEW_COUNT] = {
	{ VIEW_INODE, "inode", VIEW_TARGET_INODE, VIEW_SHOWS_CACHE,
	  "superblock, inode, page-cache counts and every cached folio" },
	{ VIEW_CACHE, "cache", VIEW_TARGET_INODE, VIEW_SHOWS_CACHE,
	  "one line of page-cache counts" },
	{ VIEW_INODE_RAW, "inode-raw", VIEW_TARGET_INODE, VIEW_SHOWS_KADDR,
	  "BTF dump of the inode and its super_block" },
	{ VIEW_MOUNT, "mount", VIEW_TARGET_MNT, 0,
	  "the mount a path is on, as in mountinfo" },
};

const struct view_desc *view_lookup(const char *name)
{
	for (int i = 0; i < VIEW_COUNT; i++)
		if (!strcmp(view_table[i].name, name))
			return &view_table[i];
	return NULL;
}

const char *view_names(void)
{
	return "inode, cache, inode-raw, mount";
}
