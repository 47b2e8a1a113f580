// SPDX-License-Identifier: GPL-2.0
/*
 * A pin-dir against the pin directories already in bpffs: another
 * policy's apply replaces its whole pin directory and empties its work
 * directory, so one pin directory inside another, or holding another's
 * work directory, would lose its pins to the other's next apply.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "policy.h"

bool (*policy_pin_dir_mine)(const char *pin_dir, const char *policy);

static bool is_dir(int at, const char *path)
{
	struct stat st;

	return !fstatat(at, path, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode);
}

static bool has_suffix(const char *s, size_t len)
{
	size_t n = strlen(POLICY_WORK_SUFFIX);

	return len >= n && !strncmp(s + len - n, POLICY_WORK_SUFFIX, n);
}

/* Is OTHER, a pin directory, POLICY's own (policy_pin_dir_mine)? */
static bool mine(const char *other, const char *policy)
{
	return policy && policy_pin_dir_mine && policy_pin_dir_mine(other, policy);
}

/*
 * The first directory above DIR that is a pin directory (a directory
 * POLICY_WORK_SUFFIX beside it says so), not POLICY's own, into OTHER:
 * 1, or 0.
 */
static int inside_pin_dir(const char *dir, const char *policy, char other[PATH_MAX])
{
	char work[PATH_MAX];
	const char *s;

	for (s = strchr(dir + 1, '/'); s; s = strchr(s + 1, '/')) {
		snprintf(other, PATH_MAX, "%.*s", (int)(s - dir), dir);
		if (snprintf(work, sizeof(work), "%s%s", other, POLICY_WORK_SUFFIX) < PATH_MAX &&
		    is_dir(AT_FDCWD, work) && !mine(other, policy))
			return 1;
	}
	return 0;
}

/*
 * A work directory of another pin directory anywhere in DIR (AT's, at
 * DEPTH levels at most: bpffs trees are shallow), into OTHER (PATH, its
 * name): 1, or 0. Links are not followed.
 */
static int holds_work_dir_at(int at, const char *path, const char *full,
			     unsigned int depth, const char *policy, char other[PATH_MAX])
{
	struct dirent *de;
	int ret = 0, fd;
	DIR *d;

	fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* not made yet: holds nothing */
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while (!ret && (de = readdir(d))) {
		char sub[PATH_MAX];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !is_dir(dirfd(d), de->d_name) ||
		    snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) >= PATH_MAX)
			continue;
		if (has_suffix(de->d_name, strlen(de->d_name))) {
			char its[PATH_MAX];

			/* Its pin directory: the name without the suffix. */
			snprintf(its, sizeof(its), "%s/%.*s", full,
				 (int)(strlen(de->d_name) - strlen(POLICY_WORK_SUFFIX)), de->d_name);
			snprintf(other, PATH_MAX, "%s", sub);
			ret = !mine(its, policy);
		} else if (depth) {
			char deeper_full[PATH_MAX];

			if (snprintf(deeper_full, sizeof(deeper_full), "%s/%s", full, de->d_name) >= PATH_MAX)
				continue;
			ret = holds_work_dir_at(dirfd(d), de->d_name, deeper_full, depth - 1, policy,
						other);
			/* OTHER was named from the subdirectory: its full path. */
			if (ret) {
				char deeper[PATH_MAX];

				snprintf(deeper, sizeof(deeper), "%s", other);
				if (snprintf(other, PATH_MAX, "%s/%s", path, deeper) >= PATH_MAX)
					other[PATH_MAX - 1] = '\0';	/* refused all the same */
			}
		}
	}
	closedir(d);
	return ret;
}

static int holds_work_dir(const char *dir, const char *policy, char other[PATH_MAX])
{
	return holds_work_dir_at(AT_FDCWD, dir, dir, 8, policy, other);
}

int policy_pin_dir_clear_for(const char *dir, const char *policy, const struct loc *loc,
			     const char *as)
{
	char other[PATH_MAX];

	if (inside_pin_dir(dir, policy, other)) {
		err_at(loc, "pin-dir '%s'%s: inside %s, the pin directory of another policy (%s%s is its work directory), whose next apply would remove these pins",
		       ESC(dir), as, ESC(other), ESC(other), POLICY_WORK_SUFFIX);
		return -EINVAL;
	}
	if (holds_work_dir(dir, policy, other)) {
		err_at(loc, "pin-dir '%s'%s: holds %s, the work directory of another policy's pin directory, which this apply would remove",
		       ESC(dir), as, ESC(other));
		return -EINVAL;
	}
	return 0;
}

int policy_pin_dir_clear(const char *dir, const struct loc *loc, const char *as)
{
	return policy_pin_dir_clear_for(dir, NULL, loc, as);
}

int policy_validate_pin_dir(const struct policy *p)
{
	const struct loc dflt = { .file = p->nr_files ? p->files[0] : "policy" };

	/* Its own old pin directory is no other policy's (A to A/sub). */
	return policy_pin_dir_clear_for(p->pin_dir ?: POLICY_DEFAULT_PIN_DIR,
					p->nr_files ? p->files[0] : NULL,
					p->pin_dir ? &p->pin_dir_loc : &dflt,
					p->pin_dir ? "" : " (the default)");
}
