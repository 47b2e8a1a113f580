// SPDX-License-Identifier: GPL-2.0
/* grant-traverse's entries: added, recorded, taken back; traverse.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <acl/libacl.h>
#include "diag.h"
#include "dir_trust.h"
#include "fault.h"
#include "traverse.h"

static bool has_x(acl_entry_t ent)
{
	acl_permset_t ps;

	return !acl_get_permset(ent, &ps) && acl_get_perm(ps, ACL_EXECUTE) == 1;
}

static int set_x(acl_entry_t ent, bool on)
{
	acl_permset_t ps;

	if (acl_get_permset(ent, &ps) ||
	    (on ? acl_add_perm(ps, ACL_EXECUTE) : acl_delete_perm(ps, ACL_EXECUTE)) ||
	    acl_set_permset(ent, ps))
		return -errno;
	return 0;
}

/* The entry of ACL with TAG ('u', 'g', 'o', 'm') and ID, or NULL. */
static acl_entry_t find_entry(acl_t acl, char tag, unsigned int id)
{
	acl_tag_t want = tag == 'u' ? ACL_USER : tag == 'g' ? ACL_GROUP :
			 tag == 'o' ? ACL_OTHER : ACL_MASK;
	acl_entry_t ent;
	acl_tag_t t;

	for (int e = ACL_FIRST_ENTRY; acl_get_entry(acl, e, &ent) == 1; e = ACL_NEXT_ENTRY) {
		unsigned int *q;
		bool same;

		if (acl_get_tag_type(ent, &t) || t != want)
			continue;
		if (tag != 'u' && tag != 'g')
			return ent;
		q = acl_get_qualifier(ent);
		same = q && *q == id;
		acl_free(q);
		if (same)
			return ent;
	}
	return NULL;
}

bool traverse_needs_others(acl_t acl, const struct reader *r)
{
	acl_entry_t mask = find_entry(acl, 'm', 0);

	return r->kind == READER_OTHER || (mask && !has_x(mask));
}

int traverse_grant(acl_t *acl, const char *dir, const struct reader *r,
		   bool others, struct traverse *t, unsigned int *did)
{
	char tag = traverse_reader_tag(r);
	acl_entry_t mine, mask;
	acl_permset_t ps;
	int ret = 0;

	*did = 0;
	mine = find_entry(*acl, tag, r->id);
	mask = find_entry(*acl, 'm', 0);
	if (!others && traverse_needs_others(*acl, r))
		return 1;
	if (!mine && (acl_create_entry(acl, &mine) ||
		      acl_set_tag_type(mine, tag == 'u' ? ACL_USER : ACL_GROUP) ||
		      acl_set_qualifier(mine, &r->id) || acl_get_permset(mine, &ps) ||
		      acl_clear_perms(ps) || acl_set_permset(mine, ps)))
		return -errno;
	if (!has_x(mine)) {
		ret = set_x(mine, true);
		if (!ret)
			*did |= TRAVERSE_ENTRY;
		if (!ret && t)
			ret = traverse_rec_add(t, dir, tag, tag == 'o' ? 0 : r->id);
	}
	if (ret || tag == 'o')
		return ret;
	if (!mask) {	/* a first named entry: the group class's union */
		if (acl_calc_mask(acl))
			return -errno;
		*did |= TRAVERSE_MASK_MADE;
		return t ? traverse_rec_add(t, dir, 'c', 0) : 0;
	}
	if (has_x(mask))
		return 0;
	ret = set_x(mask, true);
	if (!ret)
		*did |= TRAVERSE_MASK;
	return !ret && t ? traverse_rec_add(t, dir, 'm', 0) : ret;
}

/* Has ACL a named user or group entry? */
static bool has_named(acl_t acl)
{
	acl_entry_t ent;
	acl_tag_t t;

	for (int e = ACL_FIRST_ENTRY; acl_get_entry(acl, e, &ent) == 1; e = ACL_NEXT_ENTRY)
		if (!acl_get_tag_type(ent, &t) && (t == ACL_USER || t == ACL_GROUP))
			return true;
	return false;
}

