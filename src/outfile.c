// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <acl/libacl.h>
#include "diag.h"
#include "outfile.h"

int outfile_begin(struct outfile *of, const char *path)
{
	char dir[PATH_MAX], base[PATH_MAX];
	int ret;

	*of = (struct outfile){ path, (gid_t)-1, "", -1, -1 };
	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(base, sizeof(base), "%s", path);
	if (snprintf(of->tmp, sizeof(of->tmp), "%s/.%s.XXXXXX", dirname(dir),
		     basename(base)) >= (int)sizeof(of->tmp)) {
		ret = -ENAMETOOLONG;
		goto err;
	}
	of->fd = mkostemp(of->tmp, O_CLOEXEC);
	if (of->fd < 0) {
		ret = -errno;
		goto err;
	}
	fflush(stdout);
	of->saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (of->saved < 0 || dup2(of->fd, STDOUT_FILENO) < 0) {
		ret = -errno;
		unlink(of->tmp);
		goto err;
	}
	return 0;
err:
	err("%s: %s", path, strerror(-ret));
	if (of->fd >= 0)
		close(of->fd);
	if (of->saved >= 0)
		close(of->saved);
	of->fd = of->saved = -1;
	return ret;
}

/* Make the rename itself durable. */
static int sync_dir(const char *path)
{
	char dir[PATH_MAX];
	int fd, ret = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * Mode 0640, and g:READERS:r if READERS is a group: by an ACL entry, or,
 * where the filesystem has no ACLs, as the file's group (which takes
 * CAP_CHOWN); if neither can be, the file is still written, 0640, and a
 * warning says who cannot read it. 0 or -errno.
 */
static int set_mode(int fd, gid_t readers, const char *path)
{
	char text[64];
	acl_t acl;
	int ret = 0;

	if (fchmod(fd, 0640))
		return -errno;
	if (readers == (gid_t)-1)
		return 0;
	snprintf(text, sizeof(text), "u::rw-,g::r--,g:%u:r--,m::r--,o::---", (unsigned int)readers);
	acl = acl_from_text(text);
	if (!acl || acl_set_fd(fd, acl))
		ret = -errno;
	if (acl)
		acl_free(acl);
	if (ret == -EOPNOTSUPP && !fchown(fd, -1, readers))
		return 0;
	if (ret == -EOPNOTSUPP || ret == -EPERM) {
		warn("%s: group %u cannot be let read it (no ACLs on this filesystem, and the file's group cannot be changed: %s); it is written, mode 0640, root's",
		     ESC(path), (unsigned int)readers, strerror(errno));
		return 0;
	}
	return ret;
}

int outfile_end(struct outfile *of, bool commit)
{
	int ret = 0;

	if (fflush(stdout) && commit)
		ret = -errno;
	if (dup2(of->saved, STDOUT_FILENO) < 0 && !ret)
		ret = -errno;
	if (commit && !ret)
		ret = set_mode(of->fd, of->readers, of->path);
	if (commit && !ret && fsync(of->fd))
		ret = -errno;
	if (commit && !ret && rename(of->tmp, of->path))
		ret = -errno;
	if (commit && !ret)
		ret = sync_dir(of->path);
	else
		unlink(of->tmp);
	if (ret)
		err("%s: %s", of->path, strerror(-ret));
	close(of->fd);
	close(of->saved);
	of->fd = of->saved = -1;
	return ret;
}
