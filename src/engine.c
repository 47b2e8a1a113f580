// SPDX-License-Identifier: GPL-2.0
/* list and remove: the pin directory without a policy; see engine.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "diag.h"
#include "engine.h"
#include "pin_info.h"
#include "pin_json.h"
#include "pindir.h"
#include "privs.h"
#include "revoke.h"
#include "unpin.h"

/*
 * Keep apply's privileges, then open and lock DIR (pindir_open). Both
 * revoke pins (remove; list, emptying the work directory of an
 * interrupted run), which gives them to root: CAP_CHOWN.
 */
static int open_dir(struct pin_dir *d, const char *dir, unsigned int flags)
{
	int ret;

	pindir_init(d);
	ret = privs_restrict(PRIVS_APPLY);
	return ret ?: pindir_open(d, dir, flags);
}

int engine_list(const char *dir, json_object **pins, bool *empty)
{
	unsigned int unneutered = revoke_run_begin();
	struct pin_dir d;
	int ret, neuter_ret;

	*pins = NULL;
	ret = open_dir(&d, dir, PINDIR_TIDY);
	/* Tidying revokes what an interrupted run left: a link it could not
	 * neuter is said, and fails list.
	 */
	neuter_ret = revoke_check_neutered(unneutered, dir);
	if (!ret || ret == -ENOENT) {
		*empty = ret == -ENOENT || d.cur_fd < 0;
		*pins = pin_json_all(&d, &ret);
	}
	pindir_close(&d);
	return ret ?: neuter_ret;
}

/* Is every one of the N NAMES in FOUND? Names each one that is not. */
static int all_found(const char *dir, char **names, size_t n, char **found,
		     size_t nfound)
{
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < nfound && strcmp(found[j], names[i]); j++)
			;
		if (j == nfound) {
			err("%s: no pin '%s'", dir, names[i]);
			ret = -ENOENT;
		}
	}
	return ret;
}

int engine_remove(const char *dir, char **names, size_t n, bool all, bool force)
{
	unsigned int unneutered = revoke_run_begin();
	struct pin_dir d;
	char **found = NULL;
	size_t nfound = 0, removed;
	bool emptied;
	int ret;

	ret = open_dir(&d, dir, 0);
	if (ret == -ENOENT)
		err("%s: no such directory", dir);
	if (ret)
		goto out;
	ret = pindir_names(&d, &found, &nfound);
	if (ret) {
		err("%s: %s", dir, strerror(-ret));
		goto out;
	}
	if (all) {
		names = found;
		n = nfound;
	} else {
		ret = all_found(dir, names, n, found, nfound);
	}
	if (ret)
		goto out;	/* a name that is not there: remove none */
	/* Each name on its own: what is not ours (without --force) or
	 * cannot be removed stays, named, and the others go.
	 */
	ret = unpin(&d, names, n, force, NULL, &removed, &emptied);
out:
	/* Removed, each one, but a link that could not be neutered fails it. */
	if (revoke_check_neutered(unneutered, dir) && !ret)
		ret = -EIO;
	pindir_free_names(found, nfound);
	pindir_close(&d);
	return ret;
}
