/* SPDX-License-Identifier: GPL-2.0 */
/* Owner, mode and ACL of pins (libacl), and who can reach them. */
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
/*
 * Does the pin have exactly the owner, mode and ACL of E? 1, 0 with *what
 * naming the first difference, or -errno.
 */
int perms_match(int dirfd, const char *name, const char *path,
		const struct policy_entry *e, const char **what);
/*
 * Can everyone that the N ENTRIES grant read access reach PIN_DIR (search
 * every directory from / down)? If not: with GRANT_TRAVERSE, add x ACL
 * entries on the bpffs directories in the way (unless DRY_RUN); without,
 * report each reader and how to let them through. 0 or -errno.
 */
int perms_check_reach(const struct policy_entry *const *entries, size_t n,
		      bool grant_traverse, const char *pin_dir, bool dry_run);

#endif
