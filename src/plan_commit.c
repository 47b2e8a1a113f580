// SPDX-License-Identifier: GPL-2.0
/* plan_commit(): the next pin directory, and the switch to it; plan.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "apply_state.h"
#include "diag.h"
#include "fault.h"
#include "manifest.h"
#include "mounts.h"
#include "perms.h"
#include "plan.h"
#include "revoke.h"

/* Attach IT's view to its target and pin it in the next directory, with
 * the entry's owner, mode and ACL. 0, or -errno: the entry failed
 * (reported with its file and line), and a pin may be left half made.
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
		ret = view_attach(plan_view(pl, e), plan_link_flags(e),
				  it->target.fd, &link);
	if (ret) {
		err_at(&e->loc, "'%s': cannot attach view '%s' to %s: %s",
		       e->name, e->view->name, ESC(e->path), strerror(-ret));
		return ret;
	}
	ret = path_join(path, d->new_path, e->name);
	if (!ret)
		ret = fault_at("pin");
	if (!ret)
		ret = bpf_link__pin(link, path);
	if (ret) {
		err_at(&e->loc, "'%s': cannot pin it: %s", e->name, strerror(-ret));
		goto out;
	}
	ret = fault_at("perms");
	if (!ret)
		ret = perms_set(d->new_fd, e->name, path, e);
	if (ret)
		err_at(&e->loc, "'%s': cannot set its owner, mode and ACL: %s",
		       e->name, strerror(-ret));
out:
	/* The pin holds the link; ours goes. */
	bpf_link__destroy(link);
	return ret;
}

/*
 * IT failed while it was staged, with ERROR: it fails alone (PLAN_FAIL), as
 * an entry whose path does not open. Whatever was made of it goes from the
 * next directory (nobody but root could reach it there); its pin in
 * PIN_DIR, if any, stays behind with the old directory, so it is revoked
 * and removed. 0, or -errno if the next directory cannot be put right:
 * then the whole apply fails.
 */
static int stage_failed(struct plan *pl, struct plan_item *it, int error)
{
	const char *name = it->entry->name;
	int ret;

	if (unlinkat(pl->dir.new_fd, name, 0) && errno != ENOENT) {
		ret = -errno;
		err("%s/%s: cannot remove what was made of it: %s", pl->dir.new_path,
		    name, strerror(-ret));
		return ret;
	}
	it->action = PLAN_FAIL;
	it->err = error;
	it->holdable = false;
	return 0;
}

/*
 * IT's pin, to be kept, could not be linked into the next directory
 * (ERROR, said): make it anew from its entry, as a replaced pin, or if
 * that cannot be done either (a held pin has no open path), it fails
 * alone. 0, or -errno as stage_failed().
 */
static int keep_failed(struct plan *pl, struct plan_item *it, int error)
{
	int ret = -EBADF;

	if (!it->held && it->target.fd >= 0)
		ret = stage_new(pl, it);
	if (!ret) {
		info("%s: made anew, as its pin could not be kept", it->entry->name);
		it->action = PLAN_REPLACE;
		it->why = "not kept";
		return 0;
	}
	it->held = false;
	return stage_failed(pl, it, ret == -EBADF ? error : ret);
}

/*
 * Each held item whose user or group does not resolve: take the ids that
 * name no one off its pin now, under the lock, whether or not a next
 * generation is made (perms_held_narrow()). The pin is the one readers
 * open, so this only ever takes access away, even if the apply fails
 * later. An item whose pin cannot be narrowed (said) fails: its pin is
 * revoked at once, and removed with the old directory.
 */
static void narrow_held(struct plan *pl)
{
	for (size_t i = 0; i < pl->nr_items; i++) {
		struct plan_item *it = &pl->items[i];
		const struct policy_entry *e = it->entry;
		char dropped[PERMS_DROPPED_MAX];
		const char *what;
		int r, rv;

		if (!it->held || !e->unresolved)
			continue;
		r = perms_held_narrow(pl->dir.cur_fd, e->name, e, &what, dropped,
				      sizeof(dropped));
		if (r == 1) {
			if (dropped[0])
				warn("%s: its last pin is kept without %s (ids that name no one now; an owner or group becomes root)",
				     ESC(e->name), dropped);
			continue;
		}
		plan_say_not_held(e, r, what, "set");
		/*
		 * Revoked now, not only with the old directory: a half-done
		 * narrowing (chowned, the ACL not set) must not stay if the
		 * next generation cannot be made.
		 */
		rv = pin_revoke(pl->dir.cur_fd, e->name);
		if (rv)
			err("%s/%s: cannot revoke it yet: %s", pl->dir.path,
			    ESC(e->name), strerror(-rv));
		it->held = false;
		it->holdable = false;
		it->action = PLAN_FAIL;
		it->err = r ?: -EPERM;
	}
}

/* Fill the next generation of the pin directory. An entry that cannot be
 * staged fails alone; 0, or -errno if the next directory itself failed.
 */
