// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <acl/libacl.h>
#include "diag.h"
#include "dir_trust.h"
#include "outfile.h"

/* A new file ".BASE.XXXXXX" in directory DFD, never through a link. */
static int create_tmp(struct outfile *of)
{
	unsigned int r;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			return -errno;
		snprintf(of->tmp, sizeof(of->tmp), ".%.*s.%06x", NAME_MAX - 9,
			 of->base, r & 0xffffff);
		of->fd = openat(of->dfd, of->tmp,
				O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (of->fd >= 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int outfile_begin(struct outfile *of, const char *path)
{
	char dir[PATH_MAX], base[PATH_MAX];
	struct dir_trust t;
	struct stat st;
	int ret;

	*of = (struct outfile){ path, (gid_t)-1, "", "", -1, -1, -1 };
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		ret = -ENAMETOOLONG;
		goto err;
	}
	snprintf(base, sizeof(base), "%s", path);
	if (snprintf(of->base, sizeof(of->base), "%s", basename(base)) >=
	    (int)sizeof(of->base)) {
		ret = -ENAMETOOLONG;
		goto err;
	}
	/*
	 * Root writes here, often into a directory that another account
	 * (node_exporter's) may write: every step works on the directory's
	 * fd, opened with no symbolic link on the way, so that nothing is
	 * created or replaced anywhere else.
	 */
	of->dfd = dir_open_trusted(dirname(dir), &st, &t);
	if (of->dfd == -ELOOP || of->dfd == -ENOTDIR || of->dfd == -EINVAL) {
		err("%s: its directory must be an absolute path with no symbolic link on the way (%s)",
		    path, strerror(-of->dfd));
		ret = of->dfd;
		of->dfd = -1;
		return ret;
	}
	if (of->dfd < 0) {
		ret = of->dfd;
		goto err;
	}
	ret = create_tmp(of);
	if (ret)
		goto err;
	fflush(stdout);
	of->saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (of->saved < 0 || dup2(of->fd, STDOUT_FILENO) < 0) {
		ret = -errno;
		unlinkat(of->dfd, of->tmp, 0);
		goto err;
	}
	return 0;
err:
	err("%s: %s", path, strerror(-ret));
	if (of->fd >= 0)
		close(of->fd);
	if (of->saved >= 0)
		close(of->saved);
	if (of->dfd >= 0)
		close(of->dfd);
	of->fd = of->saved = of->dfd = -1;
	return ret;
}

/* Make the rename itself durable: fsync the directory (not its O_PATH fd). */
static int sync_dir(int dfd)
{
	int fd, ret = 0;

	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
	/* A link at BASE is replaced, never followed. */
	if (commit && !ret && renameat(of->dfd, of->tmp, of->dfd, of->base))
		ret = -errno;
	if (commit && !ret)
		ret = sync_dir(of->dfd);
	else
		unlinkat(of->dfd, of->tmp, 0);
	if (ret)
		err("%s: %s", of->path, strerror(-ret));
	close(of->fd);
	close(of->saved);
	close(of->dfd);
	of->fd = of->saved = of->dfd = -1;
	return ret;
}
