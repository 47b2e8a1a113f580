// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the search check of reach.c (reach_may_search), on the
 * host, against acls(5)'s access check algorithm, and of the list of
 * readers of a file (reach_readers), on a file in a temporary directory.
 * Users and groups exist on any Debian system: nobody (65534), whose
 * group is nogroup (65534), and root (0).
 */
#include <acl/libacl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* How many times the list of readers LIST names WHO ("u:root"). */
static int times(const char *list, const char *who)
{
	size_t n = strlen(who);
	int k = 0;

	for (const char *p = list; (p = strstr(p, who)); p += n)
		if ((p == list || p[-1] == ',' || p[-1] == '!') && (p[n] == ',' || !p[n]))
			k++;
	return k;
}

/* The readers of a root-owned file with the ACL TEXT, in OUT. */
static int readers_of(const char *text, char *out, size_t size)
{
	char *list = NULL;
	char dir[] = "/tmp/fsiter-reach.XXXXXX", file[64];
	acl_t acl = NULL;
	int fd, ret;

	if (!mkdtemp(dir))
		return -errno;
	snprintf(file, sizeof(file), "%s/pin", dir);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	ret = fd < 0 ? -errno : 0;
	if (!ret && !(acl = acl_from_text(text)))
		ret = -errno;
	if (!ret && acl_set_file(file, ACL_TYPE_ACCESS, acl))
		ret = -errno;
	if (!ret)
		ret = reach_readers(file, dir, &list);
	if (!ret)
		snprintf(out, size, "%s", list);
	free(list);
	if (fd >= 0)
		close(fd);
	acl_free(acl);
	unlink(file);
	rmdir(dir);
	return ret;
}

static void test_readers(void)
{
	char out[1024];
	int ret;

	ret = readers_of("u::rw-,u:root:r--,g::r--,g:root:r--,m::r--,o::---", out, sizeof(out));
	if (ret == -EOPNOTSUPP || getuid()) {
		printf("skip: reach_readers (no ACLs on /tmp, or not root)\n");
		return;
	}
	CHECK(!ret, "reach_readers: %s", strerror(-ret));
	CHECK(times(out, "u:root") == 1 && times(out, "g:root") == 1,
	      "the owner and owning group, also named in the ACL, once each: '%s'", out);
	ret = readers_of("u::rw-,u:nobody:r--,g::---,g:nogroup:r--,m::r--,o::r--", out, sizeof(out));
	CHECK(!ret && times(out, "u:root") == 1 && times(out, "u:nobody") == 1 &&
	      times(out, "g:nogroup") == 1 && times(out, "o") == 1 && !strstr(out, "g:root"),
	      "named entries, other, and not the group without r: '%s'", out);
	ret = readers_of("u::rw-,g::---,m::---,o::---", out, sizeof(out));
	CHECK(!ret && !strcmp(out, "u:root"), "the owner alone: '%s'", out);
}

/*
 * 500 named readers, uids 200000 to 200499 (no such users: "u:200000"),
 * are all listed, each once and whole: 4096 bytes used to hold 456.
 */
static void test_many_readers(void)
{
	size_t size = 64 + 500 * 24;
	char *text = malloc(size), *out = malloc(size), who[32];
	size_t len;
	int ret, missing = 0;

	if (!text || !out)
		abort();
	len = snprintf(text, size, "u::rw-,g::---,o::---,m::r--");
	for (int i = 0; i < 500; i++)
		len += snprintf(text + len, size - len, ",u:%d:r--", 200000 + i);
	ret = readers_of(text, out, size);
	if (ret == -EOPNOTSUPP || getuid()) {
		printf("skip: reach_readers of 500 readers (no ACLs on /tmp, or not root)\n");
		goto out;
	}
	CHECK(!ret, "reach_readers, 500 readers: %s", strerror(-ret));
	for (int i = 0; i < 500; i++) {
		snprintf(who, sizeof(who), "u:%d", 200000 + i);
		missing += times(out, who) != 1;
	}
	CHECK(!missing && times(out, "u:root") == 1,
	      "500 readers and the owner, each once: %d missing, %zu bytes", missing,
	      strlen(out));
out:
	free(text);
	free(out);
}

int main(void)
{
	test_readers();
	test_many_readers();
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
