// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/openat2.h>
#include "mounts.h"
#include "targets.h"

int target_open(const char *path, struct target *t)
{
	struct open_how how = {
		/* No O_NOFOLLOW: with O_PATH it would open a trailing
		 * symlink itself; without, RESOLVE_NO_SYMLINKS refuses it.
		 */
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct statx stx;
	int fd, ret;
	char fdinfo[64];
	FILE *f;

	t->fd = -1;
	fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd < 0)
		return -errno;
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_TYPE | STATX_MODE | STATX_INO | STATX_MNT_ID, &stx) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (S_ISLNK(stx.stx_mode)) {	/* cannot happen; never pin a link */
		close(fd);
		return -ELOOP;
	}
	t->fd = fd;
	t->mode = stx.stx_mode;
	t->ino = 0;
	t->mnt_id = -1;
	/* fdinfo has the mount id and i_ino of the open file (5.14+). */
	snprintf(fdinfo, sizeof(fdinfo), "/proc/self/fdinfo/%d", fd);
	f = fopen(fdinfo, "re");
	if (f) {
		char line[128];

		while (fgets(line, sizeof(line), f)) {
			sscanf(line, "mnt_id: %d", &t->mnt_id);
			sscanf(line, "ino: %lu", &t->ino);
		}
		fclose(f);
	}
	if (t->mnt_id < 0 || !t->ino || mounts_devno_of(t->mnt_id, &t->dev)) {
		close(fd);
		t->fd = -1;
		return -EIO;
	}
	return 0;
}

void target_close(struct target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

const char *target_strerror(int err)
{
	switch (err) {
	case -ELOOP:
		return "a component is a symbolic link; write the path it points to";
	case -ENOENT:
		return "no such file or directory";
	case -ENOTDIR:
		return "a component is not a directory";
	default:
		return strerror(-err);
	}
}
