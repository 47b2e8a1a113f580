// SPDX-License-Identifier: GPL-2.0
/* Revoke pins before they go; see revoke.h. */
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <acl/libacl.h>
#include "diag.h"
#include "revoke.h"

static revoke_neuter_fn neuter_hook;
static unsigned int unneutered;
static void *neutered;	/* the inodes neuter_once() was called for */

struct inode_key {
	dev_t dev;
	ino_t ino;
};

static int cmp_inode(const void *a, const void *b)
{
	const struct inode_key *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

void revoke_set_neuter(revoke_neuter_fn neuter)
{
	neuter_hook = neuter;
}

unsigned int revoke_unneutered(void)
{
	return unneutered;
}

unsigned int revoke_run_begin(void)
{
	tdestroy(neutered, free);
	neutered = NULL;
	return unneutered;
}

int revoke_check_neutered(unsigned int before, const char *dir)
{
	unsigned int n = unneutered - before;

	if (!n)
		return 0;
	err("%s: %u revoked link%s could not be neutered: an fd on %s, taken while its pin was granted, still walks the view",
	    ESC(dir), n, n == 1 ? "" : "s", n == 1 ? "it" : "one");
	return -EIO;
}

DIR *opendir_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir;
	int e;

	if (fd < 0)
		return NULL;
	dir = fdopendir(fd);
	if (!dir) {
		e = errno;
		close(fd);
		errno = e;
	}
	return dir;
}

/*
 * Owner root:root, MODE, and an ACL that is only MODE, on the inode of
 * O_PATH fd FD. The owner goes first: the owner of an inode may chmod it
 * and set its ACL, also through an fd kept open after the name is gone,
 * so a non-root owner could undo anything done before the chown.
 */
static int set_bare_mode(int fd, mode_t mode)
{
	char proc[64];
	acl_t acl = NULL;
	int ret = 0;

	if (fchownat(fd, "", 0, 0, AT_EMPTY_PATH))
		return -errno;
	/* An O_PATH fd takes no fchmod(), nor fsetxattr(): its /proc link does. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (chmod(proc, mode))
		return -errno;
	acl = acl_from_mode(mode);
	if (!acl)
		return -errno;
	if (acl_set_file(proc, ACL_TYPE_ACCESS, acl) && errno != EOPNOTSUPP)
		ret = -errno;
	acl_free(acl);
	return ret;
}

/*
 * Neuter the link of the pin ST under FD, once per run: apply revokes the
 * old pins right after the exchange and again before it unlinks each
 * one, and a failure is said once (by the hook), and counted.
 */
static void neuter_once(int fd, const char *name, const struct stat *st)
{
	struct inode_key *key, **found = NULL;

	if (!neuter_hook)
		return;
	key = malloc(sizeof(*key));
	if (key) {
		*key = (struct inode_key){ st->st_dev, st->st_ino };
		found = tsearch(key, &neutered, cmp_inode);
		if (found && *found != key) {
			free(key);
			return;		/* done in this run */
		}
		if (!found)
			free(key);	/* not remembered: neutered again if seen again */
	}
	if (neuter_hook(fd, name))
		unneutered++;
}

/* Revoke NAME of DIRFD unless KEEP_FD's NAME is the same inode. */
static int revoke_unless_kept(int dirfd, const char *name, int keep_fd)
{
	struct stat st, kst;
	int fd = -1, ret = 0;

	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	if (keep_fd >= 0) {
		if (!fstatat(keep_fd, name, &kst, AT_SYMLINK_NOFOLLOW)) {
			if (kst.st_ino == st.st_ino && kst.st_dev == st.st_dev)
				goto out;	/* it stays */
		} else if (errno != ENOENT) {
			ret = -errno;	/* it may be the live pin: left */
			goto out;
		}
	}
	if (S_ISREG(st.st_mode)) {
		/* The link first: nothing done to the pin reaches an fd on it. */
		neuter_once(fd, name, &st);
		ret = set_bare_mode(fd, 0);
	} else if (S_ISDIR(st.st_mode)) {
		ret = set_bare_mode(fd, 0700);
	}
out:
	close(fd);
	return ret;
}

int pin_revoke(int dirfd, const char *name)
{
	return revoke_unless_kept(dirfd, name, -1);
}

static int remove_at(int parent_fd, const char *name, int keep_fd,
		     unsigned int depth);

/* Revoke what is in FD and is not kept; and unlink it unless ONLY_REVOKE. */
static int empty_at(int fd, int keep_fd, unsigned int depth, bool only_revoke)
{
	struct dirent *de;
	DIR *dir;
	int ret = 0, r;

	dir = opendir_at(fd, ".");
	if (!dir)
		return -errno;
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno && !ret)
				ret = -errno;
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = revoke_unless_kept(dirfd(dir), de->d_name, keep_fd);
		if (!r && !only_revoke && unlinkat(dirfd(dir), de->d_name, 0)) {
			r = errno == ENOENT ? 0 : -errno;
			if (r == -EISDIR)
				r = depth ? remove_at(dirfd(dir), de->d_name, keep_fd,
						 depth - 1) : -ELOOP;
		}
		if (r && !ret)
			ret = r;
	}
	closedir(dir);
	return ret;
}

static int remove_at(int parent_fd, const char *name, int keep_fd,
		     unsigned int depth)
{
	int fd, ret;

	fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	ret = empty_at(fd, keep_fd, depth, false);
	close(fd);
	if (!ret && unlinkat(parent_fd, name, AT_REMOVEDIR) && errno != ENOENT)
		ret = -errno;
	return ret;
}

int tree_revoke(int fd, int keep_fd)
{
	return empty_at(fd, keep_fd, 0, true);
}

int tree_empty(int fd, int keep_fd)
{
	return empty_at(fd, keep_fd, TREE_MAX_DEPTH, false);
}

int tree_remove(int parent_fd, const char *name, int keep_fd)
{
	return remove_at(parent_fd, name, keep_fd, TREE_MAX_DEPTH);
}
