// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the policy file and its drop-in directory, as systemd reads
 * configuration: drop-ins in the byte order of their names, a drop-in
 * that is /dev/null (or a link to it) masked, and nothing read that a
 * user other than root could have written.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "policy.h"

/* A policy is a few kilobytes; refuse what is surely not one. */
#define POLICY_FILE_MAX	(4 << 20)

char *policy_dropin_dir(const char *path)
{
	size_t len = strlen(path);
	char *dir;

	if (len > 5 && !strcmp(path + len - 5, ".conf"))
		len -= 5;
	dir = malloc(len + 3);
	if (dir) {
		memcpy(dir, path, len);
		strcpy(dir + len, ".d");
	}
	return dir;
}

/*
 * May the policy at PATH, of status ST, be trusted? Its owner must be
 * root or the user running fsiter-pin, and nobody else may write it: no
 * group or other write bit (an ACL's mask shows in the group bits). A
 * directory that holds the policy file may be writable by others if it
 * is sticky (STICKY_OK), as /tmp is: nobody else can then rename or
 * remove what is in it, and what they could add (a drop-in directory) is
 * checked on its own. 0, or -EPERM after saying why.
 */
static int check_writers(const char *path, const struct stat *st,
			 bool sticky_ok)
{
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		err("%s: owned by uid %u: refusing a policy that a user other than root can change",
		    ESC(path), (unsigned int)st->st_uid);
		return -EPERM;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    !(sticky_ok && (st->st_mode & S_ISVTX))) {
		err("%s: writable by %s (mode %04o): refusing a policy that a user other than root can change",
		    ESC(path), st->st_mode & S_IWOTH ? "every user" : "its group",
		    (unsigned int)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

static bool is_dev_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3);
}

/*
 * The directory that holds the file open at FD (PATH in messages) may be
 * written by others only if it is sticky: else they could put another
 * file in its place. The directory is the one the file was found in
 * after every link, from /proc/self/fd; without /proc, the one PATH
 * names.
 */
static int check_holder(int fd, const char *path)
{
	char proc[64], real[PATH_MAX], *dir, *slash;
	struct stat st;
	ssize_t n;
	int ret;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, real, sizeof(real) - 1);
	if (n > 0 && real[0] == '/') {
		real[n] = '\0';
		dir = real;
	} else {
		snprintf(real, sizeof(real), "%s", path);
		dir = strchr(real, '/') ? real : ".";
	}
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';	/* "/x" is in "/" */
	if (stat(dir, &st) < 0) {
		ret = -errno;
		err("%s: %s", ESC(dir), strerror(-ret));
		return ret;
	}
	return check_writers(dir, &st, true);
}

/*
 * FD is NAME in DFD, opened O_PATH, and ST says it is a regular file: make
 * FD that file opened for reading. Through /proc/self/fd, so that nothing
 * else is opened: a name swapped for a device since would have that
 * device's open() run (a tape rewinds). Without /proc, NAME is opened
 * again and must be the same file; a device swapped in by then (by root
 * or the file's owner: the checks before saw to that) is opened, and
 * refused. 0 or -errno.
 */
static int reopen_read(int *fd, int dfd, const char *name, const struct stat *st)
{
	const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	char proc[32];
	struct stat now;
	int nfd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", *fd);
	nfd = open(proc, flags);
	if (nfd < 0 && errno == ENOENT) {
		nfd = openat(dfd, name, flags);
		if (nfd >= 0 && (fstat(nfd, &now) || now.st_dev != st->st_dev ||
				 now.st_ino != st->st_ino)) {
			close(nfd);
			return -ESTALE;
		}
	}
	if (nfd < 0)
		return -errno;
	close(*fd);
	*fd = nfd;
	return 0;
}

/*
 * Read NAME in DFD (PATH in messages) into *BUF. A drop-in (DROPIN) that
 * is /dev/null is masked: returns 1. 0, or a negative errno after saying
 * why.
 */
