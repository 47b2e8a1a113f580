// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <acl/libacl.h>
#include "diag.h"
#include "manifest.h"
#include "pin_info.h"
#include "fsiter_uapi.h"
#include "fault.h"
#include "pin_json.h"
#include "reach.h"
#include "target_kind.h"

static json_object *str_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static json_object *target_json(const struct pin_info *pi)
{
	const struct target_kind *k = target_kind_of_type(pi->fs_type);
	json_object *t = json_object_new_object();

	json_object_object_add(t, "type", json_object_new_string(k->name));
	json_object_object_add(t, "mnt_id", json_object_new_int64(pi->mnt_id));
	k->to_json(t, pi);
	json_object_object_add(t, "gone", json_object_new_boolean(pi->gone));
	return t;
}

const char *pin_json_get(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return "-";
	return json_object_get_string(v);
}

/* The pin's named ACL entries ("u:fsb:r--,g:fsreaders:r--"), or NULL. */
static char *named_acl(const char *path)
{
	acl_t acl = acl_get_file(path, ACL_TYPE_ACCESS);
	char *text = NULL, *tok, *save = NULL, *out = NULL;
	size_t len = 0;

	if (acl && acl_equiv_mode(acl, NULL) == 1)
		text = acl_to_any_text(acl, NULL, ',', TEXT_ABBREVIATE);
	for (tok = text ? strtok_r(text, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *o;

		/* u::, g::, m:: and o:: are the mode's; the rest are grants */
		if (tok[1] == ':' && tok[2] == ':')
			continue;
		o = realloc(out, len + strlen(tok) + 2);
		if (!o)
			break;
		out = o;
		len += sprintf(out + len, "%s%s", len ? "," : "", tok);
	}
	acl_free(text);
	acl_free(acl);
	return out;
}

json_object *pin_json(struct pin_dir *d, const char *name, json_object *manifest,
		      int *error)
{
	struct manifest_entry me = { "", "" };
	const struct view_desc *v = NULL;
	char path[PATH_MAX], *readers = NULL, mode[8];
	struct pin_info pi;
	struct passwd *pw;
	struct group *gr;
	json_object *o, *arr;
	char *acl, *tok, *save = NULL;
	int ret;

	ret = path_join(path, d->path, name);
	if (!ret)
		ret = fault_at("read");
	if (!ret)
		ret = pin_read(d, name, &pi);
	if (ret) {
		err("%s/%s: %s", d->path, name, strerror(-ret));
		*error = ret;
		return NULL;
	}
	if (pi.is_link) {
		v = view_by_prog_name(pi.prog_name);
		manifest_lookup(manifest, name, pi.link_id, &me);
	}
	o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "view", str_or_null(v ? v->name : NULL));
	json_object_object_add(o, "expose_cache",
			       json_object_new_boolean(pi.flags & FSITER_F_EXPOSE_CACHE));
	json_object_object_add(o, "expose_totals",
			       json_object_new_boolean(pi.flags & FSITER_F_WITHHELD_SUMS));
	json_object_object_add(o, "top", pi.top ? json_object_new_int64(pi.top) : NULL);
	json_object_object_add(o, "path", str_or_null(me.path));
	json_object_object_add(o, "source", str_or_null(me.source));
	json_object_object_add(o, "target", pi.is_link ? target_json(&pi) : NULL);
	json_object_object_add(o, "link_id", json_object_new_int64(pi.link_id));
	json_object_object_add(o, "prog_id", json_object_new_int64(pi.prog_id));
	json_object_object_add(o, "prog_name", str_or_null(pi.prog_name));
	json_object_object_add(o, "tag", str_or_null(pi.is_link ? pi.tag : NULL));
	pw = getpwuid(pi.uid);
	gr = getgrgid(pi.gid);
	json_object_object_add(o, "owner", pw ? json_object_new_string(pw->pw_name) :
			       json_object_new_int64(pi.uid));
	json_object_object_add(o, "group", gr ? json_object_new_string(gr->gr_name) :
			       json_object_new_int64(pi.gid));
	snprintf(mode, sizeof(mode), "%04o", pi.mode & 07777);
	json_object_object_add(o, "mode", json_object_new_string(mode));
	acl = named_acl(path);
	json_object_object_add(o, "acl", str_or_null(acl));
	free(acl);
	arr = json_object_new_array();
	if (!reach_readers(path, d->path, &readers) && strcmp(readers, "-"))
		for (tok = strtok_r(readers, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			json_object_array_add(arr, json_object_new_string(tok));
	free(readers);
	json_object_object_add(o, "readers", arr);
	return o;
}

json_object *pin_json_all(struct pin_dir *d, int *error)
{
	json_object *arr = json_object_new_array(), *manifest;
	char **names = NULL;
	size_t n = 0;
	int ret;

	*error = pindir_names(d, &names, &n);
	if (*error) {
		err("%s: cannot list it: %s", d->path, strerror(-*error));
		return arr;
	}
	manifest = manifest_load(d->path);
	for (size_t i = 0; i < n; i++) {
		json_object *o = pin_json(d, names[i], manifest, &ret);

		if (o)
			json_object_array_add(arr, o);
		else if (!*error)
			*error = ret;
	}
	json_object_put(manifest);
	pindir_free_names(names, n);
	return arr;
}
