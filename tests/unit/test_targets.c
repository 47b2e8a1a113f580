// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of target_open()'s unsafe path transitions (src/targets.c,
 * src/dir_trust.c), on real directories in /tmp: which directory on the
 * way a user other than root could change, by its owner, mode or ACL.
 * Needs root (chown, setfacl); skipped (77) otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include "targets.h"
#include "check.h"

#define NOBODY	65534

static char base[] = "/tmp/fsiter-test-targets.XXXXXX";

/* BASE/NAME, a directory of OWNER:GROUP and MODE, with ACL if not NULL,
 * holding f, owned by FILE_UID. Its path, static.
 */
static const char *make(const char *name, uid_t owner, gid_t group,
			mode_t mode, const char *acl, uid_t file_uid)
{
	static char dir[256];
	char file[300];
	acl_t a;
	int fd;

	snprintf(dir, sizeof(dir), "%s/%s", base, name);
	snprintf(file, sizeof(file), "%s/f", dir);
	if (mkdir(dir, 0755) || (fd = open(file, O_CREAT | O_WRONLY, 0644)) < 0 ||
	    close(fd) || chown(file, file_uid, 0) || chown(dir, owner, group) ||
	    chmod(dir, mode)) {
		perror(dir);
		exit(2);
	}
	if (acl) {
		a = acl_from_text(acl);
		if (!a || acl_set_file(dir, ACL_TYPE_ACCESS, a)) {
			perror(acl);
			exit(2);
		}
		acl_free(a);
	}
	return dir;
}

/* Open DIR/f: the unsafe directory found, who and which id. */
static void expect(const char *dir, const char *what, enum dir_writer who,
		   unsigned int id)
{
	struct target t;
	char file[300];
	int ret;

	snprintf(file, sizeof(file), "%s/f", dir);
	ret = target_open(file, &t);
	CHECK(ret == 0, "%s: target_open: %d", what, ret);
	if (ret)
		return;
	if (who == DIR_SAFE)
		CHECK(!t.unsafe_len, "%s: safe, but %.*s reported (who %d)", what,
		      (int)t.unsafe_len, file, t.unsafe.who);
	else
		CHECK(t.unsafe_len == strlen(dir) && t.unsafe.who == who &&
		      t.unsafe.id == id, "%s: want %s unsafe by %d/%u, got '%.*s' by %d/%u",
		      what, dir, who, id, (int)t.unsafe_len, file, t.unsafe.who,
		      t.unsafe.id);
	target_close(&t);
}

static void test_modes(void)
{
	expect(make("root", 0, 0, 0755, NULL, 0), "root's 0755", DIR_SAFE, 0);
	expect(make("rootgrp", 0, 0, 0775, NULL, 0), "group root may write", DIR_SAFE, 0);
	expect(make("grp", 0, NOBODY, 0775, NULL, 0), "group may write", DIR_GROUP, NOBODY);
	expect(make("grp-ro", 0, NOBODY, 0755, NULL, 0), "group may not write", DIR_SAFE, 0);
	expect(make("oth", 0, 0, 0757, NULL, 0), "others may write", DIR_OTHER, 0);
	expect(make("own", NOBODY, 0, 0755, NULL, 0), "a user's 0755", DIR_OWNER, NOBODY);
	/* Its owner can chmod it writable, then swap the file. */
	expect(make("own-ro", NOBODY, 0, 0555, NULL, 0), "a user's 0555", DIR_OWNER, NOBODY);
	expect(make("own-0", NOBODY, NOBODY, 0, NULL, 0), "a user's 0000", DIR_OWNER, NOBODY);
	expect(make("sticky", 0, 0, 01777, NULL, 0), "sticky, root's file", DIR_SAFE, 0);
	expect(make("sticky-u", 0, 0, 01777, NULL, NOBODY), "sticky, a user's file",
	       DIR_OTHER, 0);
}

static void test_acls(void)
{
	/* The mask shows w in the group bits, but the group is root's. */
	expect(make("acl-u", 0, 0, 0755, "u::rwx,u:65534:rwx,g::r-x,m::rwx,o::r-x", 0),
	       "u:nobody:rwx", DIR_ACL_USER, NOBODY);
	expect(make("acl-u-0", 0, 0, 0755, "u::rwx,u:65534:rwx,g::---,m::rwx,o::---", 0),
	       "u:nobody:rwx, group bits 0", DIR_ACL_USER, NOBODY);
	expect(make("acl-g", 0, 0, 0755, "u::rwx,g:65534:-wx,g::r-x,m::rwx,o::r-x", 0),
	       "g:nobody:-wx", DIR_ACL_GROUP, NOBODY);
	expect(make("acl-mask", 0, 0, 0755, "u::rwx,u:65534:rwx,g::r-x,m::r-x,o::r-x", 0),
	       "u:nobody:rwx masked to r-x", DIR_SAFE, 0);
	expect(make("acl-ro", 0, 0, 0755, "u::rwx,u:65534:r-x,g::r-x,m::r-x,o::r-x", 0),
	       "u:nobody:r-x", DIR_SAFE, 0);
	expect(make("acl-root", 0, 0, 0755, "u::rwx,u:0:rwx,g:0:rwx,g::r-x,m::rwx,o::r-x", 0),
	       "u:root:rwx and g:root:rwx", DIR_SAFE, 0);
	expect(make("acl-grp", 0, NOBODY, 0755, "u::rwx,u:0:rwx,g::rwx,m::rwx,o::r-x", 0),
	       "the owning group through the mask", DIR_GROUP, NOBODY);
	expect(make("acl-sticky", 0, 0, 01755, "u::rwx,u:65534:rwx,g::r-x,m::rwx,o::r-x", 0),
	       "sticky with u:nobody:rwx, root's file", DIR_SAFE, 0);
	expect(make("acl-sticky-u", 0, 0, 01755, "u::rwx,u:65534:rwx,g::r-x,m::rwx,o::r-x", NOBODY),
	       "sticky with u:nobody:rwx, a user's file", DIR_ACL_USER, NOBODY);
}

/* The first unsafe directory is the one named, however deep the path. */
static void test_first(void)
{
	char deep[300];
	struct target t;
	const char *dir = make("first", NOBODY, 0, 0555, NULL, 0);
	int ret;

	snprintf(deep, sizeof(deep), "%s/a", dir);
	if (chmod(dir, 0755) || mkdir(deep, 0755) || chmod(dir, 0555)) {
		perror(deep);
		exit(2);
	}
	strcat(deep, "/f");
	close(open(deep, O_CREAT | O_WRONLY, 0644));
	ret = target_open(deep, &t);
	CHECK(ret == 0 && t.unsafe_len == strlen(base) + strlen("/first") &&
	      t.unsafe.who == DIR_OWNER, "the first: %d, %u, %d", ret,
	      t.unsafe_len, t.unsafe.who);
	if (!ret)
		target_close(&t);
}

static int rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("skipped: needs root (chown, setfacl)\n");
		return 77;
	}
	if (!mkdtemp(base)) {
		perror(base);
		return 2;
	}
	test_modes();
	test_acls();
	test_first();
	nftw(base, rm, 16, FTW_DEPTH | FTW_PHYS);
	return check_summary();
}
