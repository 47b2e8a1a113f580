// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <acl/libacl.h>
#include "perms.h"

static int add_entry(acl_t *acl, acl_tag_t tag, unsigned int id,
		     acl_perm_t perm)
{
	acl_permset_t ps;
	acl_entry_t ent;

	if (acl_create_entry(acl, &ent) || acl_set_tag_type(ent, tag) ||
	    acl_set_qualifier(ent, &id) || acl_get_permset(ent, &ps) ||
	    acl_clear_perms(ps) || (perm && acl_add_perm(ps, perm)) ||
	    acl_set_permset(ent, ps))
		return -errno;
	return 0;
}

int perms_build_acl(const struct policy_entry *e, acl_t *out)
{
	acl_t acl;
	int ret;

	acl = acl_from_mode(e->mode);
	if (!acl)
		return -errno;
	for (size_t i = 0; i < e->nr_grants; i++) {
		const struct policy_grant *g = &e->grants[i];

		ret = add_entry(&acl, g->is_group ? ACL_GROUP : ACL_USER, g->id,
				g->read ? ACL_READ : 0);
		if (ret) {
			acl_free(acl);
			return ret;
		}
	}
	if (e->nr_grants && acl_calc_mask(&acl)) {
		ret = -errno;
		acl_free(acl);
		return ret;
	}
	*out = acl;
	return 0;
}

