// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the search check of reach.c (reach_may_search), on the
 * host, against acls(5)'s access check algorithm. Users and groups exist
 * on any Debian system: nobody (65534), whose group is nogroup (65534),
 * and root (0).
 */
#include <acl/libacl.h>
#include "reach.h"
#include "check.h"

#define NOBODY	65534

static const struct reader user = { READER_USER, NOBODY, NULL };
static const struct reader group = { READER_GROUP, NOBODY, NULL };
static const struct reader root_group = { READER_GROUP, 0, NULL };
static const struct reader other = { READER_OTHER, 0, NULL };

/* May R search a directory of OWNER:GROUP with MODE and ACL TEXT (NULL:
 * the mode's)?
 */
static bool may(const struct reader *r, uid_t owner, gid_t grp, mode_t mode,
		const char *text)
{
	struct stat st = { .st_uid = owner, .st_gid = grp, .st_mode = S_IFDIR | mode };
	acl_t acl = text ? acl_from_text(text) : acl_from_mode(mode);
	bool ok;

	if (!acl)
		return false;
	ok = reach_may_search(acl, &st, r);
	acl_free(acl);
	return ok;
}

int main(void)
{
	CHECK(may(&other, 0, 0, 0755, NULL), "o+x lets everyone through");
	CHECK(!may(&other, 0, 0, 0750, NULL), "o-x stops everyone");
	CHECK(!may(&other, 0, 0, 0700, "u::rwx,g::---,g:nogroup:--x,m::--x,o::---"),
	      "a named group does not let everyone through");
	CHECK(may(&user, NOBODY, 0, 0700, NULL), "the owner, by u+x");
	CHECK(!may(&user, NOBODY, 0, 0611, NULL), "the owner, u-x: other's x is not used");
	CHECK(may(&group, 0, NOBODY, 0710, NULL), "the owning group, by g+x");
	CHECK(!may(&group, 0, NOBODY, 0701, NULL), "the owning group, g-x: no fallback to other");
	CHECK(may(&group, 0, 0, 0701, NULL), "another group falls back to other");
	CHECK(may(&group, 0, 0, 0700, "u::rwx,g::---,g:nogroup:--x,m::--x,o::---"),
	      "a named group entry");
	CHECK(!may(&group, 0, 0, 0700, "u::rwx,g::---,g:nogroup:--x,m::r--,o::---"),
	      "a named group entry, masked");
	CHECK(!may(&root_group, 0, 0, 0701, "u::rwx,g::---,g:nogroup:--x,m::--x,o::--x"),
	      "the owning group matched without x: no fallback to other");
	CHECK(may(&user, 0, 0, 0700, "u::rwx,u:nobody:--x,g::---,m::--x,o::---"),
	      "a named user entry");
	CHECK(!may(&user, 0, 0, 0701, "u::rwx,u:nobody:---,g::---,m::--x,o::--x"),
	      "a named user entry without x: no fallback to other");
	CHECK(may(&user, 0, 0, 0700, "u::rwx,g::---,g:nogroup:--x,m::--x,o::---"),
	      "a user through the group it is in");
	return check_summary();
}
