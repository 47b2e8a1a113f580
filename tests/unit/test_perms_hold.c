// SPDX-License-Identifier: GPL-2.0
/*
 * perms_held_check() and perms_held_narrow(): a pin held while a user or
 * group of its entry does not resolve is kept only while no id on it
 * names someone else, and then keeps only the entry's ids. A deleted
 * user's uid that a new user was given must not carry the grant, whether
 * the uid is given before the next apply or after it: here uid and gid 1
 * (daemon, on every Debian system) stand for the new user, and 54321 for
 * a uid that names no one. Needs root (chown) and a /tmp with ACLs;
 * skipped otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/acl.h>
#include <acl/libacl.h>
#include <sys/stat.h>
#include "perms.h"
#include "check.h"

#define FREE_ID	54321

static char dir[] = "/tmp/fsiter-perms-hold.XXXXXX";

/* The pin "p" in DIRFD, owned UID:GID, 0440, with the ACL text ACL. */
static int make_pin(int dirfd, uid_t uid, gid_t gid, const char *acl_text)
{
	char path[sizeof(dir) + 2];
	acl_t acl;
	int fd, ret = 0;

	unlinkat(dirfd, "p", 0);
	fd = openat(dirfd, "p", O_CREAT | O_WRONLY | O_CLOEXEC, 0440);
	if (fd < 0 || fchown(fd, uid, gid))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/p", dir);
	acl = acl_from_text(acl_text);
	if (!ret && (!acl || acl_set_file(path, ACL_TYPE_ACCESS, acl)))
		ret = -errno;
	acl_free(acl);
	return ret;
}

static int unclaimed(int dirfd, const struct policy_entry *e, const char **what)
{
	*what = "";
	return perms_held_check(dirfd, "p", e, what);
}

static char dropped[PERMS_DROPPED_MAX];

static int narrow(int dirfd, const struct policy_entry *e, const char **what)
{
	*what = "";
	return perms_held_narrow(dirfd, "p", e, what, dropped, sizeof(dropped));
}

/* Is the pin owned UID:GID, with exactly the ACL (short text) WANT? */
static bool pin_is(int dirfd, uid_t uid, gid_t gid, const char *want)
{
	char path[sizeof(dir) + 2];
	struct stat st;
	acl_t acl, w;
	bool same;

	snprintf(path, sizeof(path), "%s/p", dir);
	if (fstatat(dirfd, "p", &st, 0) || st.st_uid != uid || st.st_gid != gid)
		return false;
	acl = acl_get_file(path, ACL_TYPE_ACCESS);
	w = acl_from_text(want);
	same = acl && w && acl_cmp(acl, w) == 0;
	acl_free(acl);
	acl_free(w);
	return same;
}

