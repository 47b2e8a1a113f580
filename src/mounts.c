// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <libmount/libmount.h>
#include "diag.h"
#include "fault.h"
#include "mounts.h"

static bool under(const char *dir, const char *top)
{
	size_t n = strlen(top);

	return !strncmp(dir, top, n) && (dir[n] == '/' || dir[n] == '\0');
}

/* Is TARGET a bpffs mount point in this namespace? 1, 0 or -errno. */
static int is_bpffs_mounted(const char *target)
{
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	int ret;

	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	if (!tb)
		return -errno ?: -EINVAL;
	fs = mnt_table_find_target(tb, target, MNT_ITER_BACKWARD);
	ret = fs && !strcmp(mnt_fs_get_fstype(fs) ?: "", "bpf");
	mnt_unref_table(tb);
	return ret;
}

static int mount_bpffs(const char *target)
{
	struct libmnt_context *cxt;
	char buf[256] = "";
	int ret;

	cxt = mnt_new_context();
	if (!cxt)
		return -ENOMEM;
	ret = mnt_context_set_source(cxt, "bpf");
	if (!ret)
		ret = mnt_context_set_fstype(cxt, "bpf");
	if (!ret)
		ret = mnt_context_set_target(cxt, target);
	if (!ret)
		ret = mnt_context_set_options(cxt, "nosuid,nodev,noexec,mode=0700");
	if (!ret)
		ret = fault_at("mount");
	if (!ret) {
		ret = mnt_context_mount(cxt);
		if (ret)
			mnt_context_get_excode(cxt, ret, buf, sizeof(buf));
	}
	if (ret) {
		err("cannot mount bpffs on %s: %s", target,
		    *buf ? buf : strerror(ret < 0 ? -ret : ret));
		ret = ret < 0 ? ret : -EIO;
	}
	mnt_free_context(cxt);
	return ret;
}

int mounts_ensure_bpffs(const char *dir, bool dry_run, bool *mounted)
{
	char probe[PATH_MAX];
	struct statfs sf;
	int ret;

	*mounted = false;
	if (under(dir, BPFFS_MOUNT_POINT)) {
		ret = is_bpffs_mounted(BPFFS_MOUNT_POINT);
		if (ret < 0) {
			err("cannot read the mount table: %s", strerror(-ret));
			return ret;
		}
		if (!ret) {
			if (dry_run) {
				info("would mount bpffs on %s", BPFFS_MOUNT_POINT);
				return 1;
			}
			ret = mount_bpffs(BPFFS_MOUNT_POINT);
			if (ret)
				return ret;	/* nothing mounted */
			*mounted = true;
			info("mounted bpffs on %s (mode 0700, as systemd does)",
			     BPFFS_MOUNT_POINT);
		}
	}
	/* The deepest part of DIR that exists must be on bpffs. */
	snprintf(probe, sizeof(probe), "%s", dir);
	while (statfs(probe, &sf) < 0) {
		char *slash = strrchr(probe, '/');

		int e = errno;

		if (e != ENOENT || !slash || slash == probe) {
			err("%s: %s", probe, strerror(e));
			return -e;
		}
		*slash = '\0';
	}
	if ((unsigned long)sf.f_type != BPF_FS_MAGIC) {
		err("pin-dir %s: %s is not on bpffs", dir, probe);
		return -EINVAL;
	}
	return 0;
}

static struct libmnt_fs *find_id(struct libmnt_table *tb, int id)
{
	struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs = NULL;

	while (itr && !mnt_table_next_fs(tb, itr, &fs)) {
		if (mnt_fs_get_id(fs) == id)
			break;
		fs = NULL;
	}
	mnt_free_iter(itr);
	return fs;
}

/*
 * apply asks for every entry's mount: parse mountinfo once and keep it.
 * A mount id it does not know (a mount made since) reloads it; ids are
 * not reused while the mount is there, so a known one is still right.
 */
static struct libmnt_table *devno_cache;

void mounts_forget(void)
{
	mnt_unref_table(devno_cache);
	devno_cache = NULL;
}

int mounts_devno_of(int id, dev_t *dev)
{
	struct libmnt_fs *fs = NULL;

	for (int pass = 0; pass < 2 && !fs; pass++) {
		if (!devno_cache || pass) {
			mounts_forget();
			devno_cache = mnt_new_table_from_file("/proc/self/mountinfo");
			if (!devno_cache)
				return -errno ?: -EINVAL;
		}
		fs = find_id(devno_cache, id);
	}
	if (!fs)
		return -ENOENT;
	*dev = mnt_fs_get_devno(fs);
	return 0;
}

char *mounts_target_of(int id)
{
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	char *target = NULL;

	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	if (!tb)
		return NULL;
	fs = find_id(tb, id);
	if (fs && mnt_fs_get_target(fs))
		target = strdup(mnt_fs_get_target(fs));
	mnt_unref_table(tb);
	return target;
}
