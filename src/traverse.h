/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grant-traverse: the search (x) ACL entries apply adds on bpffs
 * directories so that the readers a policy grants reach its pins, the
 * record of them, and taking them back once no reader needs them.
 *
 * "yes" adds x to named user and group entries only, and only where that
 * widens nothing else: a directory whose ACL mask lacks x would need the
 * mask raised, which gives x back to every group-class entry that has it,
 * so it is refused like "other" readers are. "others" may add o+x and
 * raise the mask. What apply added is recorded, per pin directory, in
 * MANIFEST_DIR/<pin dir>.traverse.json, written under the pin directory's
 * lock, and taken back by the next apply whose policy no longer grants
 * that reader.
 */
#ifndef FSITER_TRAVERSE_H
#define FSITER_TRAVERSE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/acl.h>
#include "reach.h"

/* What apply changed: x on 'u' or 'g' with an id, on 'o', on 'm' the
 * mask; or 'c': it created the mask.
 */
struct traverse_rec {
	char *dir;
	char tag;
	unsigned int id;
};

struct traverse {
	struct traverse_rec *r;
	size_t n;
	bool changed;	/* since traverse_load() */
	size_t given;	/* search permissions given (and set) by the caller */
	size_t taken;	/* ACL entries traverse_take_back() took back */
};

/* The record of PIN_DIR (none if there is no file). 0 or -errno. */
int traverse_load(struct traverse *t, const char *pin_dir);
/* Write it, if it changed. 0 or -errno (reported, with what a later
 * apply will not know: the GIVEN and TAKEN of this run).
 */
int traverse_save(struct traverse *t, const char *pin_dir);
void traverse_free(struct traverse *t);
/* Forget the records after the first N (added since T had N). */
void traverse_truncate(struct traverse *t, size_t n);

/* Would letting R search a directory with ACL take 'others' (R is
 * everyone, or the mask lacks x)?
 */
bool traverse_needs_others(acl_t acl, const struct reader *r);
#define TRAVERSE_ENTRY		0x1	/* x on R's entry (made if need be) */
#define TRAVERSE_MASK		0x2	/* x on the mask */
#define TRAVERSE_MASK_MADE	0x4	/* a mask made, as a named entry needs */
/*
 * Let R search DIR, whose access ACL is *ACL (in memory: the caller sets
 * it): x on R's entry, created if need be, and on the mask if that is
 * needed and OTHERS allows it. Records in T (if not NULL) what got x, and
 * in *DID what changed in *ACL (TRAVERSE_*). 0; 1 if that needs 'others'
 * (R is everyone, or the mask lacks x): nothing changed; or -errno.
 */
int traverse_grant(acl_t *acl, const char *dir, const struct reader *r,
		   bool others, struct traverse *t, unsigned int *did);
/*
 * Take x back from each recorded entry that none of the N readers RS
 * needs: a named entry left with no permission goes, and so does the mask
 * when no named entry is left. Each change is said once it is made, and
 * counted in T->taken (x on a named entry, on o or on the mask, or the
 * mask itself); DRY_RUN only says what it would do. A record whose entry
 * cannot be changed stays, for the next apply, and so do the masks if a
 * named entry could not be changed. 0 or the first -errno (each
 * reported).
 */
int traverse_take_back(struct traverse *t, const struct reader *rs, size_t n,
		       bool dry_run);

#endif
