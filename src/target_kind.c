// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <linux/magic.h>
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

/*
 * Filesystem types by s_magic, for people: link info has only the magic
 * (fdinfo has the name, sb_type). ext2, ext3 and ext4 share one magic.
 */
static const struct {
	__u32 magic;
	const char *name;
} fs_magics[] = {
	{ TMPFS_MAGIC, "tmpfs" },
	{ EXT4_SUPER_MAGIC, "ext4" },
	{ XFS_SUPER_MAGIC, "xfs" },
	{ BTRFS_SUPER_MAGIC, "btrfs" },
	{ F2FS_SUPER_MAGIC, "f2fs" },
	{ MSDOS_SUPER_MAGIC, "vfat" },
	{ EXFAT_SUPER_MAGIC, "exfat" },
	{ NFS_SUPER_MAGIC, "nfs" },
	{ SMB2_SUPER_MAGIC, "cifs" },
	{ CEPH_SUPER_MAGIC, "ceph" },
	{ V9FS_MAGIC, "9p" },
	{ FUSE_SUPER_MAGIC, "fuse" },
	{ OVERLAYFS_SUPER_MAGIC, "overlay" },
	{ SQUASHFS_MAGIC, "squashfs" },
	{ EROFS_SUPER_MAGIC_V1, "erofs" },
	{ ISOFS_SUPER_MAGIC, "iso9660" },
	{ RAMFS_MAGIC, "ramfs" },
	{ HUGETLBFS_MAGIC, "hugetlbfs" },
	{ PROC_SUPER_MAGIC, "proc" },
	{ SYSFS_MAGIC, "sysfs" },
	{ BPF_FS_MAGIC, "bpf" },
	{ CGROUP2_SUPER_MAGIC, "cgroup2" },
	{ DEBUGFS_MAGIC, "debugfs" },
	{ TRACEFS_MAGIC, "tracefs" },
};

/* "ext4", or "0x1234abcd" for a magic the table does not know; "-" for
 * none (a kernel whose link info has no magic).
 */
static void fs_name(char *buf, size_t size, __u32 magic)
{
	for (size_t i = 0; i < sizeof(fs_magics) / sizeof(fs_magics[0]); i++)
		if (fs_magics[i].magic == magic) {
			snprintf(buf, size, "%s", fs_magics[i].name);
			return;
		}
	if (magic)
		snprintf(buf, size, "%#x", magic);
	else
		snprintf(buf, size, "-");
}

/* The superblock, and the mount the fd was opened through: the view's
 * paths are relative to that mount's root.
 */
static bool sb_same(const struct target *t, const struct pin_info *pi)
{
	return pi->dev == (__u32)t->dev && (int)pi->mnt_id == t->mnt_id;
}

static void sb_to_json(json_object *o, const struct pin_info *pi)
{
	char dev[32], magic[16], name[16];

	snprintf(dev, sizeof(dev), "%u:%u", major(pi->dev), minor(pi->dev));
	json_object_object_add(o, "dev", json_object_new_string(dev));
	snprintf(magic, sizeof(magic), "%#x", pi->magic);
	json_object_object_add(o, "magic", pi->magic ? json_object_new_string(magic) : NULL);
	fs_name(name, sizeof(name), pi->magic);
	json_object_object_add(o, "fs_type", pi->magic ? json_object_new_string(name) : NULL);
}

static void sb_describe_pin(char *buf, size_t size, const struct pin_info *pi)
{
	char name[16];

	fs_name(name, sizeof(name), pi->magic);
	snprintf(buf, size, "filesystem %u:%u (%s) through mount %u", major(pi->dev),
		 minor(pi->dev), name, pi->mnt_id);
}

static void sb_describe_target(char *buf, size_t size, const struct target *t)
{
	snprintf(buf, size, "is on filesystem %u:%u through mount %d", major(t->dev),
		 minor(t->dev), t->mnt_id);
}

static void sb_brief(char *buf, size_t size, json_object *t)
{
	snprintf(buf, size, "sb %s %s", pin_json_get(t, "dev"), pin_json_get(t, "fs_type"));
}

const struct target_kind target_kinds[TARGET_KINDS] = {
	[TARGET_INODE] = { "inode", FSITER_FS_ITER_INODE, FEAT_FS_INODE,
			   inode_same, inode_to_json, inode_describe_pin,
			   inode_describe_target, inode_brief, "revoked_inode" },
	[TARGET_MNT] = { "mount", FSITER_FS_ITER_MNT, FEAT_FS_MNT,
			 mnt_same, mnt_to_json, mnt_describe_pin,
			 mnt_describe_target, mnt_brief, "revoked_mnt" },
	[TARGET_SB] = { "sb", FSITER_FS_ITER_SB, FEAT_FS_SB,
			sb_same, sb_to_json, sb_describe_pin,
			sb_describe_target, sb_brief, "revoked_sb" },
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

const struct target_kind *target_kind_of_iter(const char *target_name)
{
	static const char *const sections[] = FSITER_FS_ITER_SECTIONS;
	const char *prefix = "iter/";

	for (int i = 0; i < TARGET_KINDS; i++) {
		const char *s = sections[target_kinds[i].uapi_type];

		if (!strncmp(s, prefix, strlen(prefix)) &&
		    !strcmp(s + strlen(prefix), target_name))
			return &target_kinds[i];
	}
	return NULL;
}

const struct target_kind *target_kind_of_stub(const char *prog_name)
{
	for (int i = 0; i < TARGET_KINDS; i++)
		if (!strncmp(target_kinds[i].stub, prog_name, BPF_OBJ_NAME_LEN - 1))
			return &target_kinds[i];
	return NULL;
}
