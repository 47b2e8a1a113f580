// SPDX-License-Identifier: GPL-2.0
/*
 * A plan against the other pin directories' manifests (claim.h): the
 * pin directory another policy still claims is refused, the pins this
 * policy made in a pin directory it no longer names are revoked, and
 * audit finds the pins whose policy is gone; plan.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "claim.h"
#include "diag.h"
#include "manifest.h"
#include "plan.h"
#include "privs.h"
#include "traverse.h"
#include "unpin.h"

/* ", which no longer exists" or ", which now names pin-dir NOW", in BUF. */
static const char *owner_words(enum claim_owner owner, const char *now, char *buf,
			       size_t size)
{
	switch (owner) {
	case CLAIM_LIVE:
		return "";
	case CLAIM_GONE:
		return ", which no longer exists (or any user may change it)";
	case CLAIM_MOVED:
		snprintf(buf, size, ", which now names pin-dir %s", now);
		return buf;
	default:
		return ", which cannot be read as a policy now";
	}
}

/* The claim on PL's pin directory, if it has pins: 1 with *OWNER, else 0. */
static int claimed(struct plan *pl, struct claim *c, enum claim_owner *owner,
		   char now[PATH_MAX], size_t *npins)
{
	char **names = NULL;
	size_t n = 0;

	if (claim_read(pl->pin_dir, c) || claim_is(c, pl->policy_abs, pl->policy_path))
		return 0;	/* none, not trusted (said), or this policy's */
	/* Its pins are gone (remove --all): nothing to take from it. */
	if (claim_pins(c, &names, &n) || !n) {
		pindir_free_names(names, n);
		return 0;
	}
	pindir_free_names(names, n);
	*npins = n;
	*owner = claim_owner(c, now);
	return 1;
}

int plan_claim_check(struct plan *pl)
{
	const struct policy *p = &pl->policy;
	const char *file = p->nr_files ? p->files[0] : pl->policy_path;
	char now[PATH_MAX], words[PATH_MAX + 64], where[PATH_MAX + 32];
	enum claim_owner owner;
	const char *w;
	struct claim *c;
	size_t n = 0;
	int ret = 0;

	/* Not root: the manifests are not readable, and apply fails at its
	 * capabilities next.
	 */
	if (geteuid())
		return 0;
	c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (!claimed(pl, c, &owner, now, &n))
		goto out;
	w = owner_words(owner, now, words, sizeof(words));
	if (owner == CLAIM_GONE || owner == CLAIM_MOVED) {
		info("pin-dir %s: its %zu pin%s made by %s%s; %s replace%s %s",
		     ESC(pl->pin_dir), n, n == 1 ? " was" : "s were", ESC(c->policy), w,
		     pl->mode == PLAN_APPLY ? "this apply" : "apply would",
		     pl->mode == PLAN_APPLY ? "s" : "", n == 1 ? "it" : "them");
		goto out;
	}
	if (p->pin_dir)
		snprintf(where, sizeof(where), "%s:%u", ESC(p->pin_dir_loc.file),
			 p->pin_dir_loc.line);
	else
		snprintf(where, sizeof(where), "%s", ESC(file));
	if (pl->force) {
		warn("%s: pin-dir %s%s belongs to %s (its manifest)%s; %s over (--force): its %zu pin%s, and that policy's apply is refused from now on",
		     where, ESC(pl->pin_dir), p->pin_dir ? "" : " (the default)",
		     ESC(c->policy), w, pl->mode == PLAN_APPLY ? "taken" : "would be taken",
		     n, n == 1 ? " goes" : "s go");
		goto out;
	}
	err("%s: pin-dir %s%s belongs to %s (its manifest)%s; remove its pins first ('fsiter-pin remove --pin-dir %s --all'), or take it over with --force",
	    where, ESC(pl->pin_dir), p->pin_dir ? "" : " (the default)", ESC(c->policy),
	    w, ESC(pl->pin_dir));
	ret = -EBUSY;
out:
	free(c);
	return ret;
}

