// SPDX-License-Identifier: GPL-2.0
/* plan_build(): from a policy file to a plan; see plan.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>
#include "claim.h"
#include "diag.h"
#include "kernel_support.h"
#include "mounts.h"
#include "plan.h"
#include "privs.h"
#include "reach.h"

static bool needs_acls(const struct policy *p)
{
	if (p->grant_traverse)
		return true;
	for (size_t i = 0; i < p->nr_entries; i++)
		if (p->entries[i].nr_grants)
			return true;
	return false;
}

/* The kernel checks: fs targets for the views in use, and the link flags
 * the entries ask for; for apply, ACLs in bpffs if the policy grants any.
 */
static int check_kernel(const struct plan *pl)
{
	const struct policy *p = &pl->policy;
	bool used[VIEW_COUNT] = { false };
	struct kernel_missing km = { 0 };
	char dir[PATH_MAX];
	struct statfs sf;
	__u32 flags = 0;
	int ret, fd;

	for (size_t i = 0; i < p->nr_entries; i++) {
		used[p->entries[i].view->id] = true;
		flags |= plan_link_flags(&p->entries[i]);
	}
	/* Both checks run, so one message lists all that is missing. */
	ret = kernel_check_views(used, flags, &km);
	if (pl->mode == PLAN_AUDIT || !needs_acls(p))
		goto out;
	/* The deepest directory of pin-dir that exists, on bpffs. */
	snprintf(dir, sizeof(dir), "%s", pl->pin_dir);
	while ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		char *slash = strrchr(dir, '/');

		if (errno != ENOENT || !slash || slash == dir)
			goto out;	/* dry run without bpffs */
		*slash = '\0';
	}
	if (!fstatfs(fd, &sf) && (unsigned long)sf.f_type == BPF_FS_MAGIC)
		ret = kernel_check_bpffs_acl(fd, dir, &km) ?: ret;
	close(fd);
out:
	kernel_report_missing(&km);
	return ret;
}

/* Mark IT failed with ERR; HOLDABLE if only something outside the policy
 * is wrong (a missing path, a user not resolved yet).
 */
static void item_fail(struct plan_item *it, int err, bool holdable)
{
	it->action = PLAN_FAIL;
	it->err = err;
	it->holdable = holdable;
}

int plan_target_check(const struct policy_entry *e, const struct target *t)
{
	char who[64];

	if (S_ISREG(t->mode) && t->nlink > 1 && !(e->options & POLICY_OPT_HARDLINKS)) {
		err_at(&e->loc, "path '%s': a file with %u names (hard links), so this name may not be the one root chose; add the option 'hardlinks' if that is meant",
		       ESC(e->path), t->nlink);
		return -EMLINK;
	}
	if (!t->unsafe_len)
		return 0;
	dir_trust_who(&t->unsafe, who, sizeof(who));
	if (e->options & (POLICY_OPT_EXPOSE_CACHE | POLICY_OPT_EXPOSE_TOTALS)) {
		err_at(&e->loc, "path '%s': %.*s may be changed by %s so what it names is not root's to decide (an unsafe path transition); refused with %s",
		       ESC(e->path), (int)t->unsafe_len, e->path, who,
		       e->options & POLICY_OPT_EXPOSE_CACHE ? "expose-cache" : "expose-totals");
		return -EPERM;
	}
	warn("%s:%u: path '%s': %.*s may be changed by %s so what it names is not root's to decide (an unsafe path transition)",
	     e->loc.file, e->loc.line, ESC(e->path), (int)t->unsafe_len, e->path, who);
	return 0;
}

/* What IT's path led to (plan_target_check()): a refusal fails it. */
static void check_target(struct plan_item *it)
{
	int ret = plan_target_check(it->entry, &it->target);

	if (ret) {
		target_close(&it->target);
		item_fail(it, ret, false);
	}
}

