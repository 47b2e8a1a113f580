// SPDX-License-Identifier: GPL-2.0
/* The policy against the pins in place: each entry's drift and action. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "fault.h"
#include "fsiter_uapi.h"
#include "manifest.h"
#include "perms.h"
#include "plan.h"
#include "target_kind.h"

__u32 plan_link_flags(const struct policy_entry *e)
{
	return ((e->options & POLICY_OPT_EXPOSE_CACHE) ? FSITER_F_EXPOSE_CACHE : 0) |
	       ((e->options & POLICY_OPT_EXPOSE_TOTALS) ? FSITER_F_WITHHELD_SUMS : 0);
}

const struct view_prog *plan_view(const struct plan *pl,
				  const struct policy_entry *e)
{
	unsigned int top = policy_entry_top(e);

	for (size_t i = 0; i < pl->nr_views; i++)
		if (pl->views[i].desc == e->view && pl->views[i].top == top)
			return &pl->views[i];
	return NULL;
}

/* Is the link attached to T, as link info identifies it? */
static bool same_target(const struct view_desc *view, const struct target *t,
			const struct pin_info *pi)
{
	const struct target_kind *k = &target_kinds[view->target];

	return pi->fs_type == k->uapi_type && k->same(t, pi);
}

unsigned int pin_drift(const struct plan_item *it, const struct pin_info *pi,
		       const struct view_prog *v)
{
	const struct policy_entry *e = it->entry;
	const struct view_desc *pv;
	unsigned int drift = 0;
	__u32 flags;

	if (!pi->is_link)
		return DRIFT_FOREIGN;
	pv = view_by_prog_name(pi->prog_name);
	if (!pv)
		drift |= DRIFT_FOREIGN;
	else if (pv != e->view)
		drift |= DRIFT_VIEW;
	/* No program to compare with in a build without the views. */
	else if (v && strcmp(pi->tag, v->tag))
		drift |= DRIFT_PROGRAM;
	/* The tag masks read-only data: top=N is read from the program's. */
	else if (pi->top != policy_entry_top(e))
		drift |= DRIFT_TOP;
	/* The kernel's own word on what the link shows. */
	flags = pi->flags ^ plan_link_flags(e);
	if (flags & ~FSITER_F_WITHHELD_SUMS)
		drift |= DRIFT_EXPOSE;
	if (flags & FSITER_F_WITHHELD_SUMS)
		drift |= DRIFT_EXPOSE_TOTALS;

	if (pi->gone)
		drift |= DRIFT_GONE;
	else if (it->target.fd >= 0 && !same_target(e->view, &it->target, pi))
		drift |= DRIFT_TARGET;
	return drift;
}

