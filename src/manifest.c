// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "diag.h"
#include "manifest.h"

const char *manifest_dir = MANIFEST_DIR;

/*
 * As systemd-escape --path: the leading '/' dropped, each other '/'
 * becomes '-', letters, digits, ':', '_' and '.' (but a leading one) stay,
 * and every other byte, '-' and the backslash first, becomes \xNN. Then
 * a '-' can only stand for '/', and no two paths give one name.
 */
int manifest_file(const char *path, const char *suffix, char out[PATH_MAX])
{
	size_t n = snprintf(out, PATH_MAX, "%s/", manifest_dir), start = n;
	const unsigned char *s = (const unsigned char *)path + (*path == '/');

	for (; *s; s++) {
		if (n + 4 + strlen(suffix) + sizeof(".tmp") > PATH_MAX)
			return -ENAMETOOLONG;
		if (*s == '/')
			out[n++] = '-';
		else if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			 (*s >= '0' && *s <= '9') || *s == ':' || *s == '_' ||
			 (*s == '.' && n > start))
			out[n++] = *s;
		else
			n += sprintf(out + n, "\\x%02x", *s);
	}
	snprintf(out + n, PATH_MAX - n, "%s", suffix);
	/* A name of more than NAME_MAX bytes cannot be made: say so. */
	return strlen(out + start) + sizeof(".tmp") - 1 > NAME_MAX ? -ENAMETOOLONG : 0;
}

int manifest_path(const char *pin_dir, const char *suffix, char out[PATH_MAX])
{
	return manifest_file(pin_dir, suffix, out);
}

void manifest_legacy_path(const char *pin_dir, const char *suffix, char out[PATH_MAX])
{
	size_t n = snprintf(out, PATH_MAX, "%s/", manifest_dir);

	for (const char *s = pin_dir + (*pin_dir == '/'); *s && n < PATH_MAX - 32; s++)
		out[n++] = *s == '/' ? '-' : *s;
	snprintf(out + n, PATH_MAX - n, "%s", suffix);
}

bool manifest_dir_ours(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && st->st_uid == geteuid() &&
	       !(st->st_mode & 077);
}

int mkdir_manifest_dir(void)
{
	struct stat st;

	if (mkdir(manifest_dir, 0700) && errno != EEXIST)
		return -errno;
	/* One already there must be ours: a directory, not a link, that
	 * no one else may change.
	 */
	if (lstat(manifest_dir, &st))
		return -errno;
	if (!manifest_dir_ours(&st)) {
		err("%s: not a directory of uid %u's with mode 0700 (%s, uid %u, mode %04o); refusing to keep records in it",
		    manifest_dir, (unsigned int)geteuid(),
		    S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ?
		    "a directory" : "not a directory", (unsigned int)st.st_uid,
		    st.st_mode & 07777);
		return -EPERM;
	}
	return 0;
}

static json_object *record_json(const struct manifest_record *r)
{
	char source[PATH_MAX + 16];
	json_object *o;

	snprintf(source, sizeof(source), "%s:%u", r->loc.file, r->loc.line);
	o = json_object_new_object();
	json_object_object_add(o, "link_id", json_object_new_int64(r->link_id));
	json_object_object_add(o, "view", json_object_new_string(r->view));
	json_object_object_add(o, "path", json_object_new_string(r->path));
	json_object_object_add(o, "source", json_object_new_string(source));
	json_object_object_add(o, "tag", json_object_new_string(r->tag));
	json_object_object_add(o, "entry", json_object_new_string(r->entry));
	if (r->unsafe && *r->unsafe)
		json_object_object_add(o, "unsafe", json_object_new_string(r->unsafe));
	return o;
}

int manifest_write(const char *pin_dir, const struct manifest_record *recs,
		   size_t n, const char *policy)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	json_object *root, *pins;
	int ret = 0;

	ret = mkdir_manifest_dir() ?: manifest_path(pin_dir, ".json", path);
	if (ret)
		goto out_err;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	root = json_object_new_object();
	pins = json_object_new_object();
	json_object_object_add(root, "pin_dir", json_object_new_string(pin_dir));
	json_object_object_add(root, "policy", json_object_new_string(policy));
	json_object_object_add(root, "pins", pins);
	for (size_t i = 0; i < n; i++)
		json_object_object_add(pins, recs[i].name, record_json(&recs[i]));
	/* Written whole, then renamed: a reader sees one manifest or the
	 * other.
	 */
	if (json_object_to_file_ext(tmp, root, JSON_C_TO_STRING_PRETTY) ||
	    chmod(tmp, 0600) || rename(tmp, path))
		ret = -errno ?: -EIO;
	json_object_put(root);
	if (!ret)
		return 0;
	unlink(tmp);
out_err:
	warn("%s: cannot write the manifest: %s; list and audit will not know the paths",
	     manifest_dir, strerror(-ret));
	return ret;
}

/* The manifest at PATH if it says it is PIN_DIR's, else NULL. */
static json_object *load_own(const char *path, const char *pin_dir)
{
	json_object *m, *v;

	if (access(path, R_OK) || !(m = json_object_from_file(path)))
		return NULL;
	if (json_object_object_get_ex(m, "pin_dir", &v) &&
	    !strcmp(json_object_get_string(v) ?: "", pin_dir))
		return m;
	json_object_put(m);
	return NULL;
}

json_object *manifest_load(const char *pin_dir)
{
	char path[PATH_MAX];
	json_object *m = NULL;

	/* An older fsiter-pin named /a-b's manifest as this one names
	 * /a/b's: each counts only if it says it is PIN_DIR's.
	 */
	if (!manifest_path(pin_dir, ".json", path))
		m = load_own(path, pin_dir);
	if (!m) {
		manifest_legacy_path(pin_dir, ".json", path);
		m = load_own(path, pin_dir);
	}
	return m;
}

int manifest_lookup(json_object *manifest, const char *name, __u32 link_id,
		    struct manifest_entry *out)
{
	json_object *pins, *o, *v;

	if (!manifest || !json_object_object_get_ex(manifest, "pins", &pins) ||
	    !json_object_object_get_ex(pins, name, &o) ||
	    !json_object_object_get_ex(o, "link_id", &v) ||
	    (__u32)json_object_get_int64(v) != link_id)
		return -ENOENT;
	if (!json_object_object_get_ex(o, "path", &v))
		v = NULL;
	snprintf(out->path, sizeof(out->path), "%s", json_object_get_string(v) ?: "");
	if (!json_object_object_get_ex(o, "source", &v))
		v = NULL;
	snprintf(out->source, sizeof(out->source), "%s",
		 json_object_get_string(v) ?: "");
	if (!json_object_object_get_ex(o, "entry", &v))
		v = NULL;
	snprintf(out->entry, sizeof(out->entry), "%s", json_object_get_string(v) ?: "");
	if (!json_object_object_get_ex(o, "unsafe", &v))
		v = NULL;
	snprintf(out->unsafe, sizeof(out->unsafe), "%s", json_object_get_string(v) ?: "");
	return 0;
}
