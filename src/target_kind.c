// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "fsiter_uapi.h"
#include "mounts.h"
#include "pin_info.h"
#include "pin_json.h"
#include "target_kind.h"
#include "targets.h"

static bool inode_same(const struct target *t, const struct pin_info *pi)
{
	return pi->ino == t->ino && pi->dev == (__u32)t->dev;
}

static void inode_to_json(json_object *o, const struct pin_info *pi)
{
	char dev[32];

	/* new_encode_dev() is glibc's st_dev encoding */
	snprintf(dev, sizeof(dev), "%u:%u", major(pi->dev), minor(pi->dev));
	json_object_object_add(o, "dev", json_object_new_string(dev));
	json_object_object_add(o, "ino", json_object_new_int64(pi->ino));
}

static void inode_describe_pin(char *buf, size_t size, const struct pin_info *pi)
{
	snprintf(buf, size, "inode %llu of device %u:%u", (unsigned long long)pi->ino,
		 major(pi->dev), minor(pi->dev));
}

static void inode_describe_target(char *buf, size_t size, const struct target *t)
{
	snprintf(buf, size, "is inode %lu of %u:%u", (unsigned long)t->ino,
		 major(t->dev), minor(t->dev));
}

static void inode_brief(char *buf, size_t size, json_object *t)
{
	snprintf(buf, size, "%s ino %s", pin_json_get(t, "dev"), pin_json_get(t, "ino"));
}

static bool mnt_same(const struct target *t, const struct pin_info *pi)
{
	return (int)pi->mnt_id == t->mnt_id;
}

static void mnt_to_json(json_object *o, const struct pin_info *pi)
{
	char *mp = pi->gone ? NULL : mounts_target_of(pi->mnt_id);

	json_object_object_add(o, "mount_point", mp ? json_object_new_string(mp) : NULL);
	free(mp);
}

static void mnt_describe_pin(char *buf, size_t size, const struct pin_info *pi)
{
	snprintf(buf, size, "mount %u", pi->mnt_id);
}

static void mnt_describe_target(char *buf, size_t size, const struct target *t)
{
	snprintf(buf, size, "is on mount %d", t->mnt_id);
}

static void mnt_brief(char *buf, size_t size, json_object *t)
{
	snprintf(buf, size, "mnt %s %s", pin_json_get(t, "mnt_id"),
		 pin_json_get(t, "mount_point"));
}

const struct target_kind target_kinds[TARGET_KINDS] = {
	[TARGET_INODE] = { "inode", FSITER_FS_ITER_INODE, FEAT_FS_INODE,
			   inode_same, inode_to_json, inode_describe_pin,
			   inode_describe_target, inode_brief },
	[TARGET_MNT] = { "mount", FSITER_FS_ITER_MNT, FEAT_FS_MNT,
			 mnt_same, mnt_to_json, mnt_describe_pin,
			 mnt_describe_target, mnt_brief },
};

const struct target_kind *target_kind_of_type(__u32 uapi_type)
{
	for (int i = 0; i < TARGET_KINDS; i++)
		if (target_kinds[i].uapi_type == uapi_type)
			return &target_kinds[i];
	return &target_kinds[TARGET_INODE];
}

const struct target_kind *target_kind_named(const char *name)
{
	for (int i = 0; i < TARGET_KINDS; i++)
		if (!strcmp(target_kinds[i].name, name))
			return &target_kinds[i];
	return &target_kinds[TARGET_INODE];
}