int plan_claim_locked(struct plan *pl)
{
	/* --force took it over already: only the same warning again. */
	if (pl->mode != PLAN_APPLY || pl->force)
		return 0;
	return plan_claim_check(pl);
}

static int add_moved(const struct claim *c, void *arg)
{
	struct plan *pl = arg;
	struct plan_moved *m;

	if (!strcmp(c->pin_dir, pl->pin_dir) || !claim_is(c, pl->policy_abs, pl->policy_path))
		return 0;
	m = realloc(pl->moved, (pl->nr_moved + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	pl->moved = m;
	m[pl->nr_moved] = (struct plan_moved){ strdup(c->pin_dir), 0, 0 };
	return m[pl->nr_moved++].pin_dir ? 0 : -ENOMEM;
}

/* --dry-run: what apply would remove from M. */
static int would_move(struct plan *pl, struct plan_moved *m, const struct claim *c,
		      const char *why)
{
	char **names = NULL;
	size_t n = 0;
	int ret = claim_pins(c, &names, &n);

	for (size_t i = 0; !ret && i < n; i++)
		outf("would remove %s/%s: %s\n", ESC(m->pin_dir), ESC(names[i]), ESC(why));
	m->removed = n;
	pindir_free_names(names, n);
	return ret;
}

/*
 * Is NAME, in the old pin directory OLD, on the way to the new pin-dir
 * NOW (A to A/sub: A's "sub", and "sub_staging", its work directory)?
 * Those are no pins of the old one's to remove.
 */
static bool leads_to(const char *old, const char *now, const char *name)
{
	size_t n = strlen(old), len;
	const char *rest, *slash;

	if (strncmp(now, old, n) || now[n] != '/')
		return false;
	rest = now + n + 1;
	slash = strchr(rest, '/');
	len = slash ? (size_t)(slash - rest) : strlen(rest);
	if (!strncmp(name, rest, len) && !name[len])
		return true;
	return !slash && !strncmp(name, rest, len) && !strcmp(name + len, POLICY_WORK_SUFFIX);
}

/* NAMES without those that lead_to() the new pin-dir. */
static void skip_new(const struct plan *pl, const char *old, char **names, size_t *n)
{
	size_t kept = 0;

	for (size_t i = 0; i < *n; i++) {
		if (leads_to(old, pl->pin_dir, names[i]))
			free(names[i]);
		else
			names[kept++] = names[i];
	}
	*n = kept;
}

/*
 * The old pin directory OLD, emptied, inside the new pin-dir (A/sub to
 * A): it and its work directory go, so that the new one holds no
 * directory that is not its own. What cannot go stays (said by the
 * apply that finds it).
 */
static void remove_inside(const struct plan *pl, const char *old)
{
	size_t n = strlen(pl->pin_dir);
	char work[PATH_MAX + 16];

	if (strncmp(old, pl->pin_dir, n) || old[n] != '/')
		return;
	snprintf(work, sizeof(work), "%s%s", old, POLICY_WORK_SUFFIX);
	rmdir(work);
	rmdir(old);
}

/*
 * D, opened without its work directory (it was never applied, or that
 * was removed), so without the lock that is on it: make it (root's, 0700)
 * and open PIN_DIR again, locked, into D. 0 or -errno (said).
 */
static int lock_made(struct pin_dir *d, const char *pin_dir)
{
	const char *work = strrchr(d->work_path, '/') + 1;
	int ret = 0;

	if (mkdirat(d->parent_fd, work, 0700) && errno != EEXIST) {
		ret = -errno;
		err("%s: cannot create it: %s", ESC(d->work_path), strerror(-ret));
	}
	pindir_close(d);
	if (!ret)
		ret = pindir_open(d, pin_dir, 0);
	if (!ret && d->work_fd < 0)
		ret = -ENOLCK;	/* gone again: not without the lock */
	return ret;
}

/* Apply: revoke and remove what is in M (its manifest C), as remove does. */
static int move_out(struct plan *pl, struct plan_moved *m, const struct claim *c,
		    const char *why)
{
	struct claim *again = malloc(sizeof(*again));
	char **names = NULL;
	struct pin_dir d;
	size_t n = 0;
	bool emptied = false;
	int ret;

	pindir_init(&d);
	/* Opened without a link on the way first (claim.h), then locked. */
	ret = again ? claim_pins(c, &names, &n) : -ENOMEM;
	pindir_free_names(names, n);
	names = NULL;
	n = 0;
	if (!ret)
		ret = pindir_open(&d, m->pin_dir, 0);
	if (!ret && d.work_fd < 0)
		ret = lock_made(&d, m->pin_dir);
	if (ret == -ENOENT) {	/* nothing there: the manifest is stale */
		ret = claim_drop(c);
		goto out;
	}
	if (ret)
		goto out;
	/* Under its lock: another policy's apply may have taken it since. */
	if (claim_read(m->pin_dir, again) || !claim_is(again, pl->policy_abs, pl->policy_path)) {
		info_v("%s: no longer this policy's", m->pin_dir);
		goto out;
	}
	/*
	 * And the policy, read before any lock, may have changed since (its
	 * pin-dir set back to this one, say): nothing goes on a policy that
	 * is no longer the file's; plan_apply() reads it again.
	 */
	ret = policy_changed(&pl->policy, pl->policy_path);
	if (ret > 0) {
		pl->policy_changed = true;
		ret = -ESTALE;
		goto out;
	}
	if (ret)
		goto out;
	ret = pindir_names(&d, &names, &n);
	if (!ret)
		skip_new(pl, m->pin_dir, names, &n);
	if (!ret)
		ret = unpin(&d, names, n, pl->force, why, &m->removed, &emptied);
	pindir_free_names(names, n);
	names = NULL;
	n = 0;
	/* Nothing left but the way to the new pin-dir: emptied all the same. */
	if (!ret && !emptied && !pindir_names(&d, &names, &n)) {
		skip_new(pl, m->pin_dir, names, &n);
		if (!n && !(ret = traverse_forget(m->pin_dir)))
			emptied = true;
	}
	if (!ret && emptied)
		ret = claim_drop(again);
	if (!ret && emptied) {
		pindir_close(&d);
		remove_inside(pl, m->pin_dir);
	}
out:
	if (ret && ret != -EEXIST && ret != -ESTALE)
		err("%s: cannot revoke the pins %s made there: %s", ESC(m->pin_dir),
		    ESC(pl->policy_path), strerror(-ret));
	pindir_free_names(names, n);
	pindir_close(&d);
	free(again);
	return ret;
}

int plan_move_out(struct plan *pl)
{
	struct claim *c = malloc(sizeof(*c));
	char why[PATH_MAX + 64];
	int ret;

	if (!c)
		return -ENOMEM;
	ret = geteuid() ? 0 : claim_each(add_moved, pl);
	if (ret == -ENOMEM)
		goto out;
	if (ret)
		warn("%s: cannot read the manifests: %s; the pins of a pin-dir this policy named before are not looked for",
		     manifest_dir, strerror(-ret));
	ret = 0;
	snprintf(why, sizeof(why), "the policy's pin-dir is now %s", pl->pin_dir);
	for (size_t i = 0; i < pl->nr_moved; i++) {
		struct plan_moved *m = &pl->moved[i];

		if (claim_read(m->pin_dir, c))
			continue;	/* gone since */
		m->err = pl->mode == PLAN_APPLY ? move_out(pl, m, c, why) :
			 would_move(pl, m, c, why);
		/* -ESTALE: the policy changed; plan_apply() reads it again. */
		if (m->err == -ENOMEM || m->err == -ESTALE) {
			ret = m->err;
			break;
		}
	}
out:
	free(c);
	return ret;
}

size_t plan_moved_removed(const struct plan *pl)
{
	size_t n = 0;

	for (size_t i = 0; i < pl->nr_moved; i++)
		n += pl->moved[i].removed;
	return n;
}

int plan_add_dir_finding(struct plan_dir_finding **list, size_t *n,
			 char *dir, char *detail)
{
	struct plan_dir_finding *nf;

	nf = dir && detail ? realloc(*list, (*n + 1) * sizeof(*nf)) : NULL;
	if (!nf) {
		free(dir);
		free(detail);
		return -ENOMEM;
	}
	*list = nf;
	nf[(*n)++] = (struct plan_dir_finding){ dir, detail };
	return 0;
}

static int add_orphan(struct plan *pl, const struct claim *c, const char *name,
		      const char *words)
{
	char *pin = NULL, *detail = NULL;

	if (asprintf(&pin, "%s/%s", c->pin_dir, name) < 0)
		pin = NULL;
	if (pin && asprintf(&detail, "made by %s%s, yet its owner, mode and ACL still let its readers in; 'fsiter-pin remove --pin-dir %s --all' revokes it",
			    c->policy, words, c->pin_dir) < 0)
		detail = NULL;
	return plan_add_dir_finding(&pl->orphans, &pl->nr_orphans, pin, detail);
}

static int orphans_of(const struct claim *c, void *arg)
{
	char now[PATH_MAX], words[PATH_MAX + 64];
	struct plan *pl = arg;
	enum claim_owner owner;
	char **names = NULL;
	size_t n = 0;
	int ret;

	/* This policy's own pin directory: compared entry by entry. */
	if (!strcmp(c->pin_dir, pl->pin_dir))
		return 0;
	owner = claim_owner(c, now);
	if (owner == CLAIM_LIVE)
		return 0;
	ret = claim_pins(c, &names, &n);
	if (ret)
		warn("%s: cannot look at its pins: %s", ESC(c->pin_dir), strerror(-ret));
	else if (n && owner == CLAIM_UNKNOWN)
		info("%s: its pins were made by %s, which cannot be read as a policy now: whether they are orphaned cannot be told",
		     ESC(c->pin_dir), ESC(c->policy));
	for (size_t i = 0; !ret && owner != CLAIM_UNKNOWN && i < n; i++)
		ret = add_orphan(pl, c, names[i], owner_words(owner, now, words, sizeof(words)));
	pindir_free_names(names, n);
	return ret == -ENOMEM ? ret : 0;
}

int plan_orphans(struct plan *pl)
{
	int ret = geteuid() ? 0 : claim_each(orphans_of, pl);

	if (ret && ret != -ENOMEM) {
		warn("%s: cannot read the manifests: %s; orphaned pins are not looked for",
		     manifest_dir, strerror(-ret));
		ret = 0;
	}
	return ret;
}

/* A pin directory whose manifest names PL's policy, which is gone. */
static int gone_names(const struct claim *c, void *arg)
{
	struct plan *pl = arg;
	char **names = NULL;
	size_t n = 0;

	if (!claim_is(c, pl->policy_abs, pl->policy_path))
		return 0;
	pl->nr_moved++;	/* counted only: nothing is moved in audit */
	if (claim_pins(c, &names, &n))
		n = 0;
	pindir_free_names(names, n);
	if (n)
		warn("%s: the policy is gone, and deleting it revoked nothing: the %zu pin%s it made in %s still let%s %s readers in; 'fsiter-pin remove --pin-dir %s --all' revokes %s",
		     ESC(pl->policy_path), n, n == 1 ? "" : "s", ESC(c->pin_dir),
		     n == 1 ? "s" : "", n == 1 ? "its" : "their", ESC(c->pin_dir),
		     n == 1 ? "it" : "them");
	return 0;
}

int plan_policy_gone(struct plan *pl)
{
	size_t named;
	int ret;

	pl->policy_gone = true;
	pl->pin_dir = "";	/* none: every manifest's pins are looked at */
	ret = privs_restrict(PRIVS_READ);
	if (ret)
		return ret;
	ret = geteuid() ? 0 : claim_each(gone_names, pl);
	named = pl->nr_moved;
	pl->nr_moved = 0;
	if (ret == -ENOMEM)
		return ret;
	ret = plan_orphans(pl);
	if (ret)
		return ret;
	return named || pl->nr_orphans ? 0 : -ENOENT;
}