int main(void)
{
	/* An entry whose owner and u: grant did not resolve: uid 0 in it. */
	struct policy_grant grants[] = { { .is_group = false, .id = 0x40000000u, .read = true } };
	struct policy_entry e = { .uid = 0, .gid = 0, .unresolved = true,
				  .grants = grants, .nr_grants = 1 };
	const char *what;
	int dirfd;

	if (geteuid() || !getpwuid(1) || getpwuid(FREE_ID)) {
		printf("SKIP: needs root, a user 1 and no user %d\n", FREE_ID);
		return 77;
	}
	if (!mkdtemp(dir) || (dirfd = open(dir, O_DIRECTORY | O_CLOEXEC)) < 0)
		return 1;
	if (make_pin(dirfd, 0, 0, "u::r,g::r,o::-,u:" "54321" ":r,m::r")) {
		printf("SKIP: no ACLs on /tmp\n");
		return 77;
	}
	CHECK(unclaimed(dirfd, &e, &what) == 1,
	      "a uid that names no one in the ACL: held");
	CHECK(make_pin(dirfd, 0, 0, "u::r,g::r,o::-,u:1:r,m::r") == 0, "pin");
	CHECK(unclaimed(dirfd, &e, &what) == 0 && !strcmp(what, "ACL"),
	      "a uid that names a user in the ACL: not held (%s)", what);
	CHECK(make_pin(dirfd, FREE_ID, 0, "u::r,g::r,o::-") == 0, "pin");
	CHECK(unclaimed(dirfd, &e, &what) == 1,
	      "an owner that names no one: held");
	CHECK(make_pin(dirfd, 1, 0, "u::r,g::r,o::-") == 0, "pin");
	CHECK(unclaimed(dirfd, &e, &what) == 0 && !strcmp(what, "owner"),
	      "an owner that names a user: not held (%s)", what);
	CHECK(make_pin(dirfd, 0, 1, "u::r,g::r,o::-") == 0, "pin");
	CHECK(unclaimed(dirfd, &e, &what) == 0 && !strcmp(what, "group"),
	      "a group that names a group: not held (%s)", what);
	/* What the entry grants by a name that resolves stays held. */
	grants[0].id = 1;
	CHECK(make_pin(dirfd, 0, 0, "u::r,g::r,o::-,u:1:r,m::r") == 0, "pin");
	CHECK(unclaimed(dirfd, &e, &what) == 1,
	      "a uid the entry grants: held");
	e.uid = 1;
	CHECK(make_pin(dirfd, 1, 0, "u::r,g::r,o::-") == 0, "pin");
	CHECK(unclaimed(dirfd, &e, &what) == 1, "the entry's own owner: held");
	e.uid = 0;
	CHECK(make_pin(dirfd, 0, 0, "u::r,g::r,o::-,g:1:r,m::r") == 0, "pin");
	CHECK(unclaimed(dirfd, &e, &what) == 0 && !strcmp(what, "ACL"),
	      "a gid that names a group in the ACL: not held (%s)", what);
	/*
	 * The names the entry gives, resolved since the policy was read (a
	 * directory service that came up meanwhile): still the entry's.
	 */
	e.owner = "daemon";
	e.group = "daemon";
	e.acl = "u:nosuchuser:r,g:daemon:r,u:daemon:r";
	grants[0].id = 0x40000000u;
	CHECK(make_pin(dirfd, 1, 1, "u::r,g::r,o::-,u:1:r,g:1:r,m::r") == 0, "pin");
	CHECK(unclaimed(dirfd, &e, &what) == 1,
	      "ids that now name the entry's own owner, group and readers: held");
	e.acl = "u:nosuchuser:r,u:daemonx:r";
	CHECK(unclaimed(dirfd, &e, &what) == 0 && !strcmp(what, "ACL"),
	      "a name that only starts like the entry's: not held (%s)", what);

	/*
	 * Narrowed: what names no one goes (an owner or group becomes root),
	 * the entry's ids stay with read at most, mode, mask and other are
	 * the entry's again.
	 */
	e.owner = "nosuchuser";
	e.group = NULL;
	e.acl = "u:nosuchuser:r,u:daemon:r";
	e.mode = 0440;
	CHECK(make_pin(dirfd, FREE_ID, FREE_ID,
		       "u::rw,g::r,o::r,u:54321:r,g:54321:r,u:1:rw,m::rw") == 0, "pin");
	CHECK(narrow(dirfd, &e, &what) == 1, "narrowed (%s)", what);
	CHECK(pin_is(dirfd, 0, 0, "u::r,g::-,o::-,u:1:r,m::r"),
	      "only root, the entry's mode (no group bits for root's group) and the entry's reader are left");
	CHECK(!strcmp(dropped, "owner 54321, group 54321, u:54321, g:54321"),
	      "and what went is said (%s)", dropped);
	/* Without a named reader left: the mode alone. */
	e.acl = "u:nosuchuser:r";
	CHECK(make_pin(dirfd, 0, 0, "u::r,g::r,o::-,u:54321:r,m::r") == 0, "pin");
	CHECK(narrow(dirfd, &e, &what) == 1, "narrowed");
	CHECK(pin_is(dirfd, 0, 0, "u::r,g::r,o::-"), "nothing named is left");
	/* A deny the entry gives (u:daemon:-) stays one, whatever the pin says. */
	e.acl = "u:nosuchuser:r,u:daemon:-";
	CHECK(make_pin(dirfd, 0, 0, "u::r,g::r,o::-,u:1:r,m::r") == 0, "pin");
	CHECK(narrow(dirfd, &e, &what) == 1, "narrowed");
	CHECK(pin_is(dirfd, 0, 0, "u::r,g::r,o::-,u:1:-,m::r"),
	      "u:1 (daemon) is kept without read, as the entry says");
	grants[0].id = 1;
	grants[0].read = false;
	CHECK(make_pin(dirfd, 0, 0, "u::r,g::r,o::-,u:1:r,m::r") == 0, "pin");
	CHECK(narrow(dirfd, &e, &what) == 1, "narrowed");
	CHECK(pin_is(dirfd, 0, 0, "u::r,g::r,o::-,u:1:-,m::r"),
	      "so is a resolved grant without read");
	grants[0].id = 0x40000000u;
	grants[0].read = true;
	/* A group that names no one, no named entry: root's, no group bits. */
	e.acl = NULL;
	CHECK(make_pin(dirfd, 0, FREE_ID, "u::r,g::r,o::-") == 0, "pin");
	CHECK(narrow(dirfd, &e, &what) == 1, "narrowed");
	CHECK(pin_is(dirfd, 0, 0, "u::r,g::-,o::-"), "root:root 0400");
	/*
	 * The entry's own group does not resolve (gid 0 stands in for it):
	 * root's group gets no bits, at the first apply and every next one.
	 */
	e.group = "nosuchgroup";
	e.group_unresolved = true;
	CHECK(make_pin(dirfd, 0, FREE_ID, "u::r,g::r,o::-") == 0, "pin");
	CHECK(narrow(dirfd, &e, &what) == 1, "narrowed");
	CHECK(pin_is(dirfd, 0, 0, "u::r,g::-,o::-"), "root:root 0400 (%s)", dropped);
	CHECK(narrow(dirfd, &e, &what) == 1 && !dropped[0], "narrowed again, nothing to drop");
	CHECK(pin_is(dirfd, 0, 0, "u::r,g::-,o::-"), "still root:root 0400");
	CHECK(make_pin(dirfd, 0, 1, "u::r,g::r,o::-") == 0, "pin");
	CHECK(narrow(dirfd, &e, &what) == 0 && !strcmp(what, "group"),
	      "a gid that names another group: refused (%s)", what);
	/*
	 * The group resolves again (gid 1) while the entry is still held
	 * for another name: root's group, left by an earlier narrowing,
	 * still stands in (not a group the entry does not grant).
	 */
	e.group = "daemon";
	e.gid = 1;
	e.group_unresolved = false;
	CHECK(make_pin(dirfd, 0, 0, "u::r,g::-,o::-") == 0, "pin");
	CHECK(narrow(dirfd, &e, &what) == 1, "root's group standing in: still held (%s)", what);
	CHECK(pin_is(dirfd, 0, 0, "u::r,g::-,o::-"), "and without group bits");
	e.gid = 0;
	e.group = NULL;
	e.acl = "u:nosuchuser:r";
	/* A uid that names someone: not held, and nothing is changed. */
	CHECK(make_pin(dirfd, 0, 0, "u::r,g::r,o::-,u:54321:r,g:1:r,m::r") == 0, "pin");
	CHECK(narrow(dirfd, &e, &what) == 0 && !strcmp(what, "ACL"),
	      "a gid that names a group: not narrowed but refused (%s)", what);
	CHECK(pin_is(dirfd, 0, 0, "u::r,g::r,o::-,u:54321:r,g:1:r,m::r"),
	      "and the pin is as it was");
	CHECK(make_pin(dirfd, 1, 0, "u::r,g::r,o::-,u:54321:r,m::r") == 0, "pin");
	CHECK(narrow(dirfd, &e, &what) == 0 && !strcmp(what, "owner"),
	      "an owner that names a user: refused (%s)", what);
	CHECK(pin_is(dirfd, 1, 0, "u::r,g::r,o::-,u:54321:r,m::r"),
	      "and the pin is as it was");
	unlinkat(dirfd, "p", 0);
	close(dirfd);
	rmdir(dir);
	return check_summary();
}
