// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "diag.h"
#include "fault.h"
#include "fsiter_uapi.h"
#include "perms.h"
#include "plan.h"

enum view_variant plan_variant(const struct policy_entry *e)
{
	return (e->options & POLICY_OPT_EXPOSE_CACHE) ? VIEW_ALL : VIEW_CHECKED;
}

/* Is the link attached to T, as link info identifies it? */
static bool same_target(const struct view_desc *view, const struct target *t,
			const struct pin_info *pi)
{
	if (view->target == VIEW_TARGET_MNT)
		return pi->fs_type == FSITER_FS_ITER_MNT &&
		       (int)pi->mnt_id == t->mnt_id;
	return pi->fs_type == FSITER_FS_ITER_INODE && pi->ino == t->ino &&
	       pi->dev == (__u32)t->dev;
}

unsigned int pin_drift(const struct plan_item *it, const struct pin_info *pi,
		       const struct view_prog *v)
{
	const struct policy_entry *e = it->entry;
	enum view_variant want = plan_variant(e), have;
	const struct view_desc *pv;
	unsigned int drift = 0;

	if (!pi->is_link)
		return DRIFT_FOREIGN;
	pv = view_by_prog_name(pi->prog_name, &have);
	if (!pv)
		drift |= DRIFT_FOREIGN;
	else if (pv != e->view)
		drift |= DRIFT_VIEW;
	else if (have != want)
		drift |= DRIFT_VARIANT;
	else if (strcmp(pi->tag, v->tag[want]))
		drift |= DRIFT_PROGRAM;

	if (pi->gone)
		drift |= DRIFT_GONE;
	else if (it->target.fd >= 0 && !same_target(e->view, &it->target, pi))
		drift |= DRIFT_TARGET;
	return drift;
}

/* Is the pin what ITEM asks for? NULL if so, else what differs. */
static const char *pin_differs(struct plan_item *it, struct pin_dir *d,
			       const struct pin_info *pi,
			       const struct view_prog *v)
{
	unsigned int drift = pin_drift(it, pi, v);
	char path[PATH_MAX];
	const char *what = NULL;
	int r;

	if (drift & (DRIFT_FOREIGN | DRIFT_PROGRAM))
		return "program";
	if (drift & DRIFT_VIEW)
		return "view";
	if (drift & DRIFT_VARIANT)
		return "expose-cache";
	if (drift & (DRIFT_GONE | DRIFT_TARGET))
		return "target";
	if (path_join(path, d->path, it->entry->name))
		return "path";
	r = perms_match(d->cur_fd, it->entry->name, path, it->entry, &what);
	if (r < 0)
		return "owner, mode or ACL";
	return r ? NULL : what;
}

int plan_compare(struct plan *pl, struct pin_dir *d)
{
	char **names = NULL;
	size_t n = 0;
	int ret;

	ret = pindir_names(d, &names, &n);
	if (ret) {
		err("%s: %s", d->path, strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < pl->nr_items; i++) {
		struct plan_item *it = &pl->items[i];
		struct pin_info pi;
		bool exists = false;

		if (it->action == PLAN_SKIP)
			continue;
		for (size_t j = 0; j < n; j++)
			if (names[j] && !strcmp(names[j], it->entry->name)) {
				free(names[j]);
				names[j] = NULL;
				exists = true;
			}
		if (!exists) {
			it->action = PLAN_CREATE;
			continue;
		}
		ret = pin_read(d, it->entry->name, &pi);
		if (ret) {
			err("%s/%s: %s", d->path, it->entry->name, strerror(-ret));
			goto out;
		}
		it->why = pin_differs(it, d, &pi, &pl->views[it->entry->view->id]);
		it->action = it->why ? PLAN_REPLACE : PLAN_KEEP;
	}
	/* What is left is in no entry: stale. */
	pl->stale = calloc(n + 1, sizeof(*pl->stale));
	if (!pl->stale) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t j = 0; j < n; j++)
		if (names[j]) {
			pl->stale[pl->nr_stale++] = names[j];
			names[j] = NULL;
		}
	ret = 0;
out:
	pindir_free_names(names, n);
	return ret;
}

