/* SPDX-License-Identifier: GPL-2.0 */
/* Owner, mode and ACL of pins (libacl). */
#ifndef FSITER_PERMS_H
#define FSITER_PERMS_H

#include <stdbool.h>
#include <sys/acl.h>
#include "policy.h"

/* The access ACL an entry asks for: its mode plus its named grants. */
int perms_build_acl(const struct policy_entry *e, acl_t *out);
/*
 * Give the pin PATH (named NAME in DIRFD) the owner, mode and ACL of E.
 * 0 or -errno.
 */
int perms_set(int dirfd, const char *name, const char *path,
	      const struct policy_entry *e);
#define PERMS_OWNER	0x1
#define PERMS_MODE	0x2
#define PERMS_ACL	0x4
/* Which of owner, mode and ACL of the pin differ from E's: PERMS_*, or
 * -errno.
 */
int perms_diff(int dirfd, const char *name, const char *path,
	       const struct policy_entry *e);
/*
 * Does the pin have exactly the owner, mode and ACL of E? 1, 0 with *what
 * naming the first difference ("owner", "mode", "ACL"), or -errno.
 */
int perms_match(int dirfd, const char *name, const char *path,
		const struct policy_entry *e, const char **what);
/*
 * For a pin held while a user or group of E does not resolve: does every
 * id on it (owner, group, named ACL entries) either stand for E's own
 * resolved id, or name no one now? A deleted user's uid that a new user
 * has been given must not carry the old grant over. 1; 0 with *what
 * naming the first id that names someone E does not grant ("owner",
 * "group", "ACL"); or -errno. An id NSS cannot answer for counts as no
 * one's: the hold is for a directory service that is not there yet.
 */
int perms_ids_unclaimed(int dirfd, const char *name, const char *path,
			const struct policy_entry *e, const char **what);
#endif
