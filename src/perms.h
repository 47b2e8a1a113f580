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
/* A reader the policy grants that cannot search a directory on the way. */
struct reach_block {
	const struct policy_entry *entry;	/* the first entry granting it */
	const char *who;	/* "group 'fsreaders'" */
	const char *dir;
	mode_t mode;		/* of DIR */
	const char *fix;	/* a command that would let it through */
	bool on_bpffs;		/* so grant-traverse could */
	bool other;		/* the reader is everyone (o+r) */
};

typedef void (*reach_report_fn)(const struct reach_block *b, void *arg);

/*
 * Can everyone that the N ENTRIES grant read access reach PIN_DIR (search
 * every directory from / down)? If not: with GRANT_TRAVERSE, add x ACL
 * entries on the bpffs directories in the way (unless DRY_RUN); without,
 * REPORT each reader stopped (NULL: print an error and how to fix it).
 * 0, -EACCES if anyone is stopped, or -errno.
 */
int perms_check_reach(const struct policy_entry *const *entries, size_t n,
		      bool grant_traverse, const char *pin_dir, bool dry_run,
		      reach_report_fn report, void *arg);
/*
 * Who can read the pin PIN_PATH, from its owner, mode and ACL: "u:root,
 * g:fsreaders,o", each marked "!" if it cannot reach PIN_DIR. 0 or -errno.
 */
int perms_pin_readers(const char *pin_path, const char *pin_dir, char *out,
		      size_t size);

#endif
