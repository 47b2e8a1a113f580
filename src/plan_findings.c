// SPDX-License-Identifier: GPL-2.0
/* What audit reports: a plan's drift, in words (docs/output.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fsiter_uapi.h"
#include "manifest.h"
#include "plan.h"
#include "target_kind.h"

struct out {
	finding_fn fn;
	void *arg;
	size_t count;
};

static void say(struct out *o, const char *kind, const char *pin,
		const struct loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void say(struct out *o, const char *kind, const char *pin,
		const struct loc *loc, const char *fmt, ...)
{
	char detail[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	o->fn(o->arg, kind, pin, loc, detail);
	o->count++;
}

/* How the link of IT differs from its entry. */
static void link_findings(struct out *o, const struct plan *pl,
			  const struct plan_item *it)
{
	const struct policy_entry *e = it->entry;
	const struct pin_info *pi = &it->pin;
	const struct target_kind *k = &target_kinds[e->view->target];
	const struct view_desc *pv = view_by_prog_name(pi->prog_name);
	char was[128], now[128];

	if (it->drift & DRIFT_FOREIGN)
		say(o, "foreign", e->name, &e->loc,
		    "program '%s' (tag %s) is not one of fsiter-pin's views",
		    pi->prog_name, pi->tag);
	if (it->drift & DRIFT_VIEW)
		say(o, "view", e->name, &e->loc, "shows view '%s', the policy says '%s'",
		    pv->name, e->view->name);
	if (it->drift & DRIFT_EXPOSE)
		say(o, "expose-cache", e->name, &e->loc, "%s page-cache state to every reader",
		    pi->flags & FSITER_F_EXPOSE_CACHE ? "shows" : "withholds");
	if (it->drift & DRIFT_EXPOSE_TOTALS)
		say(o, "expose-totals", e->name, &e->loc,
		    "%s the page-cache sums of the files a reader may not observe",
		    pi->flags & FSITER_F_WITHHELD_SUMS ? "shows" : "withholds");
	if (it->drift & DRIFT_PROGRAM)
		say(o, "program-changed", e->name, &e->loc,
		    "program tag %s, this fsiter-pin's view has %s", pi->tag,
		    plan_view(pl, e) ? plan_view(pl, e)->tag : "none loaded");
	if (it->drift & DRIFT_TOP)
		say(o, "program-changed", e->name, &e->loc,
		    "lists the top %u files, the policy says top=%u", pi->top,
		    policy_entry_top(e));
	if (it->drift & DRIFT_GONE)
		say(o, "target-gone", e->name, &e->loc,
		    "its filesystem was unmounted; reads fail with ESTALE");
	if (it->drift & DRIFT_TARGET) {
		k->describe_pin(was, sizeof(was), pi);
		k->describe_target(now, sizeof(now), &it->target);
		say(o, "target-replaced", e->name, &e->loc, "pinned on %s, %s %s now",
		    was, e->path, now);
	}
	if (it->drift & DRIFT_PERMS_UNREADABLE)
		say(o, "unreadable", e->name, &e->loc, "cannot read owner, mode or ACL");
	if (it->drift & DRIFT_OWNER)
		say(o, "owner", e->name, &e->loc, "owner %u:%u, the policy says %u:%u",
		    pi->uid, pi->gid, e->uid, e->gid);
	if (it->drift & DRIFT_MODE)
		say(o, "mode", e->name, &e->loc, "mode %04o, the policy says %04o",
		    pi->mode & 07777, e->mode);
	if (it->drift & DRIFT_ACL)
		say(o, "acl", e->name, &e->loc, "the ACL differs from the policy's '%s'",
		    e->acl ?: "-");
}

const char *plan_unsafe_text(const struct plan_item *it, char *buf, size_t size)
{
	const struct target *t = &it->target;
	char who[64];

	buf[0] = '\0';
	if (t->unsafe_len)
		snprintf(buf, size, "%.*s: %s", (int)t->unsafe_len, it->entry->path,
			 dir_trust_who(&t->unsafe, who, sizeof(who)));
	return buf;
}

/*
 * Did the last apply accept IT's unsafe path as it is now (the manifest's
 * "unsafe" of its link)? Only a path that became unsafe, or unsafe in
 * another way, since the pin was made is reported.
 */
