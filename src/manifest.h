/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What apply pinned, for list and audit: the kernel keeps no record of
 * which path a pin was made for, or from which policy line. The manifest
 * is a JSON file (json-c) under /run, written after each successful
 * apply; an entry counts only while its link id matches the pin's, so a
 * pin replaced by other means is never described by an old entry.
 */
#ifndef FSITER_MANIFEST_H
#define FSITER_MANIFEST_H

#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include <json-c/json.h>
#include "diag.h"

#define MANIFEST_DIR	"/run/fsiter-pin"

struct manifest_entry {
	char path[PATH_MAX];
	char source[PATH_MAX + 16];	/* policy file:line */
	char entry[PATH_MAX + 1024];	/* plan_entry_text() of its entry */
	char unsafe[PATH_MAX + 128];	/* plan_unsafe_text() apply accepted */
};

/* What apply made one pin for. */
struct manifest_record {
	const char *name;
	const char *view;
	const char *path;
	struct loc loc;		/* its policy line */
	__u32 link_id;
	const char *tag;
	const char *entry;	/* plan_entry_text() */
	const char *unsafe;	/* plan_unsafe_text(), or "" or NULL */
};

/* Where the records go: MANIFEST_DIR (tests change it). */
extern const char *manifest_dir;

/*
 * The record of PATH in manifest_dir, named as systemd-escape --path
 * names it, with SUFFIX: one name per path ('-' is \x2d, so /a-b and
 * /a/b differ), and /sys/fs/bpf/fsiter is sys-fs-bpf-fsiter. 0, or
 * -ENAMETOOLONG if the name would be longer than NAME_MAX.
 */
int manifest_file(const char *path, const char *suffix, char out[PATH_MAX]);
/* MANIFEST_DIR/sys-fs-bpf-fsiter.json for /sys/fs/bpf/fsiter, with SUFFIX
 * ".json"; other records of a pin directory take other suffixes.
 * manifest_file(): 0 or -ENAMETOOLONG.
 */
int manifest_path(const char *pin_dir, const char *suffix, char out[PATH_MAX]);
/* The name before manifest_file(): '/' to '-', nothing else; /a-b and
 * /a/b shared it. Only to read what an older fsiter-pin wrote.
 */
void manifest_legacy_path(const char *pin_dir, const char *suffix, char out[PATH_MAX]);
/* Make manifest_dir (0700) if it is not there; one that is there must be
 * a directory (not a symbolic link) of this user's, 0700 or less: else
 * -EPERM (reported). 0 or -errno.
 */
int mkdir_manifest_dir(void);
/* Is ST (an lstat() of manifest_dir) a directory of this user's that no
 * one else may change: not a link, 0700 or less?
 */
bool manifest_dir_ours(const struct stat *st);
/* Record the N pins RECS of PIN_DIR, from POLICY (named as
 * claim_policy_name() names it: the pin directory is that policy's,
 * claim.h), in PIN_DIR's manifest. 0 or -errno (reported).
 */
int manifest_write(const char *pin_dir, const struct manifest_record *recs,
		   size_t n, const char *policy);
/* D's manifest, parsed once for many lookups; NULL if there is none. A
 * manifest counts only if it names PIN_DIR ("pin_dir"), so one an older
 * fsiter-pin wrote (its names mapped /a-b and /a/b to one file) is still
 * read, and never taken for another pin directory's.
 */
json_object *manifest_load(const char *pin_dir);
/* What MANIFEST says of the pin NAME with link LINK_ID: 0 or -ENOENT. */
int manifest_lookup(json_object *manifest, const char *name, __u32 link_id,
		    struct manifest_entry *out);

#endif