static int stage(struct plan *pl)
{
	int ret = 0;

	for (size_t i = 0; i < pl->nr_items && !ret; i++) {
		struct plan_item *it = &pl->items[i];

		if (it->action == PLAN_KEEP) {
			ret = gen_keep(&pl->dir, it->entry->name);
			if (ret && ret != -ENOMEM)
				ret = keep_failed(pl, it, ret);
		} else if (it->action == PLAN_CREATE || it->action == PLAN_REPLACE) {
			ret = stage_new(pl, it);
			if (ret)
				ret = stage_failed(pl, it, ret);
		}
	}
	/* Not ours: as they are (plan_compare()). */
	for (size_t i = 0; i < pl->nr_kept && !ret; i++)
		ret = gen_carry(&pl->dir, pl->kept[i]);
	return ret;
}

/* Record what the pins of PL are now, for list and audit. */
static void record(struct plan *pl)
{
	struct manifest_record *recs;
	struct pin_info *pis;
	char (*texts)[PATH_MAX + 1024];
	char (*unsafe)[PATH_MAX + 128];
	size_t n = 0;

	recs = calloc(pl->nr_items + 1, sizeof(*recs));
	pis = calloc(pl->nr_items + 1, sizeof(*pis));
	texts = calloc(pl->nr_items + 1, sizeof(*texts));
	unsafe = calloc(pl->nr_items + 1, sizeof(*unsafe));
	for (size_t i = 0; recs && pis && texts && unsafe && i < pl->nr_items; i++) {
		const struct policy_entry *e = pl->items[i].entry;

		if (pl->items[i].action == PLAN_SKIP || pl->items[i].action == PLAN_FAIL ||
		    pin_read(&pl->dir, e->name, &pis[n]) || !pis[n].is_link ||
		    plan_entry_text(e, texts[n], sizeof(texts[n])))
			continue;
		/* The unsafe path apply accepted now: audit reports a change. */
		recs[n] = (struct manifest_record){ e->name, e->view->name, e->path,
						    e->loc, pis[n].link_id, pis[n].tag,
						    texts[n], plan_unsafe_text(&pl->items[i], unsafe[n],
									       sizeof(unsafe[n])) };
		n++;
	}
	if (recs && pis && texts && unsafe)
		manifest_write(pl->dir.path, recs, n, pl->policy_abs);
	free(unsafe);
	free(recs);
	free(pis);
	free(texts);
}

/*
 * The opened paths are needed to attach, no longer: they go before the
 * switch and the revocations (which may load the stubs), so that an
 * umount of their filesystems does not find them busy.
 */
static void close_targets(struct plan *pl)
{
	for (size_t i = 0; i < pl->nr_items; i++)
		target_close(&pl->items[i].target);
}

int plan_commit(struct plan *pl)
{
	int ret;

	narrow_held(pl);
	if (plan_has_changes(pl)) {
		ret = gen_begin(&pl->dir);
		if (ret)
			return ret;
		ret = stage(pl);
		if (ret) {
			gen_abort(&pl->dir);
			return ret;
		}
	}
	close_targets(pl);
	if (!plan_has_changes(pl)) {
		/* Nothing to change, or each change failed: no exchange,
		 * which would have made PIN_DIR anew.
		 */
		gen_abort(&pl->dir);
		if (pl->dir_drift[0] && !pindir_restore(&pl->dir))
			outf("restored %s: root's, mode %04o, no ACL entries (it had %s)\n",
			     ESC(pl->pin_dir), (unsigned int)pl->dir.mode, pl->dir_drift);
		else if (pl->dir_drift[0])
			warn("%s: cannot restore its mode (%s)", pl->pin_dir, pl->dir_drift);
		plan_print(pl, false);
		/* /run may have been emptied: record what is there anyway */
		record(pl);
		return 0;
	}
	ret = gen_commit(&pl->dir);
	if (ret)
		return ret;
	/* The new PIN_DIR was made root's, its mode, no ACL entries. */
	if (pl->dir_drift[0])
		outf("restored %s: root's, mode %04o, no ACL entries (it had %s)\n",
		     ESC(pl->pin_dir), (unsigned int)pl->dir.mode, pl->dir_drift);
	record(pl);
	plan_print(pl, false);
	return 0;
}

/*
 * Name each failed entry, after the changes, the objects that are not
 * ours and were kept, and a grant-traverse stopped by a bad record;
 * PLAN_PARTIAL if any.
 */