/* What take_back() did. */
enum taken { TOOK_NOTHING, TOOK_X, TOOK_ENTRY, TOOK_MASK, KEPT_MASK, KEPT_UNSAFE };

/*
 * Take REC's x back in ACL, in memory: a named entry it leaves with
 * nothing goes; a mask apply created goes once no named entry is left.
 * Says what it did in *DID. 0 or -errno.
 */
static int take_from_acl(acl_t acl, const struct traverse_rec *rec, enum taken *did)
{
	bool named = rec->tag == 'u' || rec->tag == 'g';
	acl_entry_t ent;
	acl_permset_t ps;
	int ret = 0;

	*did = TOOK_NOTHING;
	ent = find_entry(acl, rec->tag == 'c' ? 'm' : rec->tag, rec->id);
	if (!ent)
		return 0;	/* gone already */
	if (rec->tag == 'c' && has_named(acl)) {
		*did = KEPT_MASK;
		return 0;
	}
	if (rec->tag == 'c') {
		ret = acl_delete_entry(acl, ent) ? -errno : 0;
		*did = TOOK_MASK;
	} else if (has_x(ent)) {
		ret = set_x(ent, false);
		*did = TOOK_X;
	}
	if (!ret && named && *did == TOOK_X && !acl_get_permset(ent, &ps) &&
	    acl_get_perm(ps, ACL_READ) != 1 && acl_get_perm(ps, ACL_WRITE) != 1) {
		ret = acl_delete_entry(acl, ent) ? -errno : 0;
		*did = TOOK_ENTRY;
	}
	return ret;
}

static const char *rec_name(const struct traverse_rec *rec, char *buf, size_t size)
{
	if (rec->tag == 'u' || rec->tag == 'g')
		snprintf(buf, size, "%s:%u", rec->tag == 'u' ? "u" : "g", rec->id);
	else
		snprintf(buf, size, "%s", rec->tag == 'o' ? "o" : "the ACL mask");
	return buf;
}

/* Take REC's x back in its directory (take_from_acl()), and say what it
 * did in *DID. 0 or -errno: nothing changed.
 */
static int take_back(const struct traverse_rec *rec, enum taken *did)
{
	struct dir_trust trust;
	char fd_path[32];
	struct stat st;
	acl_t acl = NULL;
	int fd, ret = 0;

	*did = TOOK_NOTHING;
	/* Read and set through one fd, no link followed (reach.c's way). */
	fd = dir_open_trusted(rec->dir, &st, &trust);
	/* No longer a directory (a link, a file another tool put there):
	 * as if gone, said, so that one such path does not fail every
	 * apply that shares the record.
	 */
	if (fd == -ENOTDIR || fd == -ELOOP) {
		char who[32];

		warn("%s: no longer a directory (%s); grant-traverse forgets the x it gave %s there: if the directory was moved, check its ACL by hand",
		     ESC(rec->dir), strerror(-fd), rec_name(rec, who, sizeof(who)));
	}
	if (fd < 0)
		return fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP ? 0 : fd;
	if (trust.who != DIR_SAFE) {
		char by[300];

		warn("%s: %s %s so grant-traverse takes nothing back there (a user could put another file in its place); what it gave stays, and the next apply tries again",
		     ESC(rec->dir), trust.who == DIR_OWNER ? "it may be changed by" :
		     "its parent may be changed by", dir_trust_who(&trust, by, sizeof(by)));
		*did = KEPT_UNSAFE;
		goto out;
	}
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	acl = acl_get_file(fd_path, ACL_TYPE_ACCESS);
	if (!acl) {
		ret = -errno;
		goto out;
	}
	ret = take_from_acl(acl, rec, did);
	if (!ret && *did != TOOK_NOTHING && *did != KEPT_MASK)
		ret = fault_at("traverse");
	if (!ret && *did != TOOK_NOTHING && *did != KEPT_MASK &&
	    acl_set_file(fd_path, ACL_TYPE_ACCESS, acl))
		ret = -errno;
out:
	if (acl)
		acl_free(acl);
	close(fd);
	return ret;
}