int perms_set(int dirfd, const char *name, const char *path,
	      const struct policy_entry *e)
{
	acl_t acl = NULL;
	int ret;

	if (fchownat(dirfd, name, e->uid, e->gid, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (!e->nr_grants)
		return fchmodat(dirfd, name, e->mode, 0) ? -errno : 0;
	ret = perms_build_acl(e, &acl);
	if (ret)
		return ret;
	/* The ACL carries the mode: owner, group class (mask) and other. */
	if (acl_set_file(path, ACL_TYPE_ACCESS, acl))
		ret = -errno;
	acl_free(acl);
	return ret;
}

int perms_diff(int dirfd, const char *name, const char *path,
	       const struct policy_entry *e)
{
	acl_t want = NULL, have = NULL;
	struct stat st;
	int diff = 0, ret;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (st.st_uid != e->uid || st.st_gid != e->gid)
		diff |= PERMS_OWNER;
	/* With named grants the group bits show the ACL mask: compare ACLs. */
	if (!e->nr_grants && (st.st_mode & 07777) != e->mode)
		diff |= PERMS_MODE;
	have = acl_get_file(path, ACL_TYPE_ACCESS);
	if (!have) {
		/* A bpffs without ACLs: the mode is all there is. */
		if (errno == EOPNOTSUPP && !e->nr_grants)
			return diff;
		return -errno;
	}
	ret = perms_build_acl(e, &want);
	if (!ret) {
		ret = acl_cmp(want, have);
		if (ret < 0)
			ret = -errno;
		/* Without grants, a differing mode shows in the ACL too:
		 * the ACL differs only if it has entries of its own.
		 */
		else if (ret && (e->nr_grants || acl_equiv_mode(have, NULL) == 1))
			diff |= PERMS_ACL;
	}
	acl_free(want);
	acl_free(have);
	return ret < 0 ? ret : diff;
}

int perms_match(int dirfd, const char *name, const char *path,
		const struct policy_entry *e, const char **what)
{
	int diff = perms_diff(dirfd, name, path, e);

	if (diff <= 0)
		return diff < 0 ? diff : 1;
	*what = diff & PERMS_OWNER ? "owner" : diff & PERMS_MODE ? "mode" : "ACL";
	return 0;
}

/* The name ID stands for now (a user's, or a group's), or NULL: an NSS
 * error is no name. Valid until the next lookup.
 */
static const char *id_name(bool is_group, id_t id)
{
	struct passwd *pw;
	struct group *gr;

	if (is_group) {
		gr = getgrgid(id);
		return gr ? gr->gr_name : NULL;
	}
	pw = getpwuid(id);
	return pw ? pw->pw_name : NULL;
}

static const struct policy_grant *grant_of(const struct policy_entry *e,
					   bool is_group, id_t id)
{
	for (size_t i = 0; i < e->nr_grants; i++)
		if (e->grants[i].is_group == is_group && e->grants[i].id == id)
			return &e->grants[i];
	return NULL;
}

enum held_id { HELD_NO_ONE, HELD_ENTRYS, HELD_FOREIGN };

/* held_id() for an id that is not E's resolved one: by the name NSS gives. */
static enum held_id held_id_by_name(const struct policy_entry *e, bool is_group,
				    bool is_owner, id_t id, bool *read)
{
	const char *want = is_group ? e->group : e->owner;
	const char *name = id_name(is_group, id);

	if (!name)
		return HELD_NO_ONE;
	if (is_owner ? want && !strcmp(name, want) :
		       policy_acl_names(e, is_group, name, read))
		return HELD_ENTRYS;
	return HELD_FOREIGN;
}

/*
 * Whose ID on a held pin is: E's (E's own resolved id, or one that now
 * names the very user or group E names: a directory service that came up
 * since the policy was read), no one's (no name; an NSS error is no name
 * either), or someone's E does not grant. For an ACL entry of E's, *READ
 * says whether E grants it read (u:NAME:- is a deny, and stays one).
 */
static enum held_id held_id(const struct policy_entry *e, bool is_group,
			    bool is_owner, id_t id, bool *read)
{
	const struct policy_grant *g = NULL;

	/*
	 * Root (uid or gid 0) as the owner or group of a held pin is what
	 * narrowing leaves in place of an id that names no one: it is E's
	 * only where E resolves to it. Anywhere else it stands in, and
	 * keeps no group bits (a group that does not resolve is gid 0 in E,
	 * and root's group must not get the bits E gave to a group it
	 * cannot name now, at this apply or any later one).
	 */
	if (is_owner && id == 0)
		return (is_group ? e->gid : e->uid) == 0 &&
		       !(is_group ? e->group_unresolved : e->owner_unresolved) ?
		       HELD_ENTRYS : HELD_NO_ONE;
	if (is_owner ? id == (is_group ? e->gid : e->uid) :
		       !!(g = grant_of(e, is_group, id))) {
		if (g)
			*read = g->read;
		return HELD_ENTRYS;
	}
	return held_id_by_name(e, is_group, is_owner, id, read);
}

/* Add WHAT and ID ("owner 2050", "g:2050") to DROPPED (SIZE bytes). */
static void say_dropped(char *dropped, size_t size, const char *what, id_t id)
{
	size_t n = strlen(dropped);

	if (n + 1 < size)
		snprintf(dropped + n, size - n, "%s%s%u", n ? ", " : "", what,
			 (unsigned int)id);
}

/*
 * The named entries of the pin's ACL HAVE that stay on a held pin, added
 * to *KEEP (E's mode): E's, with read only where both the pin and E give
 * it; those that name no one are left out and said in DROPPED. 1; 0 with *what = "ACL" if one names
 * someone E does not grant; or -errno.
 */
static int held_acl(acl_t have, const struct policy_entry *e, acl_t *keep,
		    char *dropped, size_t size, const char **what)
{
	acl_entry_t ae;
	bool named = false, granted = false;
	int ret = 1, r, rd;

	for (r = acl_get_entry(have, ACL_FIRST_ENTRY, &ae); r == 1 && ret == 1;
	     r = acl_get_entry(have, ACL_NEXT_ENTRY, &ae)) {
		acl_permset_t ps;
		acl_tag_t tag;
		id_t *q;

		if (acl_get_tag_type(ae, &tag) || acl_get_permset(ae, &ps))
			return -errno;
		if (tag != ACL_USER && tag != ACL_GROUP)
			continue;
		q = acl_get_qualifier(ae);
		if (!q)
			return -errno;
		granted = false;
		switch (held_id(e, tag == ACL_GROUP, false, *q, &granted)) {
		case HELD_FOREIGN:
			*what = "ACL";
			ret = 0;
			break;
		case HELD_NO_ONE:
			say_dropped(dropped, size, tag == ACL_GROUP ? "g:" : "u:", *q);
			break;
		case HELD_ENTRYS:
			/* Read only if both the pin and E give it. */
			rd = acl_get_perm(ps, ACL_READ);
			if (rd < 0)
				ret = -errno;
			else if (add_entry(keep, tag, *q,
					   rd && granted ? ACL_READ : 0))
				ret = -errno;
			named = true;
			break;
		}
		acl_free(q);
	}
	if (r < 0)
		return -errno;
	if (ret == 1 && named && acl_calc_mask(keep))
		return -errno;
	return ret;
}

/*
 * perms_held_check() and, with NARROW, perms_held_narrow(). The pin is
 * looked at, and changed, through one O_PATH fd: stat, ACL and chown all
 * see the same file.
 */
static int held(int dirfd, const char *name, const struct policy_entry *e,
		bool narrow, const char **what, char *dropped, size_t size)
{
	char proc[32];
	acl_t have = NULL, keep = NULL;
	struct stat st;
	mode_t mode = e->mode;
	uid_t uid;
	gid_t gid;
	int fd, ret;

	dropped[0] = '\0';
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	ret = 0;
	uid = st.st_uid;
	gid = st.st_gid;
	switch (held_id(e, false, true, uid, NULL)) {
	case HELD_FOREIGN:
		*what = "owner";
		goto out;
	case HELD_NO_ONE:
		if (uid)
			say_dropped(dropped, size, "owner ", uid);
		uid = 0;
		break;
	case HELD_ENTRYS:
		break;
	}
	switch (held_id(e, true, true, gid, NULL)) {
	case HELD_FOREIGN:
		*what = "group";
		goto out;
	case HELD_NO_ONE:
		/* Root's group, with none of the group bits E gave its own. */
		if (gid)
			say_dropped(dropped, size, "group ", gid);
		gid = 0;
		mode &= ~(mode_t)S_IRWXG;
		break;
	case HELD_ENTRYS:
		break;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	have = acl_get_file(proc, ACL_TYPE_ACCESS);
	if (have) {
		keep = acl_from_mode(mode);
		ret = keep ? held_acl(have, e, &keep, dropped, size, what) : -errno;
	} else {
		/* A bpffs without ACLs: the mode is all there is. */
		ret = errno == EOPNOTSUPP ? 1 : -errno;
	}
	if (ret != 1 || !narrow)
		goto out;
	/*
	 * Root's first, so that an owner who names no one (a process of a
	 * deleted user, still running) cannot chmod it back; then E's mode
	 * and the ACL entries that stay.
	 */
	if ((uid != st.st_uid || gid != st.st_gid) &&
	    fchownat(fd, "", uid, gid, AT_EMPTY_PATH))
		ret = -errno;
	else if (keep ? acl_set_file(proc, ACL_TYPE_ACCESS, keep) :
			chmod(proc, mode))
		ret = -errno;
out:
	acl_free(keep);
	acl_free(have);
	close(fd);
	return ret;
}

int perms_held_check(int dirfd, const char *name, const struct policy_entry *e,
		     const char **what)
{
	char dropped[PERMS_DROPPED_MAX];

	return held(dirfd, name, e, false, what, dropped, sizeof(dropped));
}

int perms_held_narrow(int dirfd, const char *name, const struct policy_entry *e,
		      const char **what, char *dropped, size_t size)
{
	return held(dirfd, name, e, true, what, dropped, size);
}
