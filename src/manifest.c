// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "diag.h"
#include "manifest.h"

/* /run/fsiter-pin/sys-fs-bpf-fsiter.json for /sys/fs/bpf/fsiter. */
static void manifest_path(const char *pin_dir, char out[PATH_MAX])
{
	size_t n = snprintf(out, PATH_MAX, "%s/", MANIFEST_DIR);

	for (const char *s = pin_dir + (*pin_dir == '/'); *s && n < PATH_MAX - 6; s++)
		out[n++] = *s == '/' ? '-' : *s;
	snprintf(out + n, PATH_MAX - n, ".json");
}

static json_object *entry_json(struct pin_dir *d, const struct plan_item *it)
{
	const struct policy_entry *e = it->entry;
	char source[PATH_MAX + 16];
	struct pin_info pi;
	json_object *o;

	if (pin_read(d, e->name, &pi) || !pi.is_link)
		return NULL;
	snprintf(source, sizeof(source), "%s:%u", e->loc.file, e->loc.line);
	o = json_object_new_object();
	json_object_object_add(o, "link_id", json_object_new_int64(pi.link_id));
	json_object_object_add(o, "view", json_object_new_string(e->view->name));
	json_object_object_add(o, "path", json_object_new_string(e->path));
	json_object_object_add(o, "source", json_object_new_string(source));
	json_object_object_add(o, "tag", json_object_new_string(pi.tag));
	return o;
}

int manifest_write(struct pin_dir *d, const struct plan *pl,
		   const char *policy)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	json_object *root, *pins;
	int ret = 0;

	if (mkdir(MANIFEST_DIR, 0700) && errno != EEXIST) {
		ret = -errno;
		goto out_err;
	}
	manifest_path(d->path, path);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	root = json_object_new_object();
	pins = json_object_new_object();
	json_object_object_add(root, "pin_dir", json_object_new_string(d->path));
	json_object_object_add(root, "policy", json_object_new_string(policy));
	json_object_object_add(root, "pins", pins);
	for (size_t i = 0; i < pl->nr_items; i++) {
		json_object *o;

		if (pl->items[i].action == PLAN_SKIP)
			continue;
		o = entry_json(d, &pl->items[i]);
		if (o)
			json_object_object_add(pins, pl->items[i].entry->name, o);
	}
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

	manifest_path(pin_dir, path);
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
	return 0;
}