/* Say what take_back() did with REC, once it is done. */
static void say_taken(const struct traverse_rec *rec, enum taken did)
{
	const char *dir = ESC(rec->dir);
	char who[32];

	rec_name(rec, who, sizeof(who));
	switch (did) {
	case TOOK_X:
		info("took back search permission on %s from %s (grant-traverse added it; no reader needs it now)",
		     dir, who);
		break;
	case TOOK_ENTRY:
		info("took back search permission on %s from %s, and removed the entry, which had no other permission (grant-traverse added it; no reader needs it now)",
		     dir, who);
		break;
	case TOOK_MASK:
		info("removed the ACL mask of %s (grant-traverse made it; no named entry is left)",
		     dir);
		break;
	case KEPT_MASK:
		info("left the ACL mask of %s that grant-traverse made: named entries it did not add are there",
		     dir);
		break;
	case KEPT_UNSAFE:	/* said by take_back() */
		break;
	case TOOK_NOTHING:
		info_v("%s: %s has no search permission to take back", dir, who);
		break;
	}
}

/* Is what REC names there: its entry with x, or the mask it made? */
static bool rec_present(const struct traverse_rec *rec)
{
	acl_entry_t ent;
	bool there;
	acl_t acl;

	acl = acl_get_file(rec->dir, ACL_TYPE_ACCESS);
	if (!acl)
		return errno != ENOENT;	/* unknown: as if there */
	ent = find_entry(acl, rec->tag == 'c' ? 'm' : rec->tag, rec->id);
	there = ent && (rec->tag == 'c' || has_x(ent));
	acl_free(acl);
	return there;
}

/*
 * Does a reader need the x of DIR's mask: has its ACL a named entry with
 * x that a reader of some pin directory needs (a user, its groups'),
 * other than one of T's records that DROP takes back? An entry an
 * administrator made counts as well as grant-traverse's: it may work only
 * through the mask that grant-traverse raised. If the ACL cannot be read,
 * yes.
 */
static bool mask_needed(const struct traverse *t, const bool *drop, const char *dir)
{
	acl_entry_t ent;
	acl_tag_t tag;
	bool needed = false;
	acl_t acl;

	acl = acl_get_file(dir, ACL_TYPE_ACCESS);
	if (!acl)
		return errno != ENOENT;
	for (int e = ACL_FIRST_ENTRY; !needed && acl_get_entry(acl, e, &ent) == 1;
	     e = ACL_NEXT_ENTRY) {
		unsigned int *q, id;
		bool dropped = false;
		char c;

		if (acl_get_tag_type(ent, &tag) || (tag != ACL_USER && tag != ACL_GROUP) ||
		    !has_x(ent) || !(q = acl_get_qualifier(ent)))
			continue;
		id = *q;
		acl_free(q);
		c = tag == ACL_USER ? 'u' : 'g';
		for (size_t j = 0; j < t->n; j++)
			dropped |= drop[j] && t->r[j].tag == c && t->r[j].id == id &&
				   !strcmp(t->r[j].dir, dir);
		needed = !dropped && traverse_needed(t, dir, c, id, true);
	}
	acl_free(acl);
	return needed;
}

bool traverse_relied_on(const struct traverse *t, const char *dir, acl_t acl,
			const struct stat *st, char tag, unsigned int id)
{
	struct traverse_rec rec = { (char *)dir, tag, id };
	enum taken did;
	acl_t trial;
	bool cut;

	trial = acl_dup(acl);
	if (!trial || take_from_acl(trial, &rec, &did)) {
		if (trial)
			acl_free(trial);
		return true;	/* unknown: as if relied on */
	}
	cut = traverse_cuts_off(t, dir, acl, trial, st, false);
	acl_free(trial);
	return cut;
}

/*
 * Keep the records of DIR that DROP would take back and that a reader
 * gets through by now, whoever that reader is granted by: o+x, the mask
 * for group:: or for an entry an administrator made. Each is tried on
 * DIR's ACL in memory, as take_back() would leave it after those taken
 * so far (named entries and o first, then the mask). A reader of another
 * pin directory counts for every record: this run cannot give it
 * anything. This run's own readers count for the mask only: it gives
 * them the entries they lack, but raising the mask again would take
 * 'others'.
 */
