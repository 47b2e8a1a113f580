// SPDX-License-Identifier: GPL-2.0
/* What a plan does, in words: plan_print() and its counts; plan.h. */
#include <stdio.h>
#include "diag.h"
#include "plan.h"

bool plan_has_changes(const struct plan *pl)
{
	if (pl->nr_stale)
		return true;
	for (size_t i = 0; i < pl->nr_items; i++)
		if (pl->items[i].action == PLAN_CREATE ||
		    pl->items[i].action == PLAN_REPLACE ||
		    (pl->items[i].action == PLAN_FAIL && pl->items[i].pinned))
			return true;
	return false;
}

size_t plan_failed(const struct plan *pl)
{
	size_t n = 0;

	for (size_t i = 0; i < pl->nr_items; i++)
		n += pl->items[i].action == PLAN_FAIL || pl->items[i].held ||
		     pl->items[i].unreachable;
	return n;
}

void plan_print(const struct plan *pl, bool dry_run)
{
	size_t created = 0, replaced = 0, kept = 0, skipped = 0, dropped = 0;

	if (dry_run && pl->dir_drift[0])
		outf("would restore %s: root's, mode %04o, no ACL entries (it has %s)\n",
		     ESC(pl->pin_dir), (unsigned int)pl->dir.mode, pl->dir_drift);

	for (size_t i = 0; i < pl->nr_items; i++) {
		const struct plan_item *it = &pl->items[i];
		const struct policy_entry *e = it->entry;

		switch (it->action) {
		case PLAN_CREATE:
			outf("%s %s: %s of %s\n", dry_run ? "would create" : "created",
			     ESC(e->name), e->view->name, ESC(e->path));
			created++;
			break;
		case PLAN_REPLACE:
			outf("%s %s: %s of %s (%s differs)\n",
			     dry_run ? "would replace" : "replaced", ESC(e->name),
			     e->view->name, ESC(e->path), it->why);
			replaced++;
			break;
		case PLAN_KEEP:
			if (it->held)
				outf("%s %s: its last good pin (the entry failed; its grant did not change)\n",
				     dry_run ? "would keep" : "kept", ESC(e->name));
			else
				info_v("unchanged %s", e->name);
			kept++;
			break;
		case PLAN_SKIP:
			skipped++;
			break;
		case PLAN_FAIL:
			if (!it->pinned)
				break;
			outf("%s %s: its entry failed\n",
			     dry_run ? "would remove" : "removed", ESC(e->name));
			dropped++;
			break;
		}
	}
	for (size_t i = 0; i < pl->nr_stale; i++)
		outf("%s %s: not in the policy\n",
		     dry_run ? "would remove" : "removed", ESC(pl->stale[i]));
	/* With entries that failed there was something to do: the summary. */
	if (!plan_has_changes(pl) && !plan_failed(pl) && !plan_moved_removed(pl)) {
		printf("nothing to do: %zu pin%s match%s the policy\n", kept,
		       kept == 1 ? "" : "s", kept == 1 ? "es" : "");
		return;
	}
	printf("%s%zu created, %zu replaced, %zu removed, %zu unchanged",
	       dry_run ? "dry run, nothing changed: " : "", created, replaced,
	       pl->nr_stale + dropped + plan_moved_removed(pl), kept);
	if (skipped)
		printf(", %zu skipped (nofail)", skipped);
	if (plan_failed(pl))
		printf(", %zu failed", plan_failed(pl));
	printf("\n");
}