/* Open every entry's path, all at once and within one bound
 * (targets_open()); a missing one with nofail is skipped. An entry whose
 * path does not open fails, named, and the others go on; audit notes
 * them.
 */
static int open_targets(struct plan *pl)
{
	const char **paths = calloc(pl->nr_items ?: 1, sizeof(*paths));
	struct target **ts = calloc(pl->nr_items ?: 1, sizeof(*ts));
	struct plan_item **items = calloc(pl->nr_items ?: 1, sizeof(*items));
	int *rets = calloc(pl->nr_items ?: 1, sizeof(*rets));
	size_t n = 0;
	int ret = -ENOMEM;

	if (!paths || !ts || !items || !rets)
		goto out;
	for (size_t i = 0; i < pl->nr_items; i++) {
		struct plan_item *it = &pl->items[i];

		if (it->action == PLAN_FAIL)
			continue;
		items[n] = it;
		paths[n] = it->entry->path;
		ts[n++] = &it->target;
	}
	ret = targets_open(n, paths, ts, rets);
	for (size_t i = 0; !ret && i < n; i++) {
		struct plan_item *it = items[i];
		const struct policy_entry *e = it->entry;
		int r = rets[i];

		if (r == -ENOENT && (e->options & POLICY_OPT_NOFAIL)) {
			if (pl->mode != PLAN_AUDIT)
				info("%s:%u: '%s': %s does not exist; skipped (nofail)",
				     e->loc.file, e->loc.line, e->name, e->path);
			it->action = PLAN_SKIP;
		} else if (r && pl->mode == PLAN_AUDIT) {
			it->target_err = r;
		} else if (r) {
			err_at(&e->loc, "path '%s': %s", ESC(e->path), target_strerror(r));
			/*
			 * Missing, or no answer from its filesystem: nothing
			 * says the path changed, so the pin of an unchanged
			 * entry may stay. Not for a timeout only: a batch of
			 * hung paths leaves the ones after it untried, which
			 * fail so too, and must not lose their pins for it.
			 */
			item_fail(it, r, r == -ENOENT || r == -ETIMEDOUT ||
				  r == -EINPROGRESS);
		} else if (pl->mode != PLAN_AUDIT) {
			check_target(it);
		}
	}
out:
	free(rets);
	free(items);
	free(ts);
	free(paths);
	return ret;
}

/* Fail each entry from the Ith on that uses E's view (and top=N) with
 * ERR: the view did not load.
 */
static void fail_view(struct plan *pl, size_t i, const struct policy_entry *e,
		      int err)
{
	for (; i < pl->nr_items; i++) {
		struct plan_item *it = &pl->items[i];

		if (it->action == PLAN_SKIP || it->action == PLAN_FAIL ||
		    it->entry->view != e->view ||
		    policy_entry_top(it->entry) != policy_entry_top(e))
			continue;
		err_at(&it->entry->loc, "'%s': view '%s' did not load", it->entry->name,
		       e->view->name);
		target_close(&it->target);
		item_fail(it, err, false);
	}
}

/*
 * Each view the entries use, once per top=N. One that does not load (the
 * verifier refused it on this kernel, say) fails its entries alone, but
 * in audit, which has no entries to fail: audit reports it and stops.
 */
