// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
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
