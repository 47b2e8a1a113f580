/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Could a user other than root change what a directory holds (an unsafe
 * path transition, as systemd-tmpfiles calls it)? From its owner, mode
 * and access ACL (libacl).
 */
#ifndef FSITER_DIR_TRUST_H
#define FSITER_DIR_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

enum dir_writer {
	DIR_SAFE,		/* root alone */
	DIR_OWNER,		/* a non-root owner: may chmod it writable */
	DIR_GROUP,		/* its group (not root's) may write */
	DIR_OTHER,		/* every user may write */
	DIR_ACL_USER,		/* a named user of its ACL may write */
	DIR_ACL_GROUP,		/* a named group of its ACL (not root's) */
	DIR_ACL_UNREADABLE,	/* its ACL could not be read: not trusted */
};

struct dir_trust {
	enum dir_writer who;
	unsigned int id;	/* the uid or gid that WHO names */
};

/*
 * Could a user other than root change what directory FD (any fd, O_PATH
 * too; ST its fstat) holds, as far as its entry owned by CHILD_UID goes?
 * A non-root owner always can (chmod first); root's directory if its
 * group (but root's), others, or a named ACL user or group (but root)
 * has write, effective through the ACL mask; in a sticky directory,
 * only for an entry owned by neither root nor the directory's owner.
 * Fills *T; true if unsafe.
 */
bool dir_unsafe(int fd, const struct stat *st, uid_t child_uid,
		struct dir_trust *t);
/*
 * Open directory PATH (absolute, no "." or ".."), O_PATH, one component
 * at a time from "/", each under the fd of the one before with
 * O_NOFOLLOW: no symlink on the way is followed (-ELOOP or -ENOTDIR), so
 * that what is read and set through the fd (its ACL by
 * /proc/self/fd/N, which is that very inode) is the directory checked. Fills *ST (its fstat)
 * and *T: DIR_OWNER if it is not root's, else whether a user other than
 * root could change its parent as far as it goes (dir_unsafe()), i.e.
 * rename it away and put something else at PATH. The fd, or -errno.
 */
int dir_open_trusted(const char *path, struct stat *st, struct dir_trust *t);
/* "its owner, uid 1000," and the like, for "DIR may be changed by %s so". */
const char *dir_trust_who(const struct dir_trust *t, char *buf, size_t size);

#endif
