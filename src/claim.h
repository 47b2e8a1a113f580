/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which policy a pin directory belongs to: the one its manifest names
 * ("policy", manifest.h), an absolute path, written by the last apply
 * that made its pins. With it apply refuses a pin directory that holds
 * the pins of another policy that still names it, revokes what it made
 * in a pin directory it no longer names, and audit reports the pins of
 * a pin directory whose policy is gone or names another one (orphaned).
 *
 * Manifests are root's, in a directory of root's (mkdir_manifest_dir()),
 * but what one names is checked before anything is done with it: the
 * file must be a regular file of root's that no one else may write,
 * named as manifest_file() names its pin directory; the pin directory
 * must pass the checks of a policy's pin-dir (policy_pin_dir_error(),
 * policy_pin_dir_clear()), and be a directory on bpffs reached from /
 * with no symbolic link on the way, on any bpffs (inside
 * claim_bpffs_root by its name alone; checked again at each use): one
 * that is not there claims nothing; the policy must be
 * an absolute path, and is only read, as a policy is (policy_load()).
 */
#ifndef FSITER_CLAIM_H
#define FSITER_CLAIM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct claim {
	char file[PATH_MAX];	/* the manifest */
	char pin_dir[PATH_MAX];	/* its "pin_dir" */
	char policy[PATH_MAX];	/* its "policy": absolute, or an older
				 * fsiter-pin's name as given ("" if none) */
};

/* What the policy of a claim says now. */
enum claim_owner {
	CLAIM_LIVE,	/* it exists and names the pin directory */
	CLAIM_GONE,	/* it does not exist, or is no policy fsiter-pin
			 * would read (a user other than root may change it) */
	CLAIM_MOVED,	/* it names another pin-dir */
	CLAIM_UNKNOWN,	/* it does not parse, or the manifest names it by a
			 * relative name (an older fsiter-pin): cannot tell */
};

/* Where pin directories may be: BPFFS_MOUNT_POINT (tests change it). */
extern const char *claim_bpffs_root;

/*
 * POLICY as manifests name it: the absolute path of its directory,
 * symbolic links resolved, and its own name as it is (a policy file that
 * is a link is still named by the link). 0 or -ENAMETOOLONG.
 */
int claim_policy_name(const char *policy, char out[PATH_MAX]);
/* Is C's policy POLICY_ABS (claim_policy_name()), or, in an older
 * fsiter-pin's manifest, the same name AS_GIVEN?
 */
bool claim_is(const struct claim *c, const char *policy_abs, const char *as_given);
/*
 * The claim on PIN_DIR (a pin-dir a policy names): its manifest, if it
 * passes the checks above. 0; -ENOENT if it has none; -EINVAL if its
 * manifest is not to be trusted (said).
 */
int claim_read(const char *pin_dir, struct claim *c);
/*
 * FN(C, ARG) for each manifest in manifest_dir that passes the checks
 * above (one that does not is said, and skipped), until FN returns
 * non-zero, which this returns; else 0, or -errno if manifest_dir cannot
 * be read (none is 0).
 */
int claim_each(int (*fn)(const struct claim *c, void *arg), void *arg);
/* What C's policy says now; with CLAIM_MOVED, the pin-dir it names into
 * NOW (PATH_MAX bytes, or NULL).
 */
enum claim_owner claim_owner(const struct claim *c, char *now);
/*
 * The names of the pins of fsiter-pin's (pin_foreign()) in C's pin
 * directory, looked at without its lock, and sorted; none if it does not
 * exist. 0 or -errno.
 */
int claim_pins(const struct claim *c, char ***names, size_t *n);
/* Remove C's manifest (its pin directory holds nothing now). 0 or -errno. */
int claim_drop(const struct claim *c);
/*
 * Is PIN_DIR the policy file POLICY's own pin directory (its manifest
 * names it), or one with no manifest and no pin of fsiter-pin's (what
 * remove --all leaves, work directory and all), so that moving its
 * pin-dir into it or out of it is no clash with another policy? For
 * policy_pin_dir_mine (policy.h).
 */
bool claim_pin_dir_mine(const char *pin_dir, const char *policy);

#endif
