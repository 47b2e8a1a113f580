/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What apply will do: the policy against the pins in place; then the
 * next generation of the pin directory (pins.h), where kept pins are hard
 * links and new ones get their final owner, mode and ACL; the switch to
 * it is pins.c's.
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
};

struct plan {
	struct plan_item *items;
	size_t nr_items;
	char **stale;		/* pins in the directory that no entry names */
	size_t nr_stale;
	struct view_prog views[VIEW_COUNT];
};

/* Which program of its view an entry uses. */
enum view_variant plan_variant(const struct policy_entry *e);

/* How a pinned link differs from its entry, but for owner, mode and ACL
 * (perms_diff()): a mask, 0 if it is what the entry asks for.
 */
enum pin_drift {
	DRIFT_FOREIGN	= 1 << 0,	/* not one of fsiter-pin's views */
	DRIFT_VIEW	= 1 << 1,	/* another view */
	DRIFT_VARIANT	= 1 << 2,	/* the other program: expose-cache */
	DRIFT_PROGRAM	= 1 << 3,	/* the view's program, another version */
	DRIFT_GONE	= 1 << 4,	/* its filesystem was unmounted */
	DRIFT_TARGET	= 1 << 5,	/* the path names another object now */
};
/* The target is compared only if IT's target is open. */
unsigned int pin_drift(const struct plan_item *it, const struct pin_info *pi,
		       const struct view_prog *v);
/* Decide each item's action against the current pins of D. */
int plan_compare(struct plan *pl, struct pin_dir *d);
bool plan_has_changes(const struct plan *pl);
void plan_print(const struct plan *pl, bool dry_run);
/* Fill the new generation of D. 0 or -errno (reported). */
int plan_stage(struct plan *pl, struct pin_dir *d);
void plan_free(struct plan *pl);

#endif
