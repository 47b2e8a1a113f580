// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <acl/libacl.h>
#include <linux/magic.h>
#include "diag.h"
#include "fault.h"
#include "lock.h"
#include "pindir.h"
#include "policy.h"
#include "revoke.h"

#define WORK_SUFFIX	POLICY_WORK_SUFFIX	/* bpffs refuses '.' */
#define NEXT_NAME	"next"		/* the next PIN_DIR, in the work dir */

int path_join(char out[PATH_MAX], const char *dir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);

	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

void pindir_init(struct pin_dir *d)
{
	memset(d, 0, sizeof(*d));
	d->parent_fd = -1;
	d->work_fd = -1;
	d->cur_fd = -1;
	d->new_fd = -1;
	d->mode = PINDIR_MODE;
}

/*
 * Make each missing directory of PATH, mode 0755 whatever the umask, one
 * component at a time from the root: each step opens the directory it
 * made or found with O_NOFOLLOW and works on that fd, so a component
 * swapped for a symbolic link (bpffs has them) between two steps fails
 * the step instead of sending a chmod elsewhere. Existing directories are
 * left as they are. Sets *MADE if it made one.
 */
static int mkdir_parents(const char *path, bool *made)
{
	char buf[PATH_MAX];
	int dfd = -1, next = -1, ret = 0;
	char *name, *save = NULL;

	if (path[0] != '/' || strlen(path) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", path);
	dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	for (name = strtok_r(buf, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		bool new = false;

		if (mkdirat(dfd, name, 0755)) {
			if (errno != EEXIST) {
				ret = -errno;
				goto out;
			}
		} else {
			new = true;
		}
		next = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			ret = -errno;
			goto out;
		}
		/* The umask took bits off; the fd is the directory made. */
		if (new) {
			*made = true;
			if (fchmod(next, 0755)) {
				ret = -errno;
				goto out;
			}
		}
		close(dfd);
		dfd = next;
		next = -1;
	}
out:
	if (next >= 0)
		close(next);
	close(dfd);
	return ret;
}

/* Directory FD: owner root, MODE, and an ACL that is only the mode. */
static int set_dir_mode(int fd, const char *path, mode_t mode)
{
	acl_t acl;
	int ret = 0;

	if (fchown(fd, 0, 0) || fchmod(fd, mode))
		return -errno;
	acl = acl_from_mode(mode);
	if (!acl)
		return -errno;
	if (acl_set_fd(fd, acl) && errno != EOPNOTSUPP)
		ret = -errno;
	acl_free(acl);
	/* No default ACL: pins made here must not inherit grants. */
	if (!ret && acl_delete_def_file(path) && errno != EOPNOTSUPP)
		ret = -errno;
	return ret;
}

/* Open PIN_DIR into cur_fd, if it exists. */
static int open_cur(struct pin_dir *d)
{
	int ret;

	d->cur_fd = openat(d->parent_fd, d->base,
			   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->cur_fd < 0 && errno != ENOENT) {
		ret = -errno;
		err("%s: %s", d->path, strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * A run killed while it carried directories that are not ours into the
 * next pin directory (gen_carry()) left them there. fsiter-pin makes no
 * directory in a pin directory, so each one there goes back to PIN_DIR
 * before the rest is emptied. 0, or -errno (said) if one cannot: then
 * nothing is emptied, and the next directory stays for root to look at.
 */
static int return_carried(struct pin_dir *d)
{
	struct dirent *de;
	DIR *dir;
	int fd, ret = 0;

	if (d->cur_fd < 0)
		return 0;	/* no PIN_DIR: nothing was carried out of it */
	fd = openat(d->work_fd, NEXT_NAME, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	dir = fdopendir(fd);
	if (!dir) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((de = readdir(dir))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, ".."))
			continue;
		if (renameat2(fd, de->d_name, d->cur_fd, de->d_name, RENAME_NOREPLACE)) {
			ret = -errno;
			err("%s/%s/%s: cannot move it back to %s: %s", d->work_path,
			    NEXT_NAME, ESC(de->d_name), d->path, strerror(-ret));
			break;
		}
		warn("%s/%s: moved back from the work directory, where a killed run left it",
		     d->path, ESC(de->d_name));
	}
	closedir(dir);
	return ret;
}

/* Empty the work directory: what is there, a killed run left. Pins that
 * PIN_DIR keeps (hard links) stay as they are; the others are revoked.
 */
static int empty_work_dir(struct pin_dir *d)
{
	int ret;

	if (diag_verbose)
		info_v("emptying %s", d->work_path);
	ret = return_carried(d);
	return ret ? ret : tree_empty(d->work_fd, d->cur_fd);
}

/* One lock for the pin directory and its work directory: shared to look,
 * exclusive to change or tidy. With PINDIR_TIDY, tidy only if nobody holds
 * it now, else just look (adds PINDIR_LOOK to *FLAGS).
 */
static int take_lock(struct pin_dir *d, unsigned int *flags)
{
	if (*flags & PINDIR_TIDY) {
		if (!flock(d->work_fd, LOCK_EX | LOCK_NB))
			return 0;
		*flags |= PINDIR_LOOK;
	}
	return lock_wait(d->work_fd, d->work_path,
			 *flags & PINDIR_LOOK ? LOCK_SH : LOCK_EX);
}

/*
 * Tidied: from now on only look, beside other readers (list's NSS lookups
 * must not hold up every apply). flock converts an exclusive lock to a
 * shared one in one step, but it says it need not: open PIN_DIR again
 * under the shared lock, in case an apply came in between.
 */
static int look_on(struct pin_dir *d)
{
	int ret = lock_wait(d->work_fd, d->work_path, LOCK_SH);

	if (ret)
		return ret;
	if (d->cur_fd >= 0)
		close(d->cur_fd);
	d->cur_fd = -1;
	return open_cur(d);
}

int pindir_open(struct pin_dir *d, const char *path, unsigned int flags)
{
	bool create = flags & PINDIR_CREATE;
	const char *slash = strrchr(path, '/');
	struct statfs sf;
	char work[NAME_MAX + 1];
	int ret;

	if (!slash || !slash[1] || strlen(path) >= sizeof(d->path) ||
	    strlen(slash + 1) >= sizeof(d->base)) {
		err("pin-dir %s: not a usable path", path);
		return -EINVAL;
	}
	strcpy(d->path, path);
	snprintf(d->parent, sizeof(d->parent), "%.*s",
		 slash == path ? 1 : (int)(slash - path), path);
	strcpy(d->base, slash + 1);
	snprintf(work, sizeof(work), "%s%s", d->base, WORK_SUFFIX);
	ret = path_join(d->work_path, d->parent, work);
	if (ret)
		return ret;
	if (create) {
		ret = mkdir_parents(d->parent, &d->made_parent);
		if (ret) {
			err("%s: cannot create it: %s", d->parent, strerror(-ret));
			return ret;
		}
	}
	d->parent_fd = open(d->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->parent_fd < 0) {
		ret = -errno;
		if (ret != -ENOENT || create)
			err("%s: %s", d->parent, strerror(-ret));
		return ret;
	}
	if (fstatfs(d->parent_fd, &sf) || (unsigned long)sf.f_type != BPF_FS_MAGIC) {
		err("pin-dir %s: %s is not a directory in bpffs", path, d->parent);
		return -EINVAL;
	}
	if (create && mkdirat(d->parent_fd, work, 0700)) {
		if (errno != EEXIST) {
			ret = -errno;
			err("%s: cannot create it: %s", d->work_path, strerror(-ret));
			return ret;
		}
	} else if (create) {
		d->made_work = true;
	}
	d->work_fd = openat(d->parent_fd, work,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->work_fd < 0) {
		ret = -errno;
		if (ret != -ENOENT || create)
			err("%s: %s", d->work_path, strerror(-ret));
		if (ret == -ENOENT)	/* never applied: there may be pins */
			return open_cur(d);
		return ret;
	}
	ret = take_lock(d, &flags);
	if (!ret)
		ret = open_cur(d);
	if (ret || (flags & PINDIR_LOOK))
		return ret;
	/* Root's alone, whatever the parent's default ACL passed on. */
	ret = set_dir_mode(d->work_fd, d->work_path, 0700);
	if (!ret)
		ret = empty_work_dir(d);
	if (ret) {
		err("%s: %s", d->work_path, strerror(-ret));
		return ret;
	}
	if (flags & PINDIR_TIDY)
		ret = look_on(d);
	return ret;
}

void pindir_close(struct pin_dir *d)
{
	if (d->new_fd >= 0)
		close(d->new_fd);
	if (d->cur_fd >= 0)
		close(d->cur_fd);
	if (d->work_fd >= 0)
		close(d->work_fd);	/* drops the lock */
	if (d->parent_fd >= 0)
		close(d->parent_fd);
	free(d->carry);
	pindir_init(d);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pindir_free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int pindir_names(struct pin_dir *d, char ***out, size_t *nout)
{
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	DIR *dir;
	int ret = 0;

	*out = NULL;
	*nout = 0;
	if (d->cur_fd < 0)
		return 0;
	dir = opendir_at(d->cur_fd, ".");
	if (!dir)
		return -errno;
	while ((errno = 0, de = readdir(dir))) {
		char **nn;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		nn = realloc(names, (n + 1) * sizeof(*nn));
		if (!nn || !(nn[n] = strdup(de->d_name))) {
			names = nn ?: names;
			ret = -ENOMEM;
			break;
		}
		names = nn;
		n++;
	}
	if (!ret && errno)
		ret = -errno;
	closedir(dir);
	if (ret) {
		pindir_free_names(names, n);
		return ret;
	}
	if (n)		/* names is NULL: qsort() wants an array */
		qsort(names, n, sizeof(*names), cmp_names);
	*out = names;
	*nout = n;
	return 0;
}

int pin_remove(struct pin_dir *d, const char *name)
{
	int ret = pin_revoke(d->cur_fd, name);

	if (!ret && unlinkat(d->cur_fd, name, 0))
		ret = -errno;
	return ret;
}

int gen_begin(struct pin_dir *d)
{
	int ret;

	ret = fault_at("gen");
	if (!ret)
		ret = path_join(d->new_path, d->work_path, NEXT_NAME);
	if (ret)
		goto fail;
	if (mkdirat(d->work_fd, NEXT_NAME, 0700)) {
		ret = -errno;
		goto fail;
	}
	d->new_fd = openat(d->work_fd, NEXT_NAME,
			   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->new_fd < 0) {
		ret = -errno;
		goto fail;
	}
	/* Pins made here must not inherit grants from a default ACL. */
	ret = set_dir_mode(d->new_fd, d->new_path, 0700);
	if (!ret)
		return 0;
fail:
	err("%s: cannot make the next pin directory: %s", d->new_path,
	    strerror(-ret));
	return ret;
}

int gen_keep(struct pin_dir *d, const char *name)
{
	int ret = fault_at("keep");

	if (ret)
		return ret;
	if (linkat(d->cur_fd, name, d->new_fd, name, 0)) {
		ret = -errno;
		err("%s/%s: cannot keep it: %s", d->path, name, strerror(-ret));
	}
	return ret;
}

int gen_carry(struct pin_dir *d, const char *name)
{
	const char **carry;
	struct stat st;
	int ret;

	if (fstatat(d->cur_fd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		ret = -errno;
		err("%s/%s: %s", d->path, name, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(st.st_mode))
		return gen_keep(d, name);
	carry = realloc(d->carry, (d->nr_carry + 1) * sizeof(*carry));
	if (!carry)
		return -ENOMEM;
	d->carry = carry;
	carry[d->nr_carry++] = name;
	return 0;
}

static void forget_carried(struct pin_dir *d)
{
	free(d->carry);
	d->carry = NULL;
	d->nr_carry = 0;
}

/* Move the first N carried directories FROM_FD to TO_FD; how many moved. */
static size_t move_carried(struct pin_dir *d, size_t n, int from_fd, int to_fd)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (renameat2(from_fd, d->carry[i], to_fd, d->carry[i], RENAME_NOREPLACE)) {
			err("%s/%s: cannot move it %s: %s", d->path, d->carry[i],
			    from_fd == d->cur_fd ? "to the next pin directory" : "back",
			    strerror(errno));
			break;
		}
	return i;
}

int gen_commit(struct pin_dir *d)
{
	size_t moved = 0;
	int old_fd, ret;

	/* Still out of reach in the work directory: open it up for the
	 * readers the pins' own modes let in.
	 */
	ret = set_dir_mode(d->new_fd, d->new_path, d->mode);
	if (!ret && d->nr_carry) {
		moved = move_carried(d, d->nr_carry, d->cur_fd, d->new_fd);
		if (moved < d->nr_carry)
			ret = -EIO;
	}
	if (!ret)
		ret = fault_at("swap");
	/* The switch, one rename. The old directory lands in the work
	 * directory, as unreachable as the new one was.
	 */
	if (!ret && renameat2(d->work_fd, NEXT_NAME, d->parent_fd, d->base,
			      d->cur_fd >= 0 ? RENAME_EXCHANGE : RENAME_NOREPLACE))
		ret = -errno;
	if (ret) {
		err("%s: cannot switch to the new pins: %s", d->path, strerror(-ret));
		/* What moved goes back: gen_abort() removes the next
		 * directory. If it cannot, the next directory stays (said)
		 * and the next run empties it: nothing else is that safe.
		 */
		if (move_carried(d, moved, d->new_fd, d->cur_fd) < moved) {
			forget_carried(d);
			return ret;
		}
		gen_abort(d);
		return ret;
	}
	forget_carried(d);
	/* PIN_DIR is the new directory now: new_fd names it (whatever
	 * happens to the name), the old fd the old one. Take back at once
	 * what the old set granted: a reader may hold an fd on the old
	 * directory or on a pin that goes; what PIN_DIR keeps stays.
	 */
	old_fd = d->cur_fd;
	d->cur_fd = d->new_fd;
	d->new_fd = -1;
	ret = old_fd >= 0 ? set_dir_mode(old_fd, d->new_path, 0700) : 0;
	if (!ret && old_fd >= 0)
		ret = tree_revoke(old_fd, d->cur_fd);
	if (old_fd >= 0)
		close(old_fd);
	if (ret)	/* tree_remove() tries again before each unlink */
		warn("%s: the old pins could not all be revoked yet: %s",
		     d->work_path, strerror(-ret));
	/* Committed; the rest only cleans up, and the next run finishes it
	 * if this one cannot.
	 */
	if (fault_at("cleanup") || tree_remove(d->work_fd, NEXT_NAME, d->cur_fd))
		warn("%s: the old pins are left there; the next run removes them",
		     d->work_path);
	return 0;
}

void gen_abort(struct pin_dir *d)
{
	forget_carried(d);
	if (d->new_fd < 0)
		return;
	close(d->new_fd);
	d->new_fd = -1;
	if (tree_remove(d->work_fd, NEXT_NAME, d->cur_fd))
		warn("%s: left behind; the next run removes it", d->new_path);
}

int pindir_check(struct pin_dir *d, char *what, size_t size)
{
	struct stat st;
	acl_t acl;
	int extra, def;

	if (d->cur_fd < 0)
		return 1;
	if (fstat(d->cur_fd, &st))
		return -errno;
	if (st.st_uid || st.st_gid) {
		snprintf(what, size, "owner %u:%u", (unsigned int)st.st_uid,
			 (unsigned int)st.st_gid);
		return 0;
	}
	acl = acl_get_fd(d->cur_fd);
	extra = acl ? acl_equiv_mode(acl, NULL) : 0;
	acl_free(acl);
	acl = acl_get_file(d->path, ACL_TYPE_DEFAULT);
	def = acl ? acl_entries(acl) : 0;
	acl_free(acl);
	if (extra == 1 || def > 0) {
		snprintf(what, size, "%s ACL entries", extra == 1 ? "access" : "default");
		return 0;
	}
	if ((st.st_mode & 07777) != d->mode) {
		snprintf(what, size, "mode %04o", (unsigned int)(st.st_mode & 07777));
		return 0;
	}
	return 1;
}

int pindir_restore(struct pin_dir *d)
{
	return d->cur_fd < 0 ? 0 : set_dir_mode(d->cur_fd, d->path, d->mode);
}
