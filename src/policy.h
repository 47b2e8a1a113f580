/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policy: which views to pin, on what, and who may read them.
 * Format: docs/fsiter-policy.conf.5. Parsing is pure (no system calls
 * beyond reading the files), so it can be fuzzed on its own; validation
 * resolves users, groups and ACLs.
 */
#ifndef FSITER_POLICY_H
#define FSITER_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "diag.h"
#include "view_table.h"

#define POLICY_DEFAULT_PIN_DIR	"/sys/fs/bpf/fsiter"
/* The policy that the units apply, and the commands take by default. */
#define POLICY_DEFAULT_PATH	"/etc/fsiter/policy.conf"
/* PIN_DIR's work directory is PIN_DIR POLICY_WORK_SUFFIX (pindir.h). */
#define POLICY_WORK_SUFFIX	"_staging"
#define POLICY_DEFAULT_MODE	0400
/* Longest pin name: a bpffs name is at most NAME_MAX bytes. */
#define POLICY_NAME_MAX		255

/* Entry options (the last column). */
#define POLICY_OPT_NOFAIL	0x1	/* a missing path skips the entry */
#define POLICY_OPT_EXPOSE_RAW	0x2	/* inode-raw may be granted to non-root */
#define POLICY_OPT_EXPOSE_CACHE	0x4	/* page-cache state to every reader */
#define POLICY_OPT_HARDLINKS	0x8	/* a file with other names is fine */
/* A whole filesystem's totals, with the sums over the files withheld
 * from the reader (views on TARGET_SB only).
 */
#define POLICY_OPT_EXPOSE_TOTALS 0x10
/* The options that lift a protection of the kernel's for every reader the
 * pin lets in: they need owner root (and expose-cache and expose-totals a
 * path only root controls, plan_target_check()).
 */
#define POLICY_OPT_EXPOSE	(POLICY_OPT_EXPOSE_RAW | POLICY_OPT_EXPOSE_CACHE | \
				 POLICY_OPT_EXPOSE_TOTALS)

/* top=N of the views that take it (VIEW_TAKES_TOP): how many files. At
 * most what one run of the view can print (bpf/cache-top.bpf.c TOP_MAX).
 */
#define POLICY_TOP_DEFAULT	20
#define POLICY_TOP_MAX		100
#define POLICY_TOP_MAX_STR	"100"

/* One named ACL entry, u:NAME:r or g:NAME:r, once validated. */
struct policy_grant {
	bool is_group;
	unsigned int id;	/* uid or gid */
	bool read;		/* r, or - for an entry that grants nothing */
};

struct policy_entry {
	struct loc loc;
	const struct view_desc *view;
	char *name;
	char *path;
	mode_t mode;
	char *owner;		/* NULL: root */
	char *group;		/* NULL: root */
	char *acl;		/* NULL: none beyond the mode */
	unsigned int options;
	unsigned int top;	/* top=N, 0 if not given */

	/* Filled in by policy_validate(). */
	bool unresolved;	/* a user or group it names does not resolve */
	bool owner_unresolved;	/* its owner: uid 0 stands in for it */
	bool group_unresolved;	/* its group: gid 0 stands in for it */
	uid_t uid;
	gid_t gid;
	struct policy_grant *grants;
	size_t nr_grants;
};

/* set grant-traverse: no; yes (named user and group entries); others (also
 * o+x, and raising an ACL mask).
 */
enum grant_traverse { GRANT_TRAVERSE_NO, GRANT_TRAVERSE_YES, GRANT_TRAVERSE_OTHERS };

struct policy {
	char *pin_dir;
	struct loc pin_dir_loc;
	/* set pin-dir-mode: 0755 (the default: whoever may search the pin
	 * directory lists its names) or 0711 (names hidden); 0 if not set.
	 */
	mode_t pin_dir_mode;
	struct loc pin_dir_mode_loc;
	enum grant_traverse grant_traverse;
	struct loc grant_traverse_loc;	/* .file NULL: not set */
	struct policy_entry *entries;
	size_t nr_entries;
	size_t entries_cap;	/* allocated */
	void *by_name;		/* tsearch(3) tree of the names, for O(log n) */
	/* The files read, in order: the strings that loc.file points to. */
	char **files;
	size_t nr_files;
	/* Validate without NSS (check --no-resolve, on a build host): every
	 * user and group name resolves, to an id of its own that is not
	 * root's unless it is "root" or "0", and an ACL entry is checked as
	 * text.
	 */
	bool no_resolve;
	/* What policy_load() read, byte for byte: each file's path and text,
	 * or that it was masked. policy_changed() compares it.
	 */
	char *source;
	size_t source_len;
};

