/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine under every command that reads a policy.
 *
 *   plan_build()   parse and validate the policy, check privileges, bpffs
 *                  and the kernel, open the targets, load the views, check
 *                  that readers can reach the pins, then compare each entry
 *                  with the pin in place: its drift and what apply would do
 *                  (keep, create, replace), and the stale pins.
 *   plan_commit()  build the next pin directory aside (kept pins are hard
 *                  links, new ones get their owner, mode and ACL), switch
 *                  to it with one exchange, record the manifest. The only
 *                  place that begins, stages, commits or aborts.
 *
 * apply commits a plan, --dry-run prints one, audit reports its drift
 * (plan_findings()), watch builds one whenever the mounts change.
 */
#ifndef FSITER_PLAN_H
#define FSITER_PLAN_H

#include <stdbool.h>
#include "pin_info.h"
#include "pindir.h"
#include "policy.h"
#include "reach.h"
#include "targets.h"
#include "views.h"

enum plan_mode {
	PLAN_APPLY,
	PLAN_DRY_RUN,	/* change nothing, not even the work directory */
	PLAN_AUDIT,	/* also: a path that cannot be opened is drift */
};

/* PLAN_FAIL: the entry failed (apply, --dry-run; plan_commit() also
 * fails an entry it cannot attach, pin or give its owner, mode and ACL):
 * it is not pinned, and a pin of its name goes. One that failed only for
 * a missing path or user and whose pin still has the grant it asks for
 * keeps that pin instead (PLAN_KEEP, held).
 */
enum plan_action { PLAN_KEEP, PLAN_CREATE, PLAN_REPLACE, PLAN_SKIP, PLAN_FAIL };

/* How a pin differs from its entry: a mask, 0 if it is what the entry
 * asks for.
 */
enum pin_drift {
	DRIFT_FOREIGN	= 1 << 0,	/* not one of fsiter-pin's views */
	DRIFT_VIEW	= 1 << 1,	/* another view */
	DRIFT_EXPOSE	= 1 << 2,	/* the link's expose-cache flag, or a flag
					 * fsiter-pin does not know, differs */
	DRIFT_PROGRAM	= 1 << 3,	/* the view's program, another version */
	DRIFT_GONE	= 1 << 4,	/* its filesystem was unmounted */
	DRIFT_TARGET	= 1 << 5,	/* the path names another object now */
	DRIFT_OWNER	= 1 << 6,
	DRIFT_MODE	= 1 << 7,
	DRIFT_ACL	= 1 << 8,
	DRIFT_PERMS_UNREADABLE = 1 << 9,	/* owner, mode or ACL */
	DRIFT_UNREADABLE = 1 << 10,	/* the pin itself (audit) */
	DRIFT_TOP	= 1 << 11,	/* the program lists another top=N */
	DRIFT_EXPOSE_TOTALS = 1 << 12,	/* the link's withheld-sums flag differs */
};

struct plan_item {
	struct policy_entry *entry;
	struct target target;
	int target_err;		/* audit: why the path did not open, or 0 */
	int err;		/* apply: why the entry failed (reported), or 0 */
	bool holdable;		/* it failed for a missing path or user */
	bool held;		/* failed, but keeps its last good pin */
	bool unreachable;	/* pinned, but a reader it grants is stopped
				 * on the way to the pin directory: failed */
	enum plan_action action;
	bool pinned;		/* the pin directory has a pin of this name */
	struct pin_info pin;	/* pinned: what it is */
	unsigned int drift;	/* pinned: enum pin_drift */
	const char *why;	/* PLAN_REPLACE: what differs */
};

/* A reader the policy grants who cannot reach the pins (audit). */
struct plan_block {
	const struct policy_entry *entry;
	char *detail;
};

/* A search permission above the pins that no reader needs (audit). */
struct plan_dir_finding {
	char *dir;
	char *detail;
};

/* A pin directory the policy named before, whose manifest still names
 * the policy (apply, --dry-run; claim.h).
 */
struct plan_moved {
	char *pin_dir;
	size_t removed;		/* its pins revoked and removed (or that would be) */
	int err;		/* why not all of them could be (said), or 0 */
};