static int load_views(struct plan *pl)
{
	/* A build without the views audits all but the programs. */
	if (views_missing && pl->mode == PLAN_AUDIT) {
		info("this build has no views (%s): the pins' programs are not compared",
		     views_missing);
		return 0;
	}
	for (size_t i = 0; i < pl->nr_items; i++) {
		const struct policy_entry *e = pl->items[i].entry;
		struct view_prog *v;
		int ret;

		if (pl->items[i].action == PLAN_SKIP || pl->items[i].action == PLAN_FAIL ||
		    plan_view(pl, e))
			continue;
		v = realloc(pl->views, (pl->nr_views + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		pl->views = v;
		v = &pl->views[pl->nr_views];
		memset(v, 0, sizeof(*v));
		ret = view_load(v, e->view->id, policy_entry_top(e));
		if (ret == -ENOMEM || (ret && pl->mode == PLAN_AUDIT))
			return ret;
		if (ret)
			fail_view(pl, i, e, ret);
		else
			pl->nr_views++;
	}
	return 0;
}

/* Audit keeps each reader who cannot reach the pins as a finding. */
static void keep_block(const struct reach_block *b, void *arg)
{
	struct plan *pl = arg;
	struct plan_block *nb;
	char *detail;

	if (asprintf(&detail, "grants %s read access, but %s (mode %04o) does not let %s through; '%s' would",
		     b->who, b->dir, b->mode, b->other ? "them" : "it", b->fix) < 0)
		return;
	nb = realloc(pl->blocks, (pl->nr_blocks + 1) * sizeof(*nb));
	if (!nb) {
		free(detail);
		return;
	}
	pl->blocks = nb;
	nb[pl->nr_blocks++] = (struct plan_block){ b->entry, detail };
}

/* Audit keeps each search permission no reader needs as a finding. */
static void keep_extra(const struct reach_extra *x, void *arg)
{
	struct plan *pl = arg;

	plan_add_dir_finding(&pl->extra_search, &pl->nr_extra_search,
			     strdup(x->dir), strdup(x->detail));
}

/*
 * Can the readers of the entries that will be pinned reach them? In
 * apply, an entry with a reader who cannot is still pinned (it grants no
 * more than the policy says), but it counts as failed: unreachable, each
 * stopped reader named. The others are not held up.
 */
/*
 * E does not resolve, but may keep its last good pin: the readers it
 * still resolves need to get through (the pin keeps them). Into *COPY, E
 * as far as it resolves: its grants hold only the resolved names, an
 * owner that does not resolve is root (no reader), and a group that does
 * not resolve is gid 0, whose bits go: the held pin has none for it
 * (perms_held_narrow()).
 */
static const struct policy_entry *resolved_part(const struct policy_entry *e,
						struct policy_entry *copy)
{
	*copy = *e;
	if (e->group_unresolved)
		copy->mode &= ~(mode_t)S_IRWXG;
	return copy;
}

static int check_reach(struct plan *pl)
{
	bool audit = pl->mode == PLAN_AUDIT;
	const struct policy_entry **entries = NULL;
	struct policy_entry *copies = NULL;
	struct plan_item **items = NULL;
	bool *stopped = NULL;
	size_t n = 0;
	int ret = -ENOMEM;

	entries = calloc(pl->nr_items + 1, sizeof(*entries));
	copies = calloc(pl->nr_items + 1, sizeof(*copies));
	items = calloc(pl->nr_items + 1, sizeof(*items));
	stopped = calloc(pl->nr_items + 1, sizeof(*stopped));
	if (!entries || !copies || !items || !stopped)
		goto out;
	/* An entry whose path is missing, or whose users do not all
	 * resolve, may keep its last good pin: its readers still need to
	 * get through.
	 */
	for (size_t i = 0; i < pl->nr_items; i++) {
		struct plan_item *it = &pl->items[i];

		if (it->action == PLAN_SKIP ||
		    (it->action == PLAN_FAIL && !it->holdable))
			continue;
		items[n] = it;
		entries[n++] = it->entry->unresolved ?
			       resolved_part(it->entry, &copies[i]) : it->entry;
	}
	ret = reach_check(entries, n, audit ? GRANT_TRAVERSE_NO : pl->policy.grant_traverse,
			  pl->pin_dir, pl->mode != PLAN_APPLY,
			  audit ? keep_block : NULL, pl, &pl->traverse,
			  audit ? NULL : stopped);
	if (ret == -EACCES) {
		for (size_t i = 0; i < n; i++)
			items[i]->unreachable = stopped[i];
		ret = 0;
	}
	if (!ret && audit)
		ret = reach_extra_search(entries, n, pl->pin_dir, keep_extra, pl);
out:
	free(stopped);
	free(items);
	free(copies);
	free(entries);
	return ret;
}

/* Privileges, bpffs, the kernel: all before anything is opened. 0, 1 if
 * this is a dry run without bpffs (nothing is pinned), or -errno.
 */
static int check_system(struct plan *pl)
{
	int ret, no_bpffs = 0;

	ret = privs_restrict(pl->mode == PLAN_AUDIT ? PRIVS_READ : PRIVS_APPLY);
	if (ret || pl->mode == PLAN_AUDIT)
		return ret ?: check_kernel(pl);
	umask(077);
	ret = mounts_ensure_bpffs(pl->pin_dir, pl->mode == PLAN_DRY_RUN,
				  &pl->mounted_bpffs);
	if (ret < 0)
		return ret;
	no_bpffs = ret == 1;
	ret = check_kernel(pl);
	return ret ?: no_bpffs;
}

/* Did policy_validate() refuse P's pin-dir (said already)? */
static bool pin_dir_refused(const struct policy *p)
{
	bool quiet = diag_quiet;
	int ret;

	diag_quiet = true;
	ret = policy_validate_pin_dir(p);
	diag_quiet = quiet;
	return ret != 0;
}

/*
 * Its new pin-dir is refused (another policy's, or one a pin directory
 * holds or is held by): nothing is made there, but the pins this policy
 * made in the pin-dirs it named before are revoked all the same (a
 * failure fails only what it is about: an edit that moves the pin-dir and
 * drops readers must not leave the old grants). Only the old
 * directories' locks are taken. REFUSED is returned, or -ENOMEM.
 */
static int move_out_refused(struct plan *pl, int refused)
{
	int ret = privs_restrict(PRIVS_APPLY);

	if (ret)
		return ret;
	umask(077);
	ret = plan_move_out(pl);
	return ret == -ENOMEM || ret == -ESTALE ? ret : refused;
}

/* Is the file PATH itself missing (not a drop-in, not unreadable)? */
static bool policy_file_gone(const char *path)
{
	struct stat st;

	return lstat(path, &st) && (errno == ENOENT || errno == ENOTDIR);
}

static int open_pin_dir(struct plan *pl)
{
	int ret;

	if (pl->mode == PLAN_APPLY)
		return pindir_open(&pl->dir, pl->pin_dir, PINDIR_CREATE);
	ret = pindir_open(&pl->dir, pl->pin_dir, PINDIR_LOOK);
	return ret == -ENOENT ? 0 : ret;
}

int plan_build(struct plan *pl, const char *policy_path, enum plan_mode mode,
	       bool force)
{
	struct policy *p = &pl->policy;
	int ret, no_bpffs, refused;
	bool loaded;

	memset(pl, 0, sizeof(*pl));
	pl->mode = mode;
	pl->force = force;
	pl->policy_path = policy_path;
	policy_init(p);
	pindir_init(&pl->dir);
	/* A policy file or drop-in that is missing is an error, not an empty
	 * policy: that would remove every pin.
	 */
	policy_pin_dir_mine = claim_pin_dir_mine;
	ret = policy_load(p, policy_path);
	loaded = !ret;
	if (!ret) {
		ret = policy_validate(p);
		/* Users that do not resolve fail their entries, not the policy. */
		if (ret == -ENOENT && mode != PLAN_AUDIT)
			ret = 0;
	}
	if (claim_policy_name(policy_path, pl->policy_abs))
		snprintf(pl->policy_abs, sizeof(pl->policy_abs), "%s", policy_path);
	/*
	 * Deleting a policy revokes nothing: audit of one that is gone still
	 * reports what it (and every other gone policy) left granted.
	 */
	if (ret == -ENOENT && mode == PLAN_AUDIT && policy_file_gone(policy_path))
		return plan_policy_gone(pl);
	/* A refused pin-dir still revokes the old one (below). */
	if (ret && !(loaded && mode != PLAN_AUDIT && ret != -ENOMEM && pin_dir_refused(p)))
		return ret;
	pl->pin_dir = p->pin_dir ?: POLICY_DEFAULT_PIN_DIR;
	if (p->pin_dir_mode)
		pl->dir.mode = p->pin_dir_mode;
	/* Another policy's pins: refused before anything is changed. */
	refused = ret;
	if (mode != PLAN_AUDIT && !refused)
		refused = plan_claim_check(pl);
	if (refused)
		return refused == -ENOMEM ? refused : move_out_refused(pl, refused);
	no_bpffs = check_system(pl);
	if (no_bpffs < 0)
		return no_bpffs;

	pl->items = calloc(p->nr_entries ?: 1, sizeof(*pl->items));
	if (!pl->items)
		return -ENOMEM;
	pl->nr_items = p->nr_entries;
	for (size_t i = 0; i < p->nr_entries; i++) {
		pl->items[i].entry = &p->entries[i];
		pl->items[i].target.fd = -1;
		if (p->entries[i].unresolved)
			item_fail(&pl->items[i], -ENOENT, true);
	}
	/*
	 * The views first: the verifier takes its time (seconds under
	 * emulation), and an opened path keeps its filesystem busy, which
	 * an umount (a disk pulled while a refresh runs) must not find.
	 */
	ret = load_views(pl);
	if (!ret)
		ret = open_targets(pl);
	/*
	 * The pins it made in a pin-dir it no longer names go before its
	 * pin directory's lock is taken (never two at once), and so before
	 * grant-traverse takes back what only their readers needed.
	 */
	if (!ret && mode != PLAN_AUDIT && !no_bpffs)
		ret = plan_move_out(pl);
	if (!ret && mode == PLAN_AUDIT)
		ret = plan_orphans(pl);
	/* grant-traverse reads and writes ACLs and its record: under the lock. */
	if (!ret && !no_bpffs)
		ret = open_pin_dir(pl);
	/*
	 * What apply commits is the policy as it reads under the lock: one
	 * read before it (a watch's, say) may predate a newer policy that an
	 * apply already committed, and would bring back what that revoked.
	 */
	if (!ret && mode == PLAN_APPLY) {
		ret = policy_changed(p, policy_path);
		pl->policy_changed = ret > 0;
		if (ret > 0)
			ret = -ESTALE;
	}
	/* The claim, again under the lock: checked before, but unlocked. */
	if (!ret && mode == PLAN_APPLY && !no_bpffs)
		ret = plan_claim_locked(pl);
	if (!ret)
		ret = check_reach(pl);
	if (!ret)
		ret = plan_compare(pl);
	return ret;
}

static void free_dir_findings(struct plan_dir_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].dir);
		free(f[i].detail);
	}
	free(f);
}

void plan_free(struct plan *pl)
{
	for (size_t i = 0; i < pl->nr_items; i++)
		target_close(&pl->items[i].target);
	free(pl->items);
	for (size_t i = 0; i < pl->nr_stale; i++)
		free(pl->stale[i]);
	free(pl->stale);
	for (size_t i = 0; i < pl->nr_kept; i++)
		free(pl->kept[i]);
	free(pl->kept);
	for (size_t i = 0; i < pl->nr_blocks; i++)
		free(pl->blocks[i].detail);
	free(pl->blocks);
	free_dir_findings(pl->extra_search, pl->nr_extra_search);
	for (size_t i = 0; i < pl->nr_moved; i++)
		free(pl->moved[i].pin_dir);
	free(pl->moved);
	free_dir_findings(pl->orphans, pl->nr_orphans);
	for (size_t v = 0; v < pl->nr_views; v++)
		view_unload(&pl->views[v]);
	free(pl->views);
	pindir_close(&pl->dir);
	policy_free(&pl->policy);
	memset(pl, 0, sizeof(*pl));
	/* The next plan (watch) reads the mount table again. */
	mounts_forget();
}
