/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unpin names of a pin directory, each on its own, as remove does and as
 * apply does in a pin directory its policy no longer names.
 */
#ifndef FSITER_UNPIN_H
#define FSITER_UNPIN_H

#include <stdbool.h>
#include <stddef.h>
#include "pindir.h"

/*
 * Revoke and unlink the N NAMES of D (pin_remove(): its link neutered,
 * then root's, mode 0000, no ACL, then gone), each on its own: one that
 * is not one of fsiter-pin's pins is named and kept (-EEXIST) unless
 * FORCE, with which a directory goes with what it holds (tree_remove()).
 * Each pin removed is printed: "removed NAME", or with WHY "removed
 * PIN_DIR/NAME: WHY". Once D holds nothing, its readers leave
 * grant-traverse's record (traverse_forget()) and *EMPTIED is set.
 * *REMOVED counts the names removed. 0 or the first -errno (each said).
 */
int unpin(struct pin_dir *d, char **names, size_t n, bool force, const char *why,
	  size_t *removed, bool *emptied);

#endif