static int report_failed(const struct plan *pl, bool dry_run)
{
	size_t n = plan_failed(pl);
	bool partial = pl->nr_kept || pl->traverse.bad_record;

	for (size_t i = 0; i < pl->nr_moved; i++) {
		if (!pl->moved[i].err)
			continue;
		err("%s: the pins it made in %s, its pin-dir before, %s (said above); the next apply tries again",
		    pl->policy_path, ESC(pl->moved[i].pin_dir),
		    dry_run ? "cannot be looked at" : "could not all be revoked");
		partial = true;
	}

	if (pl->traverse.bad_record)
		err("%s: grant-traverse gave and took back nothing: its record is not valid (said above)",
		    pl->policy_path);
	if (pl->nr_kept)
		err("%s: %zu object%s in %s that %s not fsiter-pin's %s kept as %s (--force removes them)",
		    pl->policy_path, pl->nr_kept, pl->nr_kept == 1 ? "" : "s",
		    pl->dir.path, pl->nr_kept == 1 ? "is" : "are",
		    dry_run ? "would be" : pl->nr_kept == 1 ? "was" : "were",
		    pl->nr_kept == 1 ? "it is" : "they are");
	if (!n)
		return partial ? PLAN_PARTIAL : 0;
	for (size_t i = 0; i < pl->nr_items; i++) {
		const struct plan_item *it = &pl->items[i];

		if (it->action == PLAN_FAIL || it->held)
			err_at(&it->entry->loc, "'%s' failed: %s", it->entry->name,
			       it->held ? "its last good pin stays" :
			       it->pinned ? "its pin is removed" : "not pinned");
		else if (it->unreachable)
			err_at(&it->entry->loc, "'%s' failed: pinned, but a reader it grants cannot reach it (said above)",
			       it->entry->name);
	}
	err("%s: %zu entr%s failed; the others %s applied", pl->policy_path, n,
	    n == 1 ? "y" : "ies", dry_run ? "would be" : "were");
	return PLAN_PARTIAL;
}

/*
 * The last line of an apply that failed: no pin changed, and what did
 * change outside the pin directory before it failed, each of which was
 * said as it was done. "nothing was changed" only if nothing did.
 */
static void report_unchanged(const struct plan *pl, const char *policy_path)
{
	const struct pin_dir *d = &pl->dir;
	const struct reach_changes *t = &pl->traverse;
	char what[5][PATH_MAX + 64], msg[sizeof(what) + 32];
	size_t n = 0, len = 0, moved = plan_moved_removed(pl);

	if (pl->mounted_bpffs)
		snprintf(what[n++], sizeof(what[0]), "bpffs was mounted on %s",
			 BPFFS_MOUNT_POINT);
	if (d->made_parent)
		snprintf(what[n++], sizeof(what[0]), "%s was created", d->parent);
	if (d->made_work)
		snprintf(what[n++], sizeof(what[0]), "the work directory %s was created",
			 d->work_path);
	if (t->given || t->taken) {
		char gave[64] = "", took[64] = "";

		if (t->given)
			snprintf(gave, sizeof(gave), "gave %zu search permission%s",
				 t->given, t->given == 1 ? "" : "s");
		if (t->taken)
			snprintf(took, sizeof(took), "took back %zu ACL entr%s it had added",
				 t->taken, t->taken == 1 ? "y" : "ies");
		snprintf(what[n++], sizeof(what[0]), "grant-traverse %s%s%s", gave,
			 *gave && *took ? " and " : "", took);
	}
	if (moved)
		snprintf(what[n++], sizeof(what[0]),
			 "%zu pin%s it had made in a pin-dir it no longer names %s revoked and removed",
			 moved, moved == 1 ? "" : "s", moved == 1 ? "was" : "were");
	if (!n) {
		err("%s: nothing was changed", policy_path);
		return;
	}
	for (size_t i = 0; i < n; i++)
		len += snprintf(msg + len, sizeof(msg) - len, "%s%s",
				!i ? "" : i == n - 1 ? " and " : ", ", what[i]);
	err("%s: no pin %swas changed, but %s", policy_path,
	    moved ? "of its pin-dir " : "", msg);
}

/* How many times apply reads a policy that keeps changing under it. */
#define APPLY_TRIES	5

int plan_apply(const char *policy_path, bool dry_run, bool force)
{
	unsigned int unneutered = revoke_run_begin();
	struct plan pl;
	int ret;

	for (int i = 1;; i++) {
		ret = plan_build(&pl, policy_path,
				 dry_run ? PLAN_DRY_RUN : PLAN_APPLY, force);
		if (!pl.policy_changed)
			break;
		if (i == APPLY_TRIES) {
			err("%s: changed while it was being applied, %d times in a row",
			    policy_path, APPLY_TRIES);
			break;
		}
		info_v("%s: changed while it was being read; reading it again",
		       policy_path);
		plan_free(&pl);
	}
	if (!ret && dry_run)
		plan_print(&pl, true);
	else if (!ret)
		ret = plan_commit(&pl);
	/* A revoked link that kept its program: the pins changed as said,
	 * but apply did not all it should.
	 */
	if (revoke_check_neutered(unneutered, pl.pin_dir ?: policy_path) && !ret)
		ret = PLAN_PARTIAL;
	if (ret < 0) {
		report_unchanged(&pl, policy_path);
		/* It failed, but revoked the pins of a pin-dir it named
		 * before (a refused pin-dir does not stop that): exit 3.
		 */
		if (ret != -ENOMEM && !dry_run && plan_moved_removed(&pl))
			ret = PLAN_PARTIAL;
	} else if (report_failed(&pl, dry_run)) {
		ret = PLAN_PARTIAL;
	}
	if (!dry_run)
		apply_state_record(policy_path, ret);	/* for the metrics */
	plan_free(&pl);
	return ret;
}
