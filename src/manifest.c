// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "diag.h"
#include "manifest.h"

void manifest_path(const char *pin_dir, const char *suffix, char out[PATH_MAX])
{
	size_t n = snprintf(out, PATH_MAX, "%s/", MANIFEST_DIR);

	for (const char *s = pin_dir + (*pin_dir == '/'); *s && n < PATH_MAX - 32; s++)
		out[n++] = *s == '/' ? '-' : *s;
	snprintf(out + n, PATH_MAX - n, "%s", suffix);
}

int mkdir_manifest_dir(void)
{
	return mkdir(MANIFEST_DIR, 0700) && errno != EEXIST ? -errno : 0;
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
	return o;
}

int manifest_write(const char *pin_dir, const struct manifest_record *recs,
		   size_t n, const char *policy)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	json_object *root, *pins;
	int ret = 0;

	ret = mkdir_manifest_dir();
	if (ret)
		goto out_err;
	manifest_path(pin_dir, ".json", path);
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
	     MANIFEST_DIR, strerror(-ret));
	return ret;
}

json_object *manifest_load(const char *pin_dir)
{
	char path[PATH_MAX];

	manifest_path(pin_dir, ".json", path);
	if (access(path, R_OK))
		return NULL;
	return json_object_from_file(path);
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
	return 0;
}
