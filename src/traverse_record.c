// SPDX-License-Identifier: GPL-2.0
/* grant-traverse's record, shared by every pin directory; traverse.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "diag.h"
#include "lock.h"
#include "manifest.h"
#include "policy.h"
#include "traverse.h"

/* The per-pin-directory record of an older fsiter-pin. */
#define OLD_SUFFIX	".traverse.json"

int traverse_rec_add(struct traverse *t, const char *dir, char tag, unsigned int id)
{
	struct traverse_rec *r;

	for (size_t i = 0; i < t->n; i++)
		if (t->r[i].tag == tag && t->r[i].id == id && !strcmp(t->r[i].dir, dir))
			return 0;
	r = realloc(t->r, (t->n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	t->r = r;
	r[t->n] = (struct traverse_rec){ strdup(dir), tag, id };
	if (!r[t->n].dir)
		return -ENOMEM;
	t->n++;
	t->changed = true;
	return 0;
}

static int need_add(struct traverse *t, const char *pin_dir, char tag, unsigned int id)
{
	struct traverse_need *nd;

	for (size_t i = 0; i < t->nn; i++)
		if (t->need[i].tag == tag && t->need[i].id == id &&
		    !strcmp(t->need[i].pin_dir, pin_dir))
			return 0;
	nd = realloc(t->need, (t->nn + 1) * sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	t->need = nd;
	nd[t->nn] = (struct traverse_need){ strdup(pin_dir), tag, id };
	if (!nd[t->nn].pin_dir)
		return -ENOMEM;
	t->nn++;
	t->changed = true;
	return 0;
}

/* O's "tag" ('u', 'g', 'o', and with ANY 'm', 'c') and "id" (an integer
 * from 0 to 2^32 - 2: (uid_t)-1 is no one); 0 if bad.
 */
static char tag_of(json_object *o, bool any, unsigned int *id)
{
	const char *tag;
	json_object *v;
	int64_t n = 0;

	tag = json_object_object_get_ex(o, "tag", &v) ? json_object_get_string(v) : NULL;
	if (!tag || !*tag || tag[1] || !strchr(any ? "ugomc" : "ugo", *tag))
		return 0;
	if (json_object_object_get_ex(o, "id", &v)) {
		if (!json_object_is_type(v, json_type_int))
			return 0;
		n = json_object_get_int64(v);
	}
	if (n < 0 || n >= (int64_t)UINT32_MAX)
		return 0;
	*id = (unsigned int)n;
	return *tag;
}

/* The array of {dir, tag, id} AR into T's records. */
static int load_added(struct traverse *t, json_object *ar)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < json_object_array_length(ar); i++) {
		json_object *o = json_object_array_get_idx(ar, i), *v;
		const char *dir;
		unsigned int id;
		char tag = tag_of(o, true, &id);

		dir = json_object_object_get_ex(o, "dir", &v) ? json_object_get_string(v) : NULL;
		ret = dir && *dir == '/' && tag ? traverse_rec_add(t, dir, tag, id) : -EBADMSG;
	}
	return ret;
}

/* The object {pin_dir: [{tag, id}...]} OBJ into T's readers. */
static int load_readers(struct traverse *t, json_object *obj)
{
	int ret = 0;

	json_object_object_foreach(obj, pin_dir, ar) {
		if (!ret && (*pin_dir != '/' || !json_object_is_type(ar, json_type_array)))
			ret = -EBADMSG;
		for (size_t i = 0; !ret && i < json_object_array_length(ar); i++) {
			unsigned int id;
			char tag = tag_of(json_object_array_get_idx(ar, i), false, &id);

			ret = tag ? need_add(t, pin_dir, tag, id) : -EBADMSG;
		}
	}
	return ret;
}

static int take_lock(struct traverse *t)
{
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", manifest_dir, TRAVERSE_LOCK);
	ret = mkdir_manifest_dir();
	if (!ret) {
		t->lock_fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		ret = t->lock_fd < 0 ? -errno : 0;
	}
	if (ret) {
		err("%s: cannot open the lock of grant-traverse's record: %s", path,
		    strerror(-ret));
		return ret;
	}
	return lock_wait(t->lock_fd, path, LOCK_EX);
}

/* PIN_DIR and its work directory are both gone (ENOENT): 1, else 0. */
static int pin_dir_gone(const char *pin_dir)
{
	char work[PATH_MAX];
	struct stat st;

	if (!lstat(pin_dir, &st) || errno != ENOENT)
		return 0;
	if (snprintf(work, sizeof(work), "%s%s", pin_dir, POLICY_WORK_SUFFIX) >=
	    (int)sizeof(work))
		return 0;
	return lstat(work, &st) && errno == ENOENT;
}

/*
 * The readers of pin directories that are gone: stale. A first apply
 * records its readers before its pin directory exists (it appears at the
 * commit's rename), but its work directory exists from the start: only
 * both gone make a pin directory gone.
 */
static void mark_stale(struct traverse *t, bool say)
{
	for (size_t i = 0; i < t->nn; i++) {
		struct traverse_need *nd = &t->need[i];

		if (!strcmp(nd->pin_dir, t->pin_dir) || !pin_dir_gone(nd->pin_dir))
			continue;
		if (say && (!i || strcmp(t->need[i - 1].pin_dir, nd->pin_dir)))
			info("forgot the readers of %s in grant-traverse's record: that pin directory no longer exists",
			     ESC(nd->pin_dir));
		nd->stale = true;
		t->changed = true;
	}
}

int traverse_load(struct traverse *t, const char *pin_dir, bool lock)
{
	json_object *root = NULL, *v;
	char path[PATH_MAX];
	int ret = 0;

	memset(t, 0, sizeof(*t));
	t->lock_fd = -1;
	t->pin_dir = pin_dir;
	if (lock && (ret = take_lock(t)))
		return ret;
	snprintf(path, sizeof(path), "%s/%s", manifest_dir, TRAVERSE_RECORD);
	if (!access(path, F_OK)) {
		/* Fail closed: a record that cannot be read whole would be
		 * overwritten, losing what grant-traverse added and the
		 * other pin directories' readers.
		 */
		root = json_object_from_file(path);
		if (!root || !json_object_is_type(root, json_type_object))
			ret = -EBADMSG;
		if (!ret && json_object_object_get_ex(root, "added", &v))
			ret = json_object_is_type(v, json_type_array) ? load_added(t, v) :
			      -EBADMSG;
		if (!ret && json_object_object_get_ex(root, "readers", &v))
			ret = json_object_is_type(v, json_type_object) ? load_readers(t, v) :
			      -EBADMSG;
		json_object_put(root);
		if (ret == -EBADMSG) {
			err("%s: not a valid record of grant-traverse; nothing is given or taken back until it is repaired or removed (then the search permissions it named must be checked by hand)",
			    path);
			return ret;
		}
	} else if (errno != ENOENT) {
		ret = -errno;
	}
	/* What an older fsiter-pin recorded for PIN_DIR alone: its own. */
	if (!ret && !manifest_path(pin_dir, OLD_SUFFIX, path) && !access(path, F_OK)) {
		root = json_object_from_file(path);
		if (root && json_object_is_type(root, json_type_array)) {
			ret = load_added(t, root);
			snprintf(t->old, sizeof(t->old), "%s", path);
		}
		json_object_put(root);
	}
	if (ret)
		err("%s: cannot read grant-traverse's record: %s", manifest_dir,
		    strerror(-ret));
	t->changed = t->old[0];
	if (!ret)
		mark_stale(t, lock);
	return ret;
}

int traverse_forget(const char *pin_dir)
{
	char path[PATH_MAX];
	struct traverse t;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", manifest_dir, TRAVERSE_RECORD);
	if (access(path, F_OK) && errno == ENOENT)
		return 0;	/* nothing to forget */
	ret = traverse_load(&t, pin_dir, true) ?: traverse_set_readers(&t, NULL, 0) ?:
	      traverse_save(&t);
	traverse_free(&t);
	return ret;
}

static json_object *entry_json(const char *dir, char tag, unsigned int id)
{
	json_object *o = json_object_new_object();
	char s[2] = { tag, '\0' };

	if (dir)
		json_object_object_add(o, "dir", json_object_new_string(dir));
	json_object_object_add(o, "tag", json_object_new_string(s));
	json_object_object_add(o, "id", json_object_new_int64(id));
	return o;
}

static json_object *record_json(const struct traverse *t)
{
	json_object *root = json_object_new_object(), *added, *readers, *ar;

	added = json_object_new_array();
	readers = json_object_new_object();
	json_object_object_add(root, "added", added);
	json_object_object_add(root, "readers", readers);
	for (size_t i = 0; i < t->n; i++)
		json_object_array_add(added, entry_json(t->r[i].dir, t->r[i].tag, t->r[i].id));
	for (size_t i = 0; i < t->nn; i++) {
		const struct traverse_need *nd = &t->need[i];

		if (nd->stale)
			continue;
		if (!json_object_object_get_ex(readers, nd->pin_dir, &ar)) {
			ar = json_object_new_array();
			json_object_object_add(readers, nd->pin_dir, ar);
		}
		json_object_array_add(ar, entry_json(NULL, nd->tag, nd->id));
	}
	return root;
}

/* JSON to PATH, whole and on disk before it replaces the old file. */
static int write_durably(json_object *root, const char *path)
{
	char tmp[PATH_MAX + 8];
	int fd, dfd, ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (json_object_to_fd(fd, root, JSON_C_TO_STRING_PRETTY |
						 JSON_C_TO_STRING_NOSLASHESCAPE) || fsync(fd))
		ret = -errno ?: -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	dfd = open(manifest_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd))
		ret = -errno;
	if (dfd >= 0)
		close(dfd);
	return ret;
}