static int read_policy(int dfd, const char *name, const char *path,
		       bool dropin, char **buf, size_t *len)
{
	struct stat st;
	ssize_t n = 0;
	size_t got = 0;
	char *b = NULL;
	int fd = -1, ret;

	/* Looked at before it is opened: a device or FIFO is not (with /proc). */
	fd = openat(dfd, name, O_PATH | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		err("%s: %s", ESC(path), strerror(-ret));
		goto out;
	}
	if (dropin && is_dev_null(&st)) {
		info_v("%s: masked (it is /dev/null)", ESC(path));
		ret = 1;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		err("%s: %s", ESC(path), ret == -EISDIR ? strerror(EISDIR) :
		    "not a regular file");
		goto out;
	}
	ret = check_writers(path, &st, false);
	if (!ret)
		ret = check_holder(fd, path);
	if (ret)
		goto out;
	ret = reopen_read(&fd, dfd, name, &st);
	if (ret) {
		err("%s: %s", ESC(path), strerror(-ret));
		goto out;
	}
	if (st.st_size > POLICY_FILE_MAX) {
		ret = -EFBIG;
		err("%s: %s", ESC(path), strerror(EFBIG));
		goto out;
	}
	b = malloc(st.st_size + 1);
	if (!b) {
		ret = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size &&
	       (n = read(fd, b + got, st.st_size - got)) > 0)
		got += n;
	if (n < 0) {
		ret = -errno;
		err("%s: %s", ESC(path), strerror(-ret));
		goto out;
	}
	*buf = b;
	*len = got;
	b = NULL;
	ret = 0;
out:
	free(b);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Add PATH and its LEN bytes TEXT (NULL: masked) to P's source. */
static int add_source(struct policy *p, const char *path, const char *text,
		      size_t len)
{
	size_t plen = strlen(path) + 1, need;
	char hdr[32], *s;
	int hlen;

	/* The length first: no text can pass for another file's start. */
	hlen = snprintf(hdr, sizeof(hdr), text ? "%zu:" : "masked:", len);
	need = p->source_len + plen + hlen + (text ? len : 0);
	s = realloc(p->source, need);
	if (!s)
		return -ENOMEM;
	memcpy(s + p->source_len, path, plen);
	memcpy(s + p->source_len + plen, hdr, hlen);
	if (text)
		memcpy(s + p->source_len + plen + hlen, text, len);
	p->source = s;
	p->source_len = need;
	return 0;
}

static int parse_file(struct policy *p, int dfd, const char *name,
		      const char *path, bool dropin)
{
	size_t len = 0;
	char *buf = NULL;
	int ret;

	ret = read_policy(dfd, name, path, dropin, &buf, &len);
	if (ret)
		return ret > 0 ? add_source(p, path, NULL, 0) : ret;
	ret = add_source(p, path, buf, len);
	if (!ret)
		ret = policy_parse_buf(p, path, buf, len);
	free(buf);
	return ret;
}

static int conf_filter(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 5 && !strcmp(name + len - 5, ".conf");
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of DIR's drop-ins, sorted, in *NAMES. Their count, or -errno. */
static int list_dropins(DIR *dir, char ***names)
{
	char **v = NULL, **nv;
	struct dirent *d;
	int n = 0, ret;

	for (;;) {
		errno = 0;
		d = readdir(dir);
		if (!d) {
			ret = -errno;
			break;
		}
		if (!conf_filter(d->d_name))
			continue;
		nv = reallocarray(v, n + 1, sizeof(*v));
		if (!nv || !(nv[n] = strdup(d->d_name))) {
			v = nv ?: v;
			ret = -ENOMEM;
			break;
		}
		v = nv;
		n++;
	}
	if (ret) {
		while (n)
			free(v[--n]);
		free(v);
		return ret;
	}
	if (n > 1)	/* qsort(NULL, 0, ...) is undefined */
		qsort(v, n, sizeof(*v), name_cmp);
	*names = v;
	return n;
}

/* Keep the first error, but an out-of-memory over any. */
static int first_error(int ret, int r)
{
	return r == -ENOMEM ? r : ret ?: r;
}

int policy_load(struct policy *p, const char *path)
{
	char **names = NULL, *dir = NULL;
	DIR *d = NULL;
	struct stat st;
	int ret, r, n = 0, dfd = -1;

	ret = parse_file(p, AT_FDCWD, path, path, false);
	if (ret == -ENOMEM || (ret && ret != -EINVAL && ret != -EPERM))
		return ret;
	dir = policy_dropin_dir(path);
	if (!dir) {
		ret = -ENOMEM;
		goto out;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		if (errno != ENOENT && errno != ENOTDIR) {
			r = -errno;
			err("%s: %s", ESC(dir), strerror(-r));
			ret = first_error(ret, r);
		}
		goto out;
	}
	if (fstat(dfd, &st) < 0) {
		r = -errno;
		err("%s: %s", ESC(dir), strerror(-r));
		ret = first_error(ret, r);
		goto out;
	}
	r = check_writers(dir, &st, false);
	if (r) {
		ret = first_error(ret, r);
		goto out;
	}
	d = fdopendir(dfd);
	if (!d) {
		ret = -errno;
		goto out;
	}
	dfd = -1;	/* d owns it */
	n = list_dropins(d, &names);
	if (n < 0) {
		err("%s: %s", ESC(dir), strerror(-n));
		ret = first_error(ret, n);
		n = 0;
		goto out;
	}
	for (int i = 0; i < n && ret != -ENOMEM; i++) {
		char *file;

		if (asprintf(&file, "%s/%s", dir, names[i]) < 0) {
			ret = -ENOMEM;
			break;
		}
		r = parse_file(p, dirfd(d), names[i], file, true);
		free(file);
		ret = first_error(ret, r);
	}
out:
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (d)
		closedir(d);
	if (dfd >= 0)
		close(dfd);
	free(dir);
	return ret;
}

int policy_each_source(const struct policy *p,
		       int (*fn)(void *arg, const char *path, const char *text,
				 size_t len),
		       void *arg)
{
	const char *s = p->source, *end = p->source + p->source_len;
	int ret;

	/* add_source()'s records: PATH NUL, then "LEN:" TEXT or "masked:". */
	while (s && s < end) {
		const char *path = s, *text = NULL;
		size_t len = 0;
		char *colon;

		s += strlen(s) + 1;
		if (!strncmp(s, "masked:", 7)) {
			s += 7;
		} else {
			len = strtoull(s, &colon, 10);
			text = colon + 1;
			s = text + len;
		}
		ret = fn(arg, path, text, len);
		if (ret)
			return ret;
	}
	return 0;
}

int policy_changed(const struct policy *p, const char *path)
{
	bool quiet = diag_quiet;
	struct policy now;
	int ret;

	policy_init(&now);
	diag_quiet = true;	/* the next plan says what is wrong, if anything */
	ret = policy_load(&now, path);
	diag_quiet = quiet;
	if (ret == -ENOMEM)
		goto out;
	ret = ret || now.source_len != p->source_len ||
	      (p->source_len && memcmp(now.source, p->source, p->source_len));
out:
	policy_free(&now);
	return ret;
}
