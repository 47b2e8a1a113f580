// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <acl/libacl.h>
#include <bpf/bpf.h>
#include "diag.h"
#include "fsiter_uapi.h"
#include "pins.h"
#include "views.h"

int path_join(char out[PATH_MAX], const char *dir, const char *name)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);

	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

void pindir_init(struct pin_dir *d)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->staging_fd = -1;
}

/* mkdir with mode 0755 whatever the umask; an existing one is left. */
static int make_dir(const char *path)
{
	if (mkdir(path, 0755))
		return errno == EEXIST ? 0 : -errno;
	return chmod(path, 0755) ? -errno : 0;
}

static int mkdir_parents(const char *path)
{
	char buf[PATH_MAX];
	int ret;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		ret = make_dir(buf);
		if (ret)
			return ret;
		*s = '/';
	}
	return make_dir(buf);
}

int pindir_open(struct pin_dir *d, const char *path, bool create)
{
	int ret;

	if (strlen(path) >= sizeof(d->path) ||
	    path_join(d->staging, path, STAGING_NAME)) {
		err("%s: path too long", path);
		return -ENAMETOOLONG;
	}
	strcpy(d->path, path);
	if (create) {
		ret = mkdir_parents(path);
		if (ret) {
			err("%s: cannot create it: %s", path, strerror(-ret));
			return ret;
		}
	}
	d->fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd < 0) {
		ret = -errno;
		if (ret != -ENOENT || create)
			err("%s: %s", path, strerror(-ret));
		return ret;
	}
	/* Whole-directory lock: apply, remove and each other take turns. */
	if (flock(d->fd, LOCK_EX)) {
		ret = -errno;
		err("%s: cannot lock it: %s", path, strerror(-ret));
		return ret;
	}
	return 0;
}

void pindir_close(struct pin_dir *d)
{
	if (d->staging_fd >= 0)
		close(d->staging_fd);
	if (d->fd >= 0)
		close(d->fd);	/* drops the lock */
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
	int fd, ret = 0;

	fd = openat(d->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	while ((errno = 0, de = readdir(dir))) {
		char **nn;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, STAGING_NAME))
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
	qsort(names, n, sizeof(*names), cmp_names);
	*out = names;
	*nout = n;
	return 0;
}

static int read_link(int link_fd, struct pin_info *pi)
{
	struct fsiter_link_info info = {};
	struct bpf_prog_info pinfo = {};
	__u32 len = sizeof(info);
	int prog_fd, ret;

	if (bpf_obj_get_info_by_fd(link_fd, &info, &len))
		return -errno;
	if (info.type != BPF_LINK_TYPE_ITER)
		return 0;
	pi->link_id = info.id;
	pi->prog_id = info.prog_id;
	pi->fs_type = info.iter.fs.type;
	pi->mnt_id = info.iter.fs.mnt_id;
	pi->ino = info.iter.fs.ino;
	pi->dev = info.iter.fs.dev;
	pi->gone = info.iter.fs.gone;
	prog_fd = bpf_prog_get_fd_by_id(info.prog_id);
	if (prog_fd < 0)
		return -errno;
	len = sizeof(pinfo);
	ret = bpf_obj_get_info_by_fd(prog_fd, &pinfo, &len) ? -errno : 0;
	close(prog_fd);
	if (ret)
		return ret;
	/* Only our targets: iter/fs_inode and iter/fs_mnt programs. */
	if (pinfo.type != BPF_PROG_TYPE_TRACING)
		return 0;
	memcpy(pi->prog_name, pinfo.name, sizeof(pi->prog_name));
	view_tag_hex(pinfo.tag, pi->tag);
	pi->is_link = true;
	return 0;
}

int pin_read(struct pin_dir *d, const char *name, struct pin_info *pi)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, ret;

	memset(pi, 0, sizeof(*pi));
	snprintf(pi->name, sizeof(pi->name), "%s", name);
	if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	pi->uid = st.st_uid;
	pi->gid = st.st_gid;
	pi->mode = st.st_mode;
	if (!S_ISREG(st.st_mode))
		return 0;
	ret = path_join(path, d->path, name);
	if (ret)
		return ret;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno == -EINVAL ? 0 : -errno;
	ret = read_link(fd, pi);
	close(fd);
	return ret;
}

/* Remove everything in the staging directory. */
static int staging_clear(struct pin_dir *d)
{
	struct pin_dir sd;
	char **names;
	size_t n;
	int ret;

	pindir_init(&sd);
	sd.fd = d->staging_fd;
	ret = pindir_names(&sd, &names, &n);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++)
		if (unlinkat(d->staging_fd, names[i], 0) && errno != ENOENT && !ret)
			ret = -errno;
	pindir_free_names(names, n);
	return ret;
}

int staging_begin(struct pin_dir *d)
{
	acl_t acl = NULL;
	int ret;

	if (mkdirat(d->fd, STAGING_NAME, 0700) && errno != EEXIST) {
		ret = -errno;
		goto fail;
	}
	d->staging_fd = openat(d->fd, STAGING_NAME,
			       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->staging_fd < 0) {
		ret = -errno;
		goto fail;
	}
	/* Root only, whatever default ACL the pin directory passes on: new
	 * pins in here must not inherit grants before perms_set().
	 */
	if (fchownat(d->fd, STAGING_NAME, 0, 0, AT_SYMLINK_NOFOLLOW) ||
	    fchmodat(d->fd, STAGING_NAME, 0700, 0)) {
		ret = -errno;
		goto fail;
	}
	acl = acl_from_mode(0700);
	if (acl && acl_set_file(d->staging, ACL_TYPE_ACCESS, acl) &&
	    errno != EOPNOTSUPP) {
		ret = -errno;
		goto fail;
	}
	if (acl_delete_def_file(d->staging) && errno != EOPNOTSUPP) {
		ret = -errno;
		goto fail;
	}
	/* Left over from a run that was killed: nothing in here is live. */
	ret = staging_clear(d);
	if (ret)
		goto fail;
	acl_free(acl);
	return 0;
fail:
	acl_free(acl);
	err("%s: %s", d->staging, strerror(-ret));
	return ret;
}

int staging_end(struct pin_dir *d)
{
	int ret;

	if (d->staging_fd < 0)
		return 0;
	ret = staging_clear(d);
	close(d->staging_fd);
	d->staging_fd = -1;
	if (!ret && unlinkat(d->fd, STAGING_NAME, AT_REMOVEDIR))
		ret = -errno;
	if (ret)
		err("%s: cannot remove it: %s", d->staging, strerror(-ret));
	return ret;
}