struct plan {
	enum plan_mode mode;
	const char *policy_path;
	char policy_abs[PATH_MAX];	/* as manifests name it (claim.h) */
	struct policy policy;
	const char *pin_dir;
	struct pin_dir dir;
	struct plan_item *items;
	size_t nr_items;
	char **stale;		/* pins in the directory that no entry names */
	size_t nr_stale;
	bool force;		/* apply --force: replace foreign objects too */
	bool policy_changed;	/* apply: since it was read (-ESTALE) */
	bool policy_gone;	/* audit: the policy file does not exist
				 * (plan_policy_gone()): orphans only */
	char dir_drift[64];	/* how PIN_DIR differs from root's, its mode, or "" */
	size_t nr_foreign;	/* objects in the directory that are not pins */
	char **kept;		/* those, kept as they are (no --force) */
	size_t nr_kept;
	struct plan_block *blocks;
	size_t nr_blocks;
	struct plan_dir_finding *extra_search;
	size_t nr_extra_search;
	struct view_prog *views;	/* loaded: one per view and top=N */
	size_t nr_views;
	/* apply: what plan_build() changed outside the pin directory, each
	 * said as it was done; a failed apply sums them up.
	 */
	bool mounted_bpffs;
	struct reach_changes traverse;
	/* apply, --dry-run: the pin directories it named before */
	struct plan_moved *moved;
	size_t nr_moved;
	/* audit: pins of other pin directories whose policy is gone or
	 * names another pin-dir (dir: the pin's path)
	 */
	struct plan_dir_finding *orphans;
	size_t nr_orphans;
};

/*
 * What E's path opened to (T), as apply checks it: a file with other
 * names (hard links) without the option 'hardlinks' (-EMLINK), or a
 * directory on the way that a user other than root may change with
 * expose-cache, which would show that file's page cache to every reader,
 * or expose-totals, the sums over the files withheld from them (-EPERM),
 * fail the entry; without either, such a directory is a warning. Each
 * said with E's file and line. 0 or -errno.
 */
int plan_target_check(const struct policy_entry *e, const struct target *t);

/* The loaded program of E's view (and top=N), or NULL. */
const struct view_prog *plan_view(const struct plan *pl,
				  const struct policy_entry *e);

/* Build the plan of POLICY_PATH in PL (freed with plan_free() whatever
 * this returns). 0 or -errno, reported; but not when applying and the
 * policy changed between its reading and the pin directory's lock
 * (-ESTALE, policy_changed): nothing was changed, build it again.
 * Anything in the pin directory that is not one of fsiter-pin's pins is
 * named and counted (nr_foreign): unless FORCE, apply keeps it as it is
 * (kept[]), and an entry of the same name fails.
 */
int plan_build(struct plan *pl, const char *policy_path, enum plan_mode mode,
	       bool force);
/* Switch to the plan's pins (if anything changes) and print what changed.
 * An entry that cannot be staged fails alone (PLAN_FAIL, reported) and
 * the others are switched to. 0 or -errno (reported: nothing changed in
 * the pin directory); readers see the old pins or the new ones.
 */
int plan_commit(struct plan *pl);
bool plan_has_changes(const struct plan *pl);
void plan_print(const struct plan *pl, bool dry_run);
void plan_free(struct plan *pl);

/* How many entries failed (PLAN_FAIL or held). */
size_t plan_failed(const struct plan *pl);
/* What plan_apply() returns when some entries failed and the others
 * were applied.
 */
#define PLAN_PARTIAL	1
/* apply, once: build, then print (DRY_RUN) or commit. 0, PLAN_PARTIAL
 * (each failed entry reported), or -errno: nothing changed.
 */
int plan_apply(const char *policy_path, bool dry_run, bool force);

/* The pin directories against the manifests (plan_claims.c, claim.h). */

/*
 * May this policy's apply replace the pins in its pin directory? Not if
 * its manifest names another policy that still names it (or cannot be
 * read) and it holds pins of fsiter-pin's, unless --force (said). 0, or
 * -EBUSY (said with the pin-dir's file and line).
 */
int plan_claim_check(struct plan *pl);
/*
 * plan_claim_check() again, under the pin directory's lock (apply, not
 * --force): another policy's apply may have claimed it between the check
 * before anything and the lock. 0, or -EBUSY (said).
 */
