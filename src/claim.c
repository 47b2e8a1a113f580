// SPDX-License-Identifier: GPL-2.0
/* Which policy a pin directory belongs to, from its manifest; claim.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <json-c/json.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include "claim.h"
#include "diag.h"
#include "manifest.h"
#include "mounts.h"
#include "pin_info.h"
#include "pindir.h"
#include "policy.h"
#include "policy_fields.h"

const char *claim_bpffs_root = BPFFS_MOUNT_POINT;

int claim_policy_name(const char *policy, char out[PATH_MAX])
{
	const char *slash = strrchr(policy, '/');
	char dir[PATH_MAX], real[PATH_MAX];
	int n;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == policy ? 1 : (int)(slash - policy),
			 policy);
	if (realpath(dir, real))
		n = snprintf(out, PATH_MAX, "%s/%s", strcmp(real, "/") ? real : "",
			     slash ? slash + 1 : policy);
	else if (*policy == '/')
		n = snprintf(out, PATH_MAX, "%s", policy);
	else if (getcwd(real, sizeof(real)))
		n = snprintf(out, PATH_MAX, "%s/%s", real, policy);
	else
		n = snprintf(out, PATH_MAX, "%s", policy);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

bool claim_is(const struct claim *c, const char *policy_abs, const char *as_given)
{
	if (c->policy[0] == '/')
		return !strcmp(c->policy, policy_abs);
	return c->policy[0] && !strcmp(c->policy, as_given);
}

/* Is manifest_dir a directory of this user's, 0700 or less, no link?
 * 0, -ENOENT, or -EPERM (said).
 */
static int manifest_dir_ok(void)
{
	struct stat st;

	if (lstat(manifest_dir, &st))
		return -errno;
	if (manifest_dir_ours(&st))
		return 0;
	warn("%s: not a directory of uid %u's with mode 0700; its manifests are not read",
	     manifest_dir, (unsigned int)geteuid());
	return -EPERM;
}

/* KEY of O, a string without a NUL, into OUT: 0, -ENOENT, or -EINVAL. */
static int get_string(json_object *o, const char *key, char out[PATH_MAX])
{
	json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v))
		return -ENOENT;
	s = json_object_get_string(v);
	if (!json_object_is_type(v, json_type_string) || !s ||
	    strlen(s) != (size_t)json_object_get_string_len(v) || strlen(s) >= PATH_MAX)
		return -EINVAL;
	strcpy(out, s);
	return 0;
}

/* The directory PIN_DIR, opened from / with no symbolic link on the way,
 * if it is on bpffs: an fd, or -errno (-ENOENT if it does not exist,
 * -EXDEV if it is not on bpffs).
 */
static int open_pin_dir(const char *pin_dir)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct statfs sf;
	int root, fd;

	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	fd = syscall(SYS_openat2, root, pin_dir + 1, &how, sizeof(how));
	if (fd < 0)
		fd = -errno;
	close(root);
	if (fd >= 0 && (fstatfs(fd, &sf) || (unsigned long)sf.f_type != BPF_FS_MAGIC)) {
		close(fd);
		fd = -EXDEV;
	}
	return fd;
}

/*
 * Is PATH a pin directory's place on bpffs? Inside claim_bpffs_root (not
 * the root itself) by its name; anywhere else (a second bpffs, say
 * /run/bpf: a policy may name any directory on bpffs) only if it is a
 * directory on bpffs reached from / without a symbolic link, as a
 * policy's own pin-dir must be. 0, -ENOENT (not there: it claims
 * nothing), or another -errno.
 */