static void keep_relied_on(const struct traverse *t, bool *drop, const char *dir)
{
	const struct traverse_need *nd;
	struct stat st;
	acl_t sim, trial;
	enum taken did;
	char who[32];

	if (stat(dir, &st))
		return;		/* take_back() finds nothing, or says why */
	sim = acl_get_file(dir, ACL_TYPE_ACCESS);
	if (!sim)
		return;
	for (int mask = 0; mask < 2; mask++) {
		for (size_t i = 0; i < t->n; i++) {
			if (!drop[i] || !!strchr("mc", t->r[i].tag) != mask ||
			    strcmp(t->r[i].dir, dir))
				continue;
			trial = acl_dup(sim);
			if (!trial || take_from_acl(trial, &t->r[i], &did)) {
				drop[i] = false;	/* unknown: kept */
				if (trial)
					acl_free(trial);
				continue;
			}
			nd = traverse_cuts_off(t, dir, sim, trial, &st, mask);
			if (!nd) {
				acl_free(sim);
				sim = trial;
				continue;
			}
			info_v("%s: %s keeps its search permission: a reader of %s gets through by it",
			       ESC(dir), rec_name(&t->r[i], who, sizeof(who)), ESC(nd->pin_dir));
			drop[i] = false;
			acl_free(trial);
		}
	}
	acl_free(sim);
}

int traverse_take_back(struct traverse *t, bool dry_run)
{
	enum taken did;
	size_t kept = 0;
	char who[32];
	bool *drop;
	int ret = 0, r;

	drop = calloc(t->n + 1, sizeof(*drop));
	if (!drop)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		drop[i] = !strchr("mc", t->r[i].tag) &&
			  !traverse_needed(t, t->r[i].dir, t->r[i].tag, t->r[i].id, false);
	/* A mask, as long as a reader needs a named entry in its directory. */
	for (size_t i = 0; i < t->n; i++)
		drop[i] |= strchr("mc", t->r[i].tag) && !mask_needed(t, drop, t->r[i].dir);
	/* And what a reader gets through by, once per directory. */
	for (size_t i = 0; i < t->n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(t->r[j].dir, t->r[i].dir);
		if (!seen)
			keep_relied_on(t, drop, t->r[i].dir);
	}
	/* A record of what is not there (a run killed before it set the
	 * ACL) goes now, needed or not: else an entry an administrator adds
	 * later by hand would be taken for grant-traverse's. take_back()
	 * changes nothing for it; this apply records it again if it adds it.
	 */
	for (size_t i = 0; !dry_run && i < t->n; i++)
		drop[i] |= !rec_present(&t->r[i]);
	/* Named entries and o first: a mask goes once they have. */
	for (int mask = 0; mask < 2; mask++) {
		for (size_t i = 0; i < t->n; i++) {
			if (!drop[i] || !!strchr("mc", t->r[i].tag) != mask)
				continue;
			if (mask && ret) {	/* a named entry stayed */
				drop[i] = false;
				continue;
			}
			if (dry_run) {
				info("would take back search permission on %s from %s (grant-traverse added it; no reader needs it now)",
				     ESC(t->r[i].dir), rec_name(&t->r[i], who, sizeof(who)));
				continue;
			}
			r = take_back(&t->r[i], &did);
			if (r) {
				err("%s: cannot take back search permission from %s: %s; it stays, and the next apply tries again",
				    ESC(t->r[i].dir), rec_name(&t->r[i], who, sizeof(who)),
				    strerror(-r));
				ret = ret ?: r;
				drop[i] = false;
				continue;
			}
			say_taken(&t->r[i], did);
			if (did == KEPT_UNSAFE) {
				drop[i] = false;
				continue;
			}
			t->taken += did == TOOK_X || did == TOOK_ENTRY || did == TOOK_MASK;
		}
	}
	for (size_t i = 0; i < t->n; i++) {
		if (!drop[i] || dry_run) {
			t->r[kept++] = t->r[i];
			continue;
		}
		free(t->r[i].dir);
		t->changed = true;
	}
	t->n = kept;
	free(drop);
	return ret;
}
