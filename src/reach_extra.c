// SPDX-License-Identifier: GPL-2.0
/*
 * audit: search permissions on the bpffs directories above the pins that
 * no reader needs (reach.h): an entry added by hand, or one grant-traverse
 * added for a reader that is gone, lets its user or group open any name
 * there whose own mode lets them, other tools' pins included.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <acl/libacl.h>
#include "reach.h"
#include "traverse.h"

static bool has_x(acl_entry_t ent)
{
	acl_permset_t ps;

	return !acl_get_permset(ent, &ps) && acl_get_perm(ps, ACL_EXECUTE) == 1;
}

/* Did grant-traverse add TAG ID's x on DIR, by T's record? */
static bool added(const struct traverse *t, const char *dir, char tag, unsigned int id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->r[i].tag == tag && t->r[i].id == id && !strcmp(t->r[i].dir, dir))
			return true;
	return false;
}

/* "u:alice" or "g:1234" (a name NSS does not know). */
static void entry_name(char tag, unsigned int id, char *buf, size_t size)
{
	struct passwd *pw = tag == 'u' ? getpwuid(id) : NULL;
	struct group *gr = tag == 'g' ? getgrgid(id) : NULL;

	if (pw || gr)
		snprintf(buf, size, "%c:%s", tag, pw ? pw->pw_name : gr->gr_name);
	else
		snprintf(buf, size, "%c:%u", tag, id);
}

static void report(const struct traverse *t, const char *dir, char tag,
		   unsigned int id, reach_extra_fn fn, void *arg)
{
	char who[300], detail[PATH_MAX + 1100], fix[PATH_MAX + 360];

	if (tag == 'o') {
		snprintf(who, sizeof(who), "every user has search permission (o+x)");
		snprintf(fix, sizeof(fix), "'chmod o-x %s' would take it away", dir);
	} else {
		entry_name(tag, id, who, sizeof(who));
		snprintf(fix, sizeof(fix), "'setfacl -x %s %s' would take it away", who, dir);
		snprintf(who + strlen(who), sizeof(who) - strlen(who), " has search permission (x)");
	}
	snprintf(detail, sizeof(detail), "%s, which no reader of this policy nor of another pin directory needs; %s",
		 who, added(t, dir, tag, id) ?
		 "grant-traverse added it, and the next apply takes it back" : fix);
	fn(&(struct reach_extra){ dir, detail }, arg);
}

/* The x entries of DIR's ACL that no one needs; o+x too if TOPMOST. */
static int check_dir(const struct traverse *t, const char *dir, bool topmost,
		     reach_extra_fn fn, void *arg)
{
	struct traverse_rec *cand;
	size_t ncand = 0;
	bool mask_x = true;
	acl_entry_t ent;
	acl_tag_t tag;
	struct stat st;
	acl_t acl;

	if (stat(dir, &st))
		return -errno;
	acl = acl_get_file(dir, ACL_TYPE_ACCESS);
	if (!acl && errno == EOPNOTSUPP)
		acl = acl_from_mode(st.st_mode);
	if (!acl)
		return -errno;
	for (int e = ACL_FIRST_ENTRY; acl_get_entry(acl, e, &ent) == 1; e = ACL_NEXT_ENTRY)
		if (!acl_get_tag_type(ent, &tag) && tag == ACL_MASK)
			mask_x = has_x(ent);
	/* The candidates first: testing one walks ACL again (its cursor). */
	cand = calloc(acl_entries(acl) + 1, sizeof(*cand));
	if (!cand) {
		acl_free(acl);
		return -ENOMEM;
	}
	for (int e = ACL_FIRST_ENTRY; acl_get_entry(acl, e, &ent) == 1; e = ACL_NEXT_ENTRY) {
		unsigned int *q;

		if (acl_get_tag_type(ent, &tag) || !has_x(ent))
			continue;
		if (tag == ACL_OTHER && topmost) {
			cand[ncand++] = (struct traverse_rec){ NULL, 'o', 0 };
			continue;
		}
		if ((tag != ACL_USER && tag != ACL_GROUP) || !mask_x)
			continue;
		q = acl_get_qualifier(ent);
		if (!q)
			continue;
		cand[ncand++] = (struct traverse_rec){ NULL, tag == ACL_USER ? 'u' : 'g', *q };
		acl_free(q);
	}
	/* Not needed by name, nor gotten through by (o+x for a named
	 * reader, say): the take-back's own test.
	 */
	for (size_t i = 0; i < ncand; i++)
		if (!traverse_needed(t, dir, cand[i].tag, cand[i].id, true) &&
		    !traverse_relied_on(t, dir, acl, &st, cand[i].tag, cand[i].id))
			report(t, dir, cand[i].tag, cand[i].id, fn, arg);
	free(cand);
	acl_free(acl);
	return 0;
}

int reach_extra_search(const struct policy_entry *const *entries, size_t n,
		       const char *pin_dir, reach_extra_fn fn, void *arg)
{
	size_t len = strlen(pin_dir), nr = 0;
	struct reader *rs = NULL;
	bool topmost = true;
	struct traverse t;
	char dir[PATH_MAX];
	struct statfs sf;
	int ret;

	ret = reach_readers_of(entries, n, &rs, &nr);
	if (ret)
		return ret;
	ret = traverse_load(&t, pin_dir, false) ?: traverse_set_readers(&t, rs, nr);
	/* Each parent of PIN_DIR, from the top; PIN_DIR has its own check. */
	for (size_t end = 1; !ret && end < len; end++) {
		if (pin_dir[end] != '/')
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)end, pin_dir);
		if (statfs(dir, &sf)) {
			ret = errno == ENOENT ? 0 : -errno;
			break;
		}
		if ((unsigned long)sf.f_type != reach_fs_magic)
			continue;
		ret = check_dir(&t, dir, topmost, fn, arg);
		topmost = false;
	}
	/* Readers the record keeps for pin directories that are gone. */
	for (size_t i = 0; !ret && i < t.nn; i++) {
		if (!t.need[i].stale || (i && !strcmp(t.need[i - 1].pin_dir, t.need[i].pin_dir)))
			continue;
		fn(&(struct reach_extra){ t.need[i].pin_dir,
			"grant-traverse's record keeps readers of this pin directory, which no longer exists; they count for nothing, and the next apply forgets them" },
		   arg);
	}
	traverse_free(&t);
	free(rs);
	return ret;
}
