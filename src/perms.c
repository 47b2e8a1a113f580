// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
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

static bool grants_id(const struct policy_entry *e, bool is_group, id_t id)
{
	for (size_t i = 0; i < e->nr_grants; i++)
		if (e->grants[i].is_group == is_group && e->grants[i].id == id)
			return true;
	return false;
}

/*
 * Whether ID on the pin names someone E does not grant: E's own resolved
 * id, an id that names no one, or one that names the very user or group
 * E names (a directory service that came up since the policy was read)
 * are all E's.
 */
static bool id_foreign(const struct policy_entry *e, bool is_group,
		       bool is_owner, id_t id)
{
	const char *want = is_group ? e->group : e->owner;
	const char *name;

	if (is_owner ? id == (is_group ? e->gid : e->uid) :
		       grants_id(e, is_group, id))
		return false;
	name = id_name(is_group, id);
	if (!name)
		return false;
	return is_owner ? !want || strcmp(name, want) :
			  !policy_acl_names(e, is_group, name);
}

int perms_ids_unclaimed(int dirfd, const char *name, const char *path,
			const struct policy_entry *e, const char **what)
{
	acl_t acl = NULL;
	acl_entry_t ae;
	struct stat st;
	int ret = 1, r;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	/* An owner or group E leaves unresolved is root in E (uid, gid 0). */
	if (id_foreign(e, false, true, st.st_uid)) {
		*what = "owner";
		return 0;
	}
	if (id_foreign(e, true, true, st.st_gid)) {
		*what = "group";
		return 0;
	}
	acl = acl_get_file(path, ACL_TYPE_ACCESS);
	if (!acl)
		return errno == ENOTSUP ? 1 : -errno;
	for (r = acl_get_entry(acl, ACL_FIRST_ENTRY, &ae); r == 1 && ret == 1;
	     r = acl_get_entry(acl, ACL_NEXT_ENTRY, &ae)) {
		acl_tag_t tag;
		id_t *q;

		if (acl_get_tag_type(ae, &tag)) {
			ret = -errno;
			goto out;
		}
		if (tag != ACL_USER && tag != ACL_GROUP)
			continue;
		q = acl_get_qualifier(ae);
		if (!q) {
			ret = -errno;
			goto out;
		}
		if (id_foreign(e, tag == ACL_GROUP, false, *q)) {
			*what = "ACL";
			ret = 0;
		}
		acl_free(q);
	}
	if (r < 0)
		ret = -errno;
out:
	acl_free(acl);
	return ret;
}