const char *drift_word(unsigned int drift)
{
	static const struct { unsigned int mask; const char *word; } words[] = {
		{ DRIFT_FOREIGN | DRIFT_PROGRAM | DRIFT_UNREADABLE, "program" },
		{ DRIFT_VIEW, "view" },
		{ DRIFT_TOP, "top" },
		{ DRIFT_EXPOSE, "expose-cache" },
		{ DRIFT_EXPOSE_TOTALS, "expose-totals" },
		{ DRIFT_GONE | DRIFT_TARGET, "target" },
		{ DRIFT_PERMS_UNREADABLE, "owner, mode or ACL" },
		{ DRIFT_OWNER, "owner" },
		{ DRIFT_MODE, "mode" },
		{ DRIFT_ACL, "ACL" },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (drift & words[i].mask)
			return words[i].word;
	return NULL;
}

int plan_match(struct plan *pl, char **names, size_t n)
{
	for (size_t i = 0; i < pl->nr_items; i++) {
		struct plan_item *it = &pl->items[i];

		for (size_t j = 0; j < n; j++) {
			if (!names[j] || strcmp(names[j], it->entry->name))
				continue;
			it->pinned = true;
			if (it->action == PLAN_SKIP)
				continue;
			free(names[j]);
			names[j] = NULL;
		}
	}
	pl->stale = calloc(n + 1, sizeof(*pl->stale));
	if (!pl->stale)
		return -ENOMEM;
	for (size_t j = 0; j < n; j++)
		if (names[j]) {
			pl->stale[pl->nr_stale++] = names[j];
			names[j] = NULL;
		}
	return 0;
}

/* Owner, mode and ACL of the pin against its entry, as drift bits. */
static unsigned int perms_drift(struct pin_dir *d, const struct policy_entry *e)
{
	char path[PATH_MAX];
	int diff;

	diff = path_join(path, d->path, e->name);
	if (!diff)
		diff = perms_diff(d->cur_fd, e->name, path, e);
	if (diff < 0)
		return DRIFT_PERMS_UNREADABLE;
	return (diff & PERMS_OWNER ? DRIFT_OWNER : 0) |
	       (diff & PERMS_MODE ? DRIFT_MODE : 0) |
	       (diff & PERMS_ACL ? DRIFT_ACL : 0);
}

/* Read IT's pin and decide. 0, or -errno if the pin cannot be read and
 * this is not an audit.
 */
static int compare_item(struct plan *pl, struct plan_item *it)
{
	const struct policy_entry *e = it->entry;
	int ret;

	ret = fault_at("inspect");
	if (!ret)
		ret = pin_read(&pl->dir, e->name, &it->pin);
	if (ret == -ENOMEM)
		return ret;
	/* A pin of this name that cannot be read is replaced, like one that
	 * differs: apply's own directory holds nothing it must keep.
	 */
	if (ret && pl->mode != PLAN_AUDIT)
		warn("%s/%s: cannot read it (%s); it is replaced", pl->dir.path,
		     e->name, strerror(-ret));
	if (ret)
		it->drift = DRIFT_UNREADABLE;
	else
		it->drift = pin_drift(it, &it->pin, plan_view(pl, e));
	/* A pin that is no link of ours has no owner, mode or ACL to
	 * speak of.
	 */
	if (!ret && it->pin.is_link)
		it->drift |= perms_drift(&pl->dir, e);
	it->why = drift_word(it->drift);
	it->action = it->why ? PLAN_REPLACE : PLAN_KEEP;
	return 0;
}

int plan_entry_text(const struct policy_entry *e, char *buf, size_t size)
{
	char top[24] = "";
	int n;

	if (e->top)
		snprintf(top, sizeof(top), " top=%u", e->top);
	n = snprintf(buf, size, "%s %s %04o %s %s %s %#x%s", e->view->name, e->path,
		     (unsigned int)e->mode, e->owner ?: "-", e->group ?: "-",
		     e->acl ?: "-", e->options, top);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

void plan_say_not_held(const struct policy_entry *e, int r, const char *what,
		       const char *doing)
{
	if (r == 0)
		err_at(&e->loc, "'%s': its last pin is not kept: its %s names a user or group the entry does not grant",
		       ESC(e->name), what);
	else
		err_at(&e->loc, "'%s': its last pin is not kept: cannot %s its owner and ACL: %s",
		       ESC(e->name), doing, strerror(-r));
}

/*
 * IT failed for something outside the policy: may it keep its pin? Only
 * a link of its view, with its link flags, that the manifest says apply
 * made from an entry with the same text (path, view, mode, owner, group,
 * ACL, options), and whose owner, mode and ACL are still those (when its
 * users resolve).
 */
static bool may_hold(struct plan *pl, struct plan_item *it, json_object *manifest)
{
	const struct policy_entry *e = it->entry;
	struct manifest_entry rec;
	char text[sizeof(rec.entry)];
	char path[PATH_MAX];
	const char *what;
	int r;

	if (!it->holdable || pin_read(&pl->dir, e->name, &it->pin) ||
	    !it->pin.is_link || view_by_prog_name(it->pin.prog_name) != e->view ||
	    it->pin.flags != plan_link_flags(e))
		return false;
	if (manifest_lookup(manifest, e->name, it->pin.link_id, &rec) ||
	    plan_entry_text(e, text, sizeof(text)) || strcmp(rec.entry, text))
		return false;
	if (path_join(path, pl->dir.path, e->name))
		return false;
	if (!e->unresolved)
		return perms_match(pl->dir.cur_fd, e->name, path, e, &what) == 1;
	/* Not for a user who got a deleted one's id since (docs/security.md). */
	r = perms_held_check(pl->dir.cur_fd, e->name, e, &what);
	if (r != 1)
		plan_say_not_held(e, r, what, "read");
	return r == 1;
}

/* The failed items: which keep their last good pin. */
static void compare_failed(struct plan *pl)
{
	json_object *manifest = NULL;
	bool loaded = false;

	for (size_t i = 0; i < pl->nr_items; i++) {
		struct plan_item *it = &pl->items[i];

		if (it->action != PLAN_FAIL || !it->pinned || !it->holdable)
			continue;
		if (!loaded) {
			manifest = manifest_load(pl->dir.path);
			loaded = true;
		}
		if (may_hold(pl, it, manifest)) {
			it->held = true;
			it->action = PLAN_KEEP;
		}
	}
	json_object_put(manifest);
}

static bool is_kept(const struct plan *pl, const char *name)
{
	for (size_t i = 0; i < pl->nr_kept; i++)
		if (!strcmp(pl->kept[i], name))
			return true;
	return false;
}

static int keep_foreign(struct plan *pl, const char *name)
{
	char **kept = realloc(pl->kept, (pl->nr_kept + 1) * sizeof(*kept));

	if (!kept)
		return -ENOMEM;
	pl->kept = kept;
	kept[pl->nr_kept] = strdup(name);
	if (!kept[pl->nr_kept])
		return -ENOMEM;
	pl->nr_kept++;
	return 0;
}

/*
 * A kept foreign object is neither stale nor an entry's pin: an entry of
 * its name fails (its object stays), and it is not removed.
 */
static void fail_taken_names(struct plan *pl)
{
	size_t n = 0;

	for (size_t i = 0; i < pl->nr_items; i++) {
		struct plan_item *it = &pl->items[i];

		if (!it->pinned || !is_kept(pl, it->entry->name))
			continue;
		it->pinned = false;
		if (it->action == PLAN_SKIP || it->action == PLAN_FAIL)
			continue;
		err_at(&it->entry->loc, "'%s': %s/%s is not a pin of fsiter-pin's, and it is kept (--force replaces it)",
		       ESC(it->entry->name), pl->dir.path, ESC(it->entry->name));
		it->action = PLAN_FAIL;
		it->err = -EEXIST;
	}
	for (size_t j = 0; j < pl->nr_stale; j++) {
		if (is_kept(pl, pl->stale[j]))
			free(pl->stale[j]);
		else
			pl->stale[n++] = pl->stale[j];
	}
	pl->nr_stale = n;
}

int plan_compare(struct plan *pl)
{
	char **names = NULL;
	size_t n = 0;
	int ret;

	/* PIN_DIR itself: root's, its mode, no ACL entries. */
	if (pindir_check(&pl->dir, pl->dir_drift, sizeof(pl->dir_drift)) != 0)
		pl->dir_drift[0] = '\0';
	ret = pindir_names(&pl->dir, &names, &n);
	if (ret) {
		err("%s: %s", pl->dir.path, strerror(-ret));
		return ret;
	}
	/* Anything else someone put there (a directory, another tool's
	 * maps and programs) goes with the old directory with --force, and
	 * is carried over to the next one as it is without.
	 */
	for (size_t j = 0; j < n && pl->mode != PLAN_AUDIT && !ret; j++) {
		struct pin_info pi;
		const char *what;

		/* Unreadable, it may be a pin of ours with a grant: never
		 * kept; replaced or removed as ours (compare_item()).
		 */
		if (pin_read(&pl->dir, names[j], &pi))
			continue;
		what = pin_info_foreign(&pi);
		if (!what)
			continue;
		pl->nr_foreign++;
		if (pl->force) {
			warn("%s/%s: %s, not a pin of fsiter-pin's; %s (--force)",
			     pl->dir.path, ESC(names[j]), what,
			     pl->mode == PLAN_APPLY ? "removing it" : "it would be removed");
			continue;
		}
		warn("%s/%s: %s, not a pin of fsiter-pin's; it is kept as it is (--force removes it)",
		     pl->dir.path, ESC(names[j]), what);
		ret = keep_foreign(pl, names[j]);
	}
	if (!ret)
		ret = plan_match(pl, names, n);
	if (!ret)
		fail_taken_names(pl);
	for (size_t i = 0; i < pl->nr_items && !ret; i++) {
		struct plan_item *it = &pl->items[i];

		if (it->action == PLAN_SKIP || it->action == PLAN_FAIL)
			continue;
		if (!it->pinned)
			it->action = PLAN_CREATE;
		else
			ret = compare_item(pl, it);
	}
	pindir_free_names(names, n);
	if (!ret)
		compare_failed(pl);
	return ret;
}