int traverse_save(struct traverse *t)
{
	char path[PATH_MAX];
	json_object *root;
	int ret;

	if (!t->changed)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", manifest_dir, TRAVERSE_RECORD);
	root = record_json(t);
	errno = 0;
	ret = mkdir_manifest_dir() ?: root ? write_durably(root, path) : -ENOMEM;
	json_object_put(root);
	if (ret) {
		err("%s: cannot record what grant-traverse changed: %s%s%s", path,
		    strerror(-ret),
		    t->given ? "; a later apply will not know to take back the search permissions it gave now" : "",
		    t->taken ? "; a later apply will try to take back again what it took back now" : "");
		return ret;
	}
	if (t->old[0] && !unlink(t->old))
		t->old[0] = '\0';
	t->changed = false;
	return 0;
}

void traverse_free(struct traverse *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->r[i].dir);
	free(t->r);
	for (size_t i = 0; i < t->nn; i++)
		free(t->need[i].pin_dir);
	free(t->need);
	if (t->lock_fd >= 0)
		close(t->lock_fd);	/* drops the lock */
	memset(t, 0, sizeof(*t));
	t->lock_fd = -1;
}

void traverse_truncate(struct traverse *t, size_t n)
{
	while (t->n > n) {
		free(t->r[--t->n].dir);
		t->changed = true;
	}
}

