// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/acl.h>
#include <acl/libacl.h>
#include "dir_trust.h"

/* Does ENT give write? */
static bool writes(acl_entry_t ent)
{
	acl_permset_t ps;

	return !acl_get_permset(ent, &ps) && acl_get_perm(ps, ACL_WRITE) == 1;
}

static unsigned int qualifier(acl_entry_t ent)
{
	unsigned int *q = acl_get_qualifier(ent), id = 0;

	if (q) {
		id = *q;
		acl_free(q);
	}
	return id;
}

/*
 * The first user other than root whom the access ACL of FD lets write it.
 * A minimal ACL is the mode itself (libacl makes it from the mode when the
 * file has none); a named entry or the owning group counts only through
 * the mask; on a filesystem without ACLs, the mode is all there is. 0, or
 * -1 (errno) if the ACL cannot be read.
 */
static int acl_writer(int fd, const struct stat *st, struct dir_trust *t)
{
	char path[64];
	acl_entry_t ent;
	acl_tag_t tag;
	bool mask_w = true;
	acl_t acl;
	int id;

	/* An O_PATH fd has no getxattr: its /proc/self/fd link has. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	acl = acl_get_file(path, ACL_TYPE_ACCESS);
	if (!acl && errno == EOPNOTSUPP)
		acl = acl_from_mode(st->st_mode);
	if (!acl)
		return -1;
	for (id = ACL_FIRST_ENTRY; acl_get_entry(acl, id, &ent) == 1; id = ACL_NEXT_ENTRY)
		if (!acl_get_tag_type(ent, &tag) && tag == ACL_MASK)
			mask_w = writes(ent);
	for (id = ACL_FIRST_ENTRY; acl_get_entry(acl, id, &ent) == 1; id = ACL_NEXT_ENTRY) {
		if (acl_get_tag_type(ent, &tag) || !writes(ent))
			continue;
		if (tag == ACL_OTHER) {
			t->who = DIR_OTHER;
			break;
		}
		if (!mask_w)
			continue;
		if (tag == ACL_GROUP_OBJ && st->st_gid != 0) {
			t->who = DIR_GROUP;
			t->id = st->st_gid;
			break;
		}
		if ((tag == ACL_USER || tag == ACL_GROUP) && (t->id = qualifier(ent))) {
			t->who = tag == ACL_USER ? DIR_ACL_USER : DIR_ACL_GROUP;
			break;
		}
	}
	acl_free(acl);
	return 0;
}

bool dir_unsafe(int fd, const struct stat *st, uid_t child_uid,
		struct dir_trust *t)
{
	t->who = DIR_SAFE;
	t->id = 0;
	if (st->st_uid != 0) {
		t->who = DIR_OWNER;
		t->id = st->st_uid;
		return true;
	}
	if (acl_writer(fd, st, t))
		t->who = DIR_ACL_UNREADABLE;
	if (t->who == DIR_SAFE)
		return false;
	/* Sticky: a writer may only move what it owns (root owns the dir). */
	if ((st->st_mode & S_ISVTX) && child_uid == 0) {
		t->who = DIR_SAFE;
		return false;
	}
	return true;
}

int dir_open_trusted(const char *path, struct stat *st, struct dir_trust *t)
{
	const int flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	const char *p = path, *end;
	char name[NAME_MAX + 1];
	struct stat pst;
	int dir = -1, fd, ret;

	if (*path != '/')
		return -EINVAL;
	fd = open("/", flags);
	if (fd < 0 || fstat(fd, st))
		goto fail;
	pst = *st;	/* the parent of "/" is itself */
	for (;;) {
		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		if (end == p)
			break;
		if (end - p > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memcpy(name, p, end - p);
		name[end - p] = '\0';
		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			errno = EINVAL;
			goto fail;
		}
		if (dir >= 0)
			close(dir);
		dir = fd;
		pst = *st;
		fd = openat(dir, name, flags);
		if (fd < 0 || fstat(fd, st))
			goto fail;
		if (!S_ISDIR(st->st_mode)) {	/* O_PATH: a link opened as such */
			errno = ELOOP;
			goto fail;
		}
		p = end;
	}
	t->who = DIR_SAFE;
	t->id = 0;
	if (st->st_uid != 0) {
		t->who = DIR_OWNER;
		t->id = st->st_uid;
	} else {
		dir_unsafe(dir >= 0 ? dir : fd, &pst, 0, t);
	}
	if (dir >= 0)
		close(dir);
	return fd;
fail:
	ret = -errno;
	if (fd >= 0)
		close(fd);
	if (dir >= 0)
		close(dir);
	return ret;
}

const char *dir_trust_who(const struct dir_trust *t, char *buf, size_t size)
{
	switch (t->who) {
	case DIR_OWNER:
		snprintf(buf, size, "its owner, uid %u,", t->id);
		break;
	case DIR_GROUP:
		snprintf(buf, size, "its group, gid %u,", t->id);
		break;
	case DIR_OTHER:
		snprintf(buf, size, "every user");
		break;
	case DIR_ACL_USER:
		snprintf(buf, size, "uid %u (an entry of its ACL)", t->id);
		break;
	case DIR_ACL_GROUP:
		snprintf(buf, size, "gid %u (an entry of its ACL)", t->id);
		break;
	case DIR_ACL_UNREADABLE:
		snprintf(buf, size, "whoever its ACL lets (it could not be read)");
		break;
	default:
		snprintf(buf, size, "root alone");
	}
	return buf;
}
