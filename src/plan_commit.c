// SPDX-License-Identifier: GPL-2.0
/* plan_commit(): the next pin directory, and the switch to it; plan.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "apply_state.h"
#include "diag.h"
#include "fault.h"
#include "manifest.h"
#include "perms.h"
#include "plan.h"

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

/* Attach IT's view to its target and pin it in the next directory, with
 * the entry's owner, mode and ACL.
 */
static int stage_new(struct plan *pl, const struct plan_item *it)
{
	const struct policy_entry *e = it->entry;
	struct pin_dir *d = &pl->dir;
	struct bpf_link *link = NULL;
	char path[PATH_MAX];
	int ret;

	ret = fault_at("attach");
	if (!ret)
		ret = view_attach(&pl->views[e->view->id], plan_link_flags(e),
				  it->target.fd, &link);
	if (ret) {
		err_at(&e->loc, "'%s': cannot attach view '%s' to %s: %s",
		       e->name, e->view->name, e->path, strerror(-ret));
		return ret;
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
	return ret;
}

/* Fill the next generation of the pin directory. */
static int stage(struct plan *pl)
{
	int ret = 0;

	for (size_t i = 0; i < pl->nr_items && !ret; i++) {
		const struct plan_item *it = &pl->items[i];

		if (it->action == PLAN_KEEP)
			ret = gen_keep(&pl->dir, it->entry->name);
		else if (it->action != PLAN_SKIP)
			ret = stage_new(pl, it);
	}
	return ret;
}

/* Record what the pins of PL are now, for list and audit. */
static void record(struct plan *pl)
{
	struct manifest_record *recs;
	struct pin_info *pis;
	size_t n = 0;

	recs = calloc(pl->nr_items + 1, sizeof(*recs));
	pis = calloc(pl->nr_items + 1, sizeof(*pis));
	for (size_t i = 0; recs && pis && i < pl->nr_items; i++) {
		const struct policy_entry *e = pl->items[i].entry;

		if (pl->items[i].action == PLAN_SKIP ||
		    pin_read(&pl->dir, e->name, &pis[n]) || !pis[n].is_link)
			continue;
		recs[n] = (struct manifest_record){ e->name, e->view->name, e->path,
						    e->loc, pis[n].link_id, pis[n].tag };
		n++;
	}
	if (recs && pis)
		manifest_write(pl->dir.path, recs, n, pl->policy_path);
	free(recs);
	free(pis);
}

int plan_commit(struct plan *pl)
{
	int ret;

	if (!plan_has_changes(pl)) {
		plan_print(pl, false);
		/* /run may have been emptied: record what is there anyway */
		record(pl);
		return 0;
	}
	ret = gen_begin(&pl->dir);
	if (ret)
		return ret;
	ret = stage(pl);
	if (ret) {
		gen_abort(&pl->dir);
		return ret;
	}
	ret = gen_commit(&pl->dir);
	if (ret)
		return ret;
	record(pl);
	plan_print(pl, false);
	return 0;
}

int plan_apply(const char *policy_path, bool dry_run)
{
	struct plan pl;
	int ret;

	ret = plan_build(&pl, policy_path, dry_run ? PLAN_DRY_RUN : PLAN_APPLY);
	if (!ret && dry_run)
		plan_print(&pl, true);
	else if (!ret)
		ret = plan_commit(&pl);
	if (ret)
		err("%s: nothing was changed", policy_path);
	if (!dry_run)
		apply_state_record(policy_path, ret);	/* for the metrics */
	plan_free(&pl);
	return ret;
}
