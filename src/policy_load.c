// SPDX-License-Identifier: GPL-2.0
/* Reading the policy file and its drop-in directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static int read_file(const char *path, char **buf, size_t *len)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	char *b = NULL;
	int fd = -1, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	if (st.st_size > POLICY_FILE_MAX) {
		ret = -EFBIG;
		goto out;
	}
	b = malloc(st.st_size + 1);
	if (!b) {
		ret = -ENOMEM;
		goto out;
	}
	while ((n = read(fd, b + got, st.st_size - got)) > 0)
		got += n;
	if (n < 0) {
		ret = -errno;
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

static int parse_file(struct policy *p, const char *path)
{
	size_t len = 0;
	char *buf = NULL;
	int ret;

	ret = read_file(path, &buf, &len);
	if (ret) {
		err("%s: %s", ESC(path), ret == -EINVAL ? "not a regular file" :
		    strerror(-ret));
		return ret;
	}
	ret = policy_parse_buf(p, path, buf, len);
	free(buf);
	return ret;
}

static int conf_filter(const struct dirent *d)
{
	size_t len = strlen(d->d_name);

	return d->d_name[0] != '.' && len > 5 &&
	       !strcmp(d->d_name + len - 5, ".conf");
}

int policy_load(struct policy *p, const char *path)
{
	struct dirent **names = NULL;
	char *dir = NULL;
	int ret, n = 0;

	ret = parse_file(p, path);
	if (ret == -ENOMEM || (ret && ret != -EINVAL))
		return ret;
	dir = policy_dropin_dir(path);
	if (!dir)
		return -ENOMEM;
	n = scandir(dir, &names, conf_filter, alphasort);
	if (n < 0) {
		if (errno != ENOENT && errno != ENOTDIR) {
			err("%s: %s", ESC(dir), strerror(errno));
			ret = ret ?: -errno;
		}
		n = 0;
	}
	for (int i = 0; i < n; i++) {
		char *file;
		int r;

		if (asprintf(&file, "%s/%s", dir, names[i]->d_name) < 0) {
			ret = -ENOMEM;
			break;
		}
		r = parse_file(p, file);
		free(file);
		if (r == -ENOMEM) {
			ret = r;
			break;
		}
		if (r && !ret)
			ret = -EINVAL;
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(dir);
	return ret;
}