static int on_bpffs(const char *path)
{
	size_t n = strlen(claim_bpffs_root);
	int fd;

	if (!strncmp(path, claim_bpffs_root, n) && path[n] == '/' && path[n + 1])
		return 0;
	fd = open_pin_dir(path);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* Is FILE the manifest of C's pin directory, by its name? */
static bool named_for(const char *file, const char *pin_dir)
{
	char want[PATH_MAX];
	const char *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	if (!manifest_path(pin_dir, ".json", want) && !strcmp(strrchr(want, '/') + 1, base))
		return true;
	manifest_legacy_path(pin_dir, ".json", want);
	return !strcmp(strrchr(want, '/') + 1, base);
}

/*
 * The manifest at PATH into C, if it passes claim.h's checks. 0; -ENOENT
 * if there is none; -EINVAL with WHY.
 */
static int read_manifest(const char *path, struct claim *c, const char **why, bool shallow)
{
	json_object *root = NULL;
	struct stat st;
	int fd, ret, where;

	memset(c, 0, sizeof(*c));
	snprintf(c->file, sizeof(c->file), "%s", path);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		*why = ret == -ELOOP ? "a symbolic link" : strerror(-ret);
		return ret == -ENOENT ? ret : -EINVAL;
	}
	ret = -EINVAL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if (st.st_uid != geteuid() || (st.st_mode & 022))
		*why = "another user may change it";
	else if (!(root = json_object_from_fd(fd)) ||
		 !json_object_is_type(root, json_type_object))
		*why = "not JSON, or not an object";
	else if (get_string(root, "pin_dir", c->pin_dir))
		*why = "no pin_dir string";
	else if (get_string(root, "policy", c->policy) == -EINVAL)
		*why = "its policy is not a string";
	else if (policy_pin_dir_error(c->pin_dir))
		*why = "its pin_dir is no pin-dir a policy could name";
	else if ((where = on_bpffs(c->pin_dir)) == -ENOENT)
		ret = -ENOENT;	/* nothing there: it claims nothing */
	else if (where)
		*why = "its pin_dir is not a directory on bpffs reached without a symbolic link";
	else if (!named_for(path, c->pin_dir))
		*why = "its name is not its pin_dir's";
	else if (c->policy[0] == '/' && policy_path_error(c->policy))
		*why = "its policy is not a path";
	else if (!shallow && policy_pin_dir_clear_for(c->pin_dir, c->policy[0] == '/' ? c->policy : NULL,
						     NULL, " (of a manifest)"))
		*why = "its pin_dir is refused as a policy's would be (said above)";
	else
		ret = 0;
	json_object_put(root);
	close(fd);
	return ret;
}

/* claim_read(), SHALLOW: without policy_pin_dir_clear_for() (which asks
 * claim_pin_dir_mine(), which reads the manifests of the pin directories
 * around it: it must not ask again).
 */
static int read_claim(const char *pin_dir, struct claim *c, bool shallow)
{
	char path[PATH_MAX];
	const char *why = NULL;
	int ret;

	ret = manifest_dir_ok();
	if (ret)
		return ret == -ENOENT ? ret : -EINVAL;
	ret = manifest_path(pin_dir, ".json", path);
	if (!ret)
		ret = read_manifest(path, c, &why, shallow);
	if (ret == -ENOENT || ret == -ENAMETOOLONG) {
		manifest_legacy_path(pin_dir, ".json", path);
		ret = read_manifest(path, c, &why, shallow);
	}
	if (ret == -EINVAL)
		warn("%s: %s; it is not trusted", ESC(path), why);
	/* The manifest of another pin directory, by an older name. */
	if (!ret && strcmp(c->pin_dir, pin_dir))
		ret = -ENOENT;
	return ret;
}

int claim_read(const char *pin_dir, struct claim *c)
{
	return read_claim(pin_dir, c, false);
}

static bool is_manifest_name(const char *name)
{
	size_t n = strlen(name), j = strlen(".json"), t = strlen(".traverse.json");

	/* Not .grant-traverse.json, nor an older record of grant-traverse's. */
	return name[0] != '.' && n > j && !strcmp(name + n - j, ".json") &&
	       !(n > t && !strcmp(name + n - t, ".traverse.json"));
}

