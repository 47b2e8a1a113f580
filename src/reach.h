/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who can reach the pins: apply's check (and grant-traverse's fix) that
 * every reader a policy grants can search each directory down to the pin
 * directory, audit's findings, and list's READERS column.
 */
#ifndef FSITER_REACH_H
#define FSITER_REACH_H

#include <stdbool.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include "policy.h"

/* The filesystem whose directories grant-traverse changes: bpffs (a
 * test's may be another, where bpffs has no ACLs).
 */
extern unsigned long reach_fs_magic;

enum reader_kind { READER_USER, READER_GROUP, READER_OTHER };

struct reader {
	enum reader_kind kind;
	unsigned int id;
	const struct policy_entry *first;	/* the first entry granting it */
	bool stopped;		/* reach_check(): a directory stops it */
};

/*
 * May R search a directory with access ACL ACL and ST's owner and group?
 * The POSIX.1e access check (acls(5)); the owner's and others'
 * permissions are the ACL's entries (ST's mode where it has none), so
 * ACL may be one changed in memory. A user's groups are getgrouplist()'s.
 */
bool reach_may_search(acl_t acl, const struct stat *st, const struct reader *r);

/* A reader the policy grants that cannot search a directory on the way. */
struct reach_block {
	const struct policy_entry *entry;	/* the first entry granting it */
	const char *who;	/* "group 'fsreaders'" */
	const char *dir;
	mode_t mode;		/* of DIR */
	const char *fix;	/* a command that would let it through */
	bool on_bpffs;		/* so grant-traverse could */
	bool other;		/* the reader is everyone (o+r) */
	bool needs_others;	/* grant-traverse 'yes' could not: 'others' would */
	bool replaceable;	/* a user could replace DIR: grant-traverse does not change it */
};

typedef void (*reach_report_fn)(const struct reach_block *b, void *arg);

/* What reach_check() changed in the ACLs of bpffs directories. */
struct reach_changes {
	size_t given;	/* search permissions grant-traverse gave */
	size_t taken;	/* and those it took back */
	bool bad_record;	/* its record is unreadable: it did nothing */
};

/*
 * Can everyone that the N ENTRIES grant read access reach PIN_DIR (search
 * every directory from / down)? If not: with GT, add x ACL entries on the
 * bpffs directories in the way, as far as GT allows (traverse.h), unless
 * DRY_RUN, and say each once it is set; REPORT each reader stopped (NULL:
 * print an error and how to fix it). With REPORT NULL (apply), first take
 * back what an earlier apply's grant-traverse added and no reader needs
 * now, and record what it adds; call it under the pin directory's lock.
 * What it changed goes to *CHANGES (if not NULL), whatever it returns.
 * If STOPPED is not NULL, STOPPED[I] says whether a reader that
 * ENTRIES[I] grants is stopped. 0, -EACCES if anyone is stopped, or
 * -errno. A record of grant-traverse that cannot be read whole (said,
 * and CHANGES->bad_record set) stops grant-traverse alone: nothing is
 * given or taken back, the record is left as it is, and the readers are
 * checked as they are.
 */
int reach_check(const struct policy_entry *const *entries, size_t n,
		enum grant_traverse gt, const char *pin_dir, bool dry_run,
		reach_report_fn report, void *arg, struct reach_changes *changes,
		bool *stopped);
/* The readers the N ENTRIES grant (but root), once each, in *OUT (N in
 * *NOUT; to be freed). 0 or -ENOMEM.
 */
int reach_readers_of(const struct policy_entry *const *entries, size_t n,
		     struct reader **out, size_t *nout);

/* A search permission on a bpffs directory that no reader needs. */
struct reach_extra {
	const char *dir;
	const char *detail;	/* what it is, and how it would go */
};
typedef void (*reach_extra_fn)(const struct reach_extra *x, void *arg);
/*
 * audit: on each bpffs directory on the way to PIN_DIR (but PIN_DIR,
 * whose own check is pindir_check()), report to FN each named ACL entry
 * that gives search (x, through the mask) to a user or group that no
 * reader of the N ENTRIES needs, nor a reader of another pin directory
 * (in grant-traverse's record: traverse_needed(), a user needing the
 * entries of its groups); and on the topmost one (/sys/fs/bpf) o+x, if
 * no one grants everyone. 0 or -errno.
 */
int reach_extra_search(const struct policy_entry *const *entries, size_t n,
		       const char *pin_dir, reach_extra_fn fn, void *arg);

/*
 * Who can read the pin PIN_PATH, from its owner, mode and ACL: "u:root,
 * g:fsreaders,o", each marked "!" if it cannot reach PIN_DIR; "-" for
 * nobody. Every reader, however many: *LIST is malloc'ed, to be freed.
 * 0 or -errno.
 */
int reach_readers(const char *pin_path, const char *pin_dir, char **list);

#endif