bool plan_has_changes(const struct plan *pl)
{
	if (pl->nr_stale)
		return true;
	for (size_t i = 0; i < pl->nr_items; i++)
		if (pl->items[i].action == PLAN_CREATE ||
		    pl->items[i].action == PLAN_REPLACE)
			return true;
	return false;
}

void plan_print(const struct plan *pl, bool dry_run)
{
	size_t created = 0, replaced = 0, kept = 0, skipped = 0;

	for (size_t i = 0; i < pl->nr_items; i++) {
		const struct plan_item *it = &pl->items[i];
		const struct policy_entry *e = it->entry;

		switch (it->action) {
		case PLAN_CREATE:
			printf("%s %s: %s of %s\n", dry_run ? "would create" : "created",
			       e->name, e->view->name, e->path);
			created++;
			break;
		case PLAN_REPLACE:
			printf("%s %s: %s of %s (%s differs)\n",
			       dry_run ? "would replace" : "replaced", e->name,
			       e->view->name, e->path, it->why);
			replaced++;
			break;
		case PLAN_KEEP:
			info_v("unchanged %s", e->name);
			kept++;
			break;
		case PLAN_SKIP:
			skipped++;
			break;
		}
	}
	for (size_t i = 0; i < pl->nr_stale; i++)
		printf("%s %s: not in the policy\n",
		       dry_run ? "would remove" : "removed", pl->stale[i]);
	if (!plan_has_changes(pl)) {
		printf("nothing to do: %zu pin%s match%s the policy\n", kept,
		       kept == 1 ? "" : "s", kept == 1 ? "es" : "");
		return;
	}
	printf("%s%zu created, %zu replaced, %zu removed, %zu unchanged",
	       dry_run ? "dry run, nothing changed: " : "", created, replaced,
	       pl->nr_stale, kept);
	if (skipped)
		printf(", %zu skipped (nofail)", skipped);
	printf("\n");
}

int plan_stage(struct plan *pl, struct pin_dir *d)
{
	int ret = 0;

	for (size_t i = 0; i < pl->nr_items && !ret; i++) {
		struct plan_item *it = &pl->items[i];
		const struct policy_entry *e = it->entry;
		struct bpf_link *link = NULL;
		char path[PATH_MAX];

		if (it->action == PLAN_KEEP) {
			ret = gen_keep(d, e->name);
			continue;
		}
		if (it->action == PLAN_SKIP)
			continue;
		ret = fault_at("attach");
		if (!ret)
			ret = view_attach(&pl->views[e->view->id], plan_variant(e),
					  it->target.fd, &link);
		if (ret) {
			err_at(&e->loc, "'%s': cannot attach view '%s' to %s: %s",
			       e->name, e->view->name, e->path, strerror(-ret));
			break;
		}
		ret = path_join(path, d->new_path, e->name);
		if (!ret)
			ret = fault_at("pin");
		if (!ret)
			ret = bpf_link__pin(link, path);
		if (ret) {
			err("%s: cannot pin: %s", path, strerror(-ret));
		} else {
			ret = fault_at("perms");
			if (!ret)
				ret = perms_set(d->new_fd, e->name, path, e);
			if (ret)
				err("%s: cannot set owner, mode and ACL: %s", path,
				    strerror(-ret));
		}
		/* The pin holds the link; ours goes. */
		bpf_link__destroy(link);
	}
	return ret;
}

void plan_free(struct plan *pl)
{
	for (size_t i = 0; i < pl->nr_items; i++)
		target_close(&pl->items[i].target);
	free(pl->items);
	for (size_t i = 0; i < pl->nr_stale; i++)
		free(pl->stale[i]);
	free(pl->stale);
	for (int v = 0; v < VIEW_COUNT; v++)
		view_unload(&pl->views[v]);
	memset(pl, 0, sizeof(*pl));
}