void policy_init(struct policy *p);
void policy_free(struct policy *p);

/*
 * Parse one file's text as FILE. Entries and settings of FILE replace
 * those of files parsed before; the same name or setting twice in FILE is
 * an error. Reports every error; returns 0, -EINVAL if there was any, or
 * -ENOMEM.
 */
int policy_parse_buf(struct policy *p, const char *file, const char *buf,
		     size_t len);
/*
 * Read PATH, then each drop-in NAME.conf of PATH.d (PATH without ".conf",
 * plus ".d") in the byte order of the names; a drop-in that is /dev/null,
 * or a link to it, is masked. A file or drop-in directory that a user
 * other than root (or the caller) could change is refused. Reports every
 * error; returns 0, -EINVAL for a bad policy, -EPERM for one that others
 * could change, or another negative errno for a file that cannot be read.
 */
int policy_load(struct policy *p, const char *path);
/*
 * Does PATH (and its drop-ins) now read otherwise than what policy_load()
 * read into P? 1 if it does, or if it can no longer be read; 0 if not;
 * -ENOMEM. Says nothing: apply calls it under the pin directory's lock
 * and builds its plan again if the policy changed.
 */
int policy_changed(const struct policy *p, const char *path);
/* Resolve users, groups and ACLs (not with P->no_resolve), check grants,
 * and the pin-dir against the pin directories in place. 0; -ENOENT if the
 * only errors are users or groups that do not resolve (each such entry is
 * marked unresolved: apply fails just those); or -EINVAL.
 */
int policy_validate(struct policy *p);
/*
 * Is the pin-dir clear of other pin directories (one that a directory
 * NAME_staging beside it marks)? Neither inside one nor holding one's
 * work directory: 0, or -EINVAL, reported with the file and line.
 * policy_validate() calls it.
 */
int policy_validate_pin_dir(const struct policy *p);
/* Does E's ACL column name NAME, as a user (u:NAME:r) or (IS_GROUP) a
 * group, in the form a grant must have to be left unresolved? If so, and
 * READ is not NULL, *READ says whether it grants read (r, not -).
 */
bool policy_acl_names(const struct policy_entry *e, bool is_group,
		      const char *name, bool *read);
/* The same for DIR, said with LOC (NULL: none) and AS after the pin-dir
 * (" (the default)"): a pin-dir read from elsewhere (a manifest, claim.h)
 * passes the checks a policy's does.
 */
int policy_pin_dir_clear(const char *dir, const struct loc *loc, const char *as);
/* The same, but the pin directories policy_pin_dir_mine() says are
 * POLICY's own do not count (a manifest's pin_dir, for its policy).
 */
int policy_pin_dir_clear_for(const char *dir, const char *policy, const struct loc *loc,
			     const char *as);
/*
 * Is the pin directory PIN_DIR the policy POLICY's own (its manifest names
 * it, or it has no manifest and no pin: remove --all leaves its work
 * directory), so not another policy's to policy_validate_pin_dir()? NULL
 * (the default): every other pin directory is another's. The engine sets
 * it (claim_pin_dir_mine()): the policy library reads no manifest.
 */
extern bool (*policy_pin_dir_mine)(const char *pin_dir, const char *policy);

/* The N of E's view: top=N, the default if the view takes it, else 0. */
unsigned int policy_entry_top(const struct policy_entry *e);

/* The entry named NAME, or NULL; O(log n). */
const struct policy_entry *policy_find(const struct policy *p,
				       const char *name);
/*
 * Each file policy_load() read into P, in the order it read them:
 * FN(ARG, PATH, TEXT, LEN), TEXT NULL for a masked drop-in. Stops at the
 * first non-zero FN returns, and returns it; else 0.
 */
int policy_each_source(const struct policy *p,
		       int (*fn)(void *arg, const char *path, const char *text,
				 size_t len),
		       void *arg);
/* The drop-in directory of PATH, malloc'ed; NULL on ENOMEM. */
char *policy_dropin_dir(const char *path);

#endif
