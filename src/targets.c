// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/openat2.h>
#include "dir_trust.h"
#include "fault.h"
#include "mounts.h"
#include "targets.h"

/*
 * PATH, one component at a time from "/", each opened under the fd of
 * the directory before it: no symlink followed (RESOLVE_NO_SYMLINKS also
 * refuses a trailing one: no O_NOFOLLOW, with which O_PATH would open the
 * link itself), nothing above it (RESOLVE_BENEATH). Notes in T the first
 * unsafe directory. The last fd, or -errno.
 */
static int walk(const char *path, struct target *t)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
	};
	const char *p = path, *end;
	char name[NAME_MAX + 1];
	struct stat dst, cst;
	int dir = -1, fd = -1, ret;

	dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || fstat(dir, &dst))
		goto fail;
	for (;;) {
		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		if (end == p)
			return dir;
		if (!S_ISDIR(dst.st_mode)) {
			errno = ENOTDIR;
			goto fail;
		}
		if (end - p > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memcpy(name, p, end - p);
		name[end - p] = '\0';
		fd = syscall(SYS_openat2, dir, name, &how, sizeof(how));
		if (fd < 0 || fstat(fd, &cst))
			goto fail;
		if (!t->unsafe_len && dir_unsafe(dir, &dst, cst.st_uid, &t->unsafe))
			t->unsafe_len = p - 1 > path ? (unsigned int)(p - 1 - path) : 1;
		close(dir);
		dir = fd;
		fd = -1;
		dst = cst;
		p = end;
	}
fail:
	ret = -errno;
	if (fd >= 0)
		close(fd);
	if (dir >= 0)
		close(dir);
	return ret;
}

/* target_open(), unbounded: the lookups and the statx may block. */
static int open_now(const char *path, struct target *t)
{
	struct statx stx;
	int fd, ret;
	char fdinfo[64], line[128];
	FILE *f;

	t->fd = -1;
	t->unsafe_len = 0;
	fd = walk(path, t);
	if (fd < 0)
		return fd;
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_TYPE | STATX_MODE | STATX_INO | STATX_MNT_ID | STATX_NLINK, &stx) < 0) {
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
	t->nlink = stx.stx_nlink;
	t->ino = 0;
	t->mnt_id = -1;
	/* fdinfo has the mount id and i_ino of the open file (5.14+). */
	snprintf(fdinfo, sizeof(fdinfo), "/proc/self/fdinfo/%d", fd);
	f = fopen(fdinfo, "re");
	if (!f) {	/* EMFILE too: say so, not EIO */
		ret = -errno;
		close(fd);
		t->fd = -1;
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "mnt_id: %d", &t->mnt_id);
		sscanf(line, "ino: %lu", &t->ino);
	}
	fclose(f);
	if (t->mnt_id < 0 || !t->ino || mounts_devno_of(t->mnt_id, &t->dev)) {
		close(fd);
		t->fd = -1;
		return -EIO;
	}
	return 0;
}

/* One open, run by a thread of its own; freed by the last of the two. */
struct open_job {
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	char *path;
	struct target t;
	int ret;
	bool done;
	bool abandoned;		/* the caller gave up waiting */
};

static void job_free(struct open_job *j)
{
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->done_cond);
	free(j->path);
	free(j);
}

static void *open_worker(void *arg)
{
	struct open_job *j = arg;
	struct target t = { .fd = -1 };
	bool abandoned;
	int ret;

	ret = fault_at("open");
	if (!ret)
		ret = open_now(j->path, &t);
	pthread_mutex_lock(&j->lock);
	j->t = t;
	j->ret = ret;
	j->done = true;
	abandoned = j->abandoned;
	pthread_cond_signal(&j->done_cond);
	pthread_mutex_unlock(&j->lock);
	if (abandoned) {	/* too late: nobody wants it any more */
		if (!ret)
			target_close(&t);
		job_free(j);
	}
	return NULL;
}

int target_open(const char *path, struct target *t)
{
	struct open_job *j;
	struct timespec until;
	pthread_condattr_t cattr;
	pthread_attr_t attr;
	pthread_t th;
	bool done;
	int ret;

	t->fd = -1;
	j = calloc(1, sizeof(*j));
	if (!j || !(j->path = strdup(path))) {
		free(j);
		return -ENOMEM;
	}
	pthread_mutex_init(&j->lock, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&j->done_cond, &cattr);
	pthread_condattr_destroy(&cattr);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = -pthread_create(&th, &attr, open_worker, j);
	pthread_attr_destroy(&attr);
	if (ret) {
		job_free(j);
		return ret;
	}
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += TARGET_OPEN_TIMEOUT_S;
	pthread_mutex_lock(&j->lock);
	while (!j->done && !pthread_cond_timedwait(&j->done_cond, &j->lock, &until))
		;
	done = j->done;
	j->abandoned = !done;
	if (done) {
		*t = j->t;
		ret = j->ret;
	}
	pthread_mutex_unlock(&j->lock);
	if (!done)
		return -ETIMEDOUT;	/* the worker frees J when it returns */
	job_free(j);
	return ret;
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
	case -ETIMEDOUT:
		return "no answer from its filesystem in time (a dead NFS server?)";
	default:
		return strerror(-err);
	}
}