char traverse_reader_tag(const struct reader *r)
{
	return r->kind == READER_USER ? 'u' : r->kind == READER_GROUP ? 'g' : 'o';
}

int traverse_set_readers(struct traverse *t, const struct reader *rs, size_t n)
{
	size_t kept = 0, had = 0, same = 0;
	int ret = 0;

	for (size_t i = 0; i < t->nn; i++) {
		bool mine = !strcmp(t->need[i].pin_dir, t->pin_dir);

		had += mine;
		for (size_t j = 0; mine && j < n; j++)
			if (traverse_reader_tag(&rs[j]) == t->need[i].tag &&
			    (t->need[i].tag == 'o' || rs[j].id == t->need[i].id)) {
				same++;
				break;
			}
	}
	if (had == n && same == n)
		return 0;
	for (size_t i = 0; i < t->nn; i++) {
		if (strcmp(t->need[i].pin_dir, t->pin_dir))
			t->need[kept++] = t->need[i];
		else
			free(t->need[i].pin_dir);
	}
	t->nn = kept;
	t->changed = true;
	for (size_t i = 0; !ret && i < n; i++)
		ret = need_add(t, t->pin_dir, traverse_reader_tag(&rs[i]),
			       rs[i].kind == READER_OTHER ? 0 : rs[i].id);
	return ret;
}

/* Is DIR on the way to PIN_DIR: "/", PIN_DIR or one of its parents? */
static bool on_way(const char *dir, const char *pin_dir)
{
	size_t len = strlen(dir);

	return !strcmp(dir, "/") ||
	       (!strncmp(dir, pin_dir, len) && (pin_dir[len] == '/' || !pin_dir[len]));
}

/* Is user UID a member of group GID (its primary group or another)? */
static bool member(unsigned int uid, unsigned int gid)
{
	gid_t gids[NGROUPS_MAX + 1];
	int n = NGROUPS_MAX + 1;
	struct passwd *pw = getpwuid(uid);

	if (!pw || getgrouplist(pw->pw_name, pw->pw_gid, gids, &n) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (gids[i] == gid)
			return true;
	return false;
}

bool traverse_needed(const struct traverse *t, const char *dir, char tag,
		     unsigned int id, bool members)
{
	for (size_t i = 0; i < t->nn; i++) {
		const struct traverse_need *nd = &t->need[i];

		if (nd->stale || !on_way(dir, nd->pin_dir))
			continue;
		if (nd->tag == tag && (tag == 'o' || nd->id == id))
			return true;
		if (tag == 'g' && nd->tag == 'u' &&
		    (members || strcmp(nd->pin_dir, t->pin_dir)) && member(nd->id, id))
			return true;
	}
	return false;
}

const struct traverse_need *traverse_cuts_off(const struct traverse *t, const char *dir,
					      acl_t before, acl_t after,
					      const struct stat *st, bool own)
{
	for (size_t i = 0; i < t->nn; i++) {
		const struct traverse_need *nd = &t->need[i];
		struct reader r = { nd->tag == 'u' ? READER_USER :
				    nd->tag == 'g' ? READER_GROUP : READER_OTHER, nd->id };

		if (nd->stale || !on_way(dir, nd->pin_dir) ||
		    (!own && !strcmp(nd->pin_dir, t->pin_dir)))
			continue;
		if (reach_may_search(before, st, &r) && !reach_may_search(after, st, &r))
			return nd;
	}
	return NULL;
}
