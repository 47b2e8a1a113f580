/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What apply will do: the policy against the pins in place, then the
 * change itself, as a transaction: new pins are built in the staging
 * directory with their final owner, mode and ACL, then renamed into place
 * (exchanged with the pin they replace); stale pins are moved out. Any
 * failure undoes the renames done so far.
 */
#ifndef FSITER_PLAN_H
#define FSITER_PLAN_H

#include <stdbool.h>
#include "pins.h"
#include "policy.h"
#include "targets.h"
#include "views.h"

enum plan_action { PLAN_KEEP, PLAN_CREATE, PLAN_REPLACE, PLAN_SKIP };

struct plan_item {
	struct policy_entry *entry;
	struct target target;
	enum plan_action action;
	const char *why;	/* PLAN_REPLACE: what differs */
	bool staged;
	int done;		/* commit: 1 once renamed into place */
};

struct plan {
	struct plan_item *items;
	size_t nr_items;
	char **stale;		/* pins in the directory that no entry names */
	size_t nr_stale;
	bool *stale_done;
	struct view_prog views[VIEW_COUNT];
};

/* Decide each item's action against the pins of D (D->fd < 0: none). */
int plan_compare(struct plan *pl, struct pin_dir *d);
bool plan_has_changes(const struct plan *pl);
void plan_print(const struct plan *pl, bool dry_run);
/* Build the new pins in staging. 0 or -errno (reported). */
int plan_stage(struct plan *pl, struct pin_dir *d);
/* Rename into place and remove stale pins; on failure, undo. */
int plan_commit(struct plan *pl, struct pin_dir *d);
void plan_free(struct plan *pl);

#endif
