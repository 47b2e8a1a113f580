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
 * A pin held while a user or group of E does not resolve (fsiter-pin(8),
 * ENTRIES THAT FAIL) keeps only the ids on it that are E's: E's own
 * resolved ids, and those that now name the very user or group E names
 * (a directory service that came up since the policy was read).
 *
 * perms_held_check(): may it be held at all? 1; 0 with *what naming the
 * first id that names someone E does not grant ("owner", "group",
 * "ACL"): a deleted user's uid that a new user has been given must not
 * carry the old grant over; or -errno.
 *
 * perms_held_narrow(): the same, and on 1 the pin is made to keep E's
 * ids only: an owner that names no one becomes root, a group that names
 * no one becomes root's with no group bits, the ACL entries that name no
 * one go (an NSS error is no name), those that stay read only if E gives
 * them read, and the mode, mask and other are E's again. So no id on a held pin can be given to
 * a new user between two applies. DROPPED (SIZE bytes; PERMS_DROPPED_MAX
 * is plenty for a message) lists what went ("owner 2050, u:2050").
 */
#define PERMS_DROPPED_MAX	256
int perms_held_check(int dirfd, const char *name, const struct policy_entry *e,
		     const char **what);
int perms_held_narrow(int dirfd, const char *name, const struct policy_entry *e,
		      const char **what, char *dropped, size_t size);
#endif