int plan_claim_locked(struct plan *pl);
/*
 * Apply: revoke and remove, as remove does, the pins that the policy's
 * earlier applies made in other pin directories whose manifests name it,
 * each pin said; a pin directory left with nothing loses its readers in
 * grant-traverse's record and its manifest. --dry-run: say what would
 * be. What failed is in moved[] (said); -ENOMEM, or -ESTALE with
 * policy_changed set if the policy file changed since it was read (checked
 * under each old directory's lock, before anything there is removed).
 */
int plan_move_out(struct plan *pl);
/* Audit: the pins of pin directories whose manifest names a policy that
 * no longer exists or names another pin-dir, into orphans[]. 0 or -ENOMEM.
 */
int plan_orphans(struct plan *pl);
/*
 * Audit of a policy file that does not exist: deleting it revoked
 * nothing, so each pin directory whose manifest names it is said (what
 * still grants, and 'fsiter-pin remove --pin-dir DIR --all'), and every
 * manifest's orphaned pins go into orphans[] (plan_orphans()), with
 * policy_gone set and no pin directory of its own. 0; -ENOENT if no
 * manifest names it and no pin is orphaned (nothing to tell but that
 * it is missing); -errno.
 */
int plan_policy_gone(struct plan *pl);
/* How many pins plan_move_out() removed (or would remove). */
size_t plan_moved_removed(const struct plan *pl);

/* What audit reports, one call per finding, in the order of the policy:
 * KIND is a word of docs/output.md, LOC NULL for a pin no entry names.
 */
typedef void (*finding_fn)(void *arg, const char *kind, const char *pin,
			   const struct loc *loc, const char *detail);
/* The findings of PL; returns how many. */
size_t plan_findings(const struct plan *pl, finding_fn fn, void *arg);
/*
 * The unsafe path transition on the way to IT's target, as apply accepts
 * it (with a warning) and the manifest records it: "DIR: WHO" (e.g.
 * "/tmp: every user"), or "" if the path is safe. BUF.
 */
const char *plan_unsafe_text(const struct plan_item *it, char *buf, size_t size);

/* The comparison, on its own (plan_compare.c). */

/* The link flags (FSITER_F_*) an entry's link is attached with. */
__u32 plan_link_flags(const struct policy_entry *e);
/* How the link PI differs from IT's entry, but for owner, mode and ACL;
 * the target is compared only if IT's target is open. V has the tags;
 * NULL in a build without the views (views_missing), where the program is
 * not compared.
 */
unsigned int pin_drift(const struct plan_item *it, const struct pin_info *pi,
		       const struct view_prog *v);
/* What differs, in a word, for "replaced NAME (WORD differs)"; NULL if
 * nothing does.
 */
const char *drift_word(unsigned int drift);
/* Match the N sorted NAMES in the pin directory to PL's items: set each
 * item's pinned, and move the names no item claims to PL's stale list
 * (the names of skipped items count as stale: apply removes their pins).
 * Taken names are freed and set to NULL. 0 or -ENOMEM.
 */
int plan_match(struct plan *pl, char **names, size_t n);
/* E's text but its name, to tell whether a pin was made from it. 0 or
 * -ENAMETOOLONG.
 */
int plan_entry_text(const struct policy_entry *e, char *buf, size_t size);
/*
 * Add the finding DIR, DETAIL (both malloc'd, now the list's) to *LIST of
 * *N. 0, or -ENOMEM with both freed (also when either is NULL).
 */
int plan_add_dir_finding(struct plan_dir_finding **list, size_t *n,
			 char *dir, char *detail);
/*
 * Say why E's last pin is not held: R is perms_held_check()'s or
 * perms_held_narrow()'s 0 (WHAT names the id) or -errno, met while
 * DOING ("read", "set") its owner and ACL.
 */
void plan_say_not_held(const struct policy_entry *e, int r, const char *what,
		       const char *doing);
/* Read each pinned item's pin, its drift and action, from PL's dir; and
 * which failed items keep their last good pin (held).
 */
int plan_compare(struct plan *pl);

#endif