static bool accepted(json_object *manifest, const struct plan_item *it)
{
	struct manifest_entry *rec;
	char now[sizeof(rec->unsafe)];
	bool same;

	if (!it->pinned || !it->pin.is_link)
		return false;
	rec = malloc(sizeof(*rec));
	same = rec && !manifest_lookup(manifest, it->entry->name, it->pin.link_id, rec) &&
	       !strcmp(rec->unsafe, plan_unsafe_text(it, now, sizeof(now)));
	free(rec);
	return same;
}

/* What the path leads through and to now (apply's check_target()). */
static void path_findings(struct out *o, const struct plan_item *it,
			  json_object *manifest)
{
	const struct policy_entry *e = it->entry;
	const struct target *t = &it->target;
	char who[64];

	if (S_ISREG(t->mode) && t->nlink > 1 && !(e->options & POLICY_OPT_HARDLINKS))
		say(o, "hardlinks", e->name, &e->loc,
		    "path '%s': a file with %u names (hard links), so this name may not be the one root chose; apply fails the entry without the option 'hardlinks'",
		    e->path, t->nlink);
	if (!t->unsafe_len || accepted(manifest, it))
		return;
	dir_trust_who(&t->unsafe, who, sizeof(who));
	say(o, "unsafe-path", e->name, &e->loc,
	    "path '%s': %.*s may be changed by %s so what it names is not root's to decide (an unsafe path transition)%s",
	    e->path, (int)t->unsafe_len, e->path, who,
	    e->options & POLICY_OPT_EXPOSE_CACHE ? "; apply fails the entry, as it has expose-cache" :
	    e->options & POLICY_OPT_EXPOSE_TOTALS ? "; apply fails the entry, as it has expose-totals" : "");
}

static void item_findings(struct out *o, const struct plan *pl,
			  const struct plan_item *it, json_object *manifest)
{
	const struct policy_entry *e = it->entry;

	if (it->action == PLAN_SKIP) {
		if (it->pinned)
			say(o, "extra", e->name, &e->loc,
			    "%s does not exist (nofail): apply would remove the pin",
			    e->path);
		return;
	}
	if (it->target_err)
		say(o, "target-missing", e->name, &e->loc, "path '%s': %s",
		    e->path, target_strerror(it->target_err));
	else if (it->target.fd >= 0)
		path_findings(o, it, manifest);
	if (!it->pinned)
		say(o, "missing", e->name, &e->loc, "not pinned");
	else if (it->drift & DRIFT_UNREADABLE)
		say(o, "unreadable", e->name, &e->loc, "cannot read the pin");
	else if (!it->pin.is_link)
		say(o, "foreign", e->name, &e->loc, "not an fs iterator link");
	else
		link_findings(o, pl, it);
}

size_t plan_findings(const struct plan *pl, finding_fn fn, void *arg)
{
	struct out o = { fn, arg, 0 };
	json_object *manifest = NULL;
	bool unsafe = false;

	/* Read only if an unsafe path needs it (accepted()). */
	for (size_t i = 0; i < pl->nr_items; i++)
		unsafe |= pl->items[i].target.unsafe_len != 0;
	if (unsafe && pl->pin_dir)
		manifest = manifest_load(pl->pin_dir);
	for (size_t i = 0; i < pl->nr_items; i++)
		item_findings(&o, pl, &pl->items[i], manifest);
	json_object_put(manifest);
	/* The pins of skipped entries were reported with their entry. */
	for (size_t i = 0; i < pl->nr_stale; i++)
		if (!policy_find(&pl->policy, pl->stale[i]))
			say(&o, "extra", pl->stale[i], NULL, "not in the policy");
	if (pl->dir_drift[0])
		say(&o, "pin-dir", pl->pin_dir, NULL,
		    "%s; fsiter-pin's pin directory is root's, mode %04o, with no ACL entries (apply restores it)",
		    pl->dir_drift, (unsigned int)pl->dir.mode);
	for (size_t i = 0; i < pl->nr_blocks; i++)
		say(&o, "unreachable", pl->blocks[i].entry->name,
		    &pl->blocks[i].entry->loc, "%s", pl->blocks[i].detail);
	for (size_t i = 0; i < pl->nr_extra_search; i++)
		say(&o, "extra-search", pl->extra_search[i].dir, NULL, "%s",
		    pl->extra_search[i].detail);
	for (size_t i = 0; i < pl->nr_orphans; i++)
		say(&o, "orphaned", pl->orphans[i].dir, NULL, "%s", pl->orphans[i].detail);
	return o.count;
}