int claim_each(int (*fn)(const struct claim *c, void *arg), void *arg)
{
	struct claim *c = NULL;
	struct dirent *de;
	DIR *dir = NULL;
	int ret;

	ret = manifest_dir_ok();
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	c = malloc(sizeof(*c));
	dir = opendir(manifest_dir);
	if (!c || !dir) {
		ret = c ? -errno : -ENOMEM;
		goto out;
	}
	while (!ret && (de = readdir(dir))) {
		char path[PATH_MAX];
		const char *why = NULL;
		int r;

		if (!is_manifest_name(de->d_name) ||
		    snprintf(path, sizeof(path), "%s/%s", manifest_dir, de->d_name) >= PATH_MAX)
			continue;
		r = read_manifest(path, c, &why, false);
		if (r == -EINVAL)
			warn("%s: %s; it is not trusted", ESC(path), why);
		if (!r)
			ret = fn(c, arg);
	}
out:
	if (dir)
		closedir(dir);
	free(c);
	return ret;
}

enum claim_owner claim_owner(const struct claim *c, char *now)
{
	bool quiet = diag_quiet;
	enum claim_owner owner;
	struct policy p;
	struct stat st;
	int ret;

	if (c->policy[0] != '/')
		return CLAIM_UNKNOWN;
	if (stat(c->policy, &st))
		return errno == ENOENT || errno == ENOTDIR ? CLAIM_GONE : CLAIM_UNKNOWN;
	/*
	 * No apply reads a directory or a FIFO as a policy; one planted where
	 * a deleted policy was (in a sticky directory) must not make its pins
	 * look claimed.
	 */
	if (!S_ISREG(st.st_mode))
		return CLAIM_GONE;
	policy_init(&p);
	diag_quiet = true;	/* its own apply says what is wrong with it */
	ret = policy_load(&p, c->policy);
	diag_quiet = quiet;
	if (ret == -EPERM)
		owner = CLAIM_GONE;	/* no apply would read it */
	else if (ret)
		owner = CLAIM_UNKNOWN;
	else if (!strcmp(p.pin_dir ?: POLICY_DEFAULT_PIN_DIR, c->pin_dir))
		owner = CLAIM_LIVE;
	else
		owner = CLAIM_MOVED;
	if (owner == CLAIM_MOVED && now)
		snprintf(now, PATH_MAX, "%s", p.pin_dir ?: POLICY_DEFAULT_PIN_DIR);
	policy_free(&p);
	return owner;
}

int claim_pins(const struct claim *c, char ***names, size_t *n)
{
	struct pin_dir d;
	size_t kept = 0;
	int ret;

	*names = NULL;
	*n = 0;
	pindir_init(&d);
	snprintf(d.path, sizeof(d.path), "%s", c->pin_dir);
	d.cur_fd = open_pin_dir(c->pin_dir);
	if (d.cur_fd == -ENOENT)
		return 0;
	if (d.cur_fd < 0)
		return d.cur_fd;
	ret = pindir_names(&d, names, n);
	for (size_t i = 0; !ret && i < *n; i++) {
		if (pin_foreign(&d, (*names)[i]))
			free((*names)[i]);
		else
			(*names)[kept++] = (*names)[i];
	}
	if (!ret)
		*n = kept;
	close(d.cur_fd);
	return ret;
}

int claim_drop(const struct claim *c)
{
	return unlink(c->file) && errno != ENOENT ? -errno : 0;
}

bool claim_pin_dir_mine(const char *pin_dir, const char *policy)
{
	char abs[PATH_MAX], **names = NULL;
	struct claim *c = malloc(sizeof(*c));
	bool mine = false;
	size_t n = 0;
	int ret;

	if (!c || claim_policy_name(policy, abs))
		goto out;
	ret = read_claim(pin_dir, c, true);
	if (!ret) {
		mine = claim_is(c, abs, policy);
		goto out;
	}
	if (ret != -ENOENT)
		goto out;	/* not trusted (said): another's */
	memset(c, 0, sizeof(*c));
	snprintf(c->pin_dir, sizeof(c->pin_dir), "%s", pin_dir);
	mine = !claim_pins(c, &names, &n) && !n;
	pindir_free_names(names, n);
out:
	free(c);
	return mine;
}
