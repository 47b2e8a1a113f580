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
 * raise the mask.
 *
 * One record serves every pin directory (traverse_record.c): /sys/fs/bpf
 * is on the way to all of them. It says what grant-traverse added, and
 * which readers each pin directory's last apply granted. An entry is
 * taken back once no pin directory whose way crosses its directory has a
 * reader it lets through, so one policy never takes back what another
 * needs. It is read and written under a lock of its own, which every
 * apply takes after its pin directory's; and it is written (temp file,
 * fsync, rename) before the ACL it describes is set, so that a run killed
 * in between leaves at worst the record of an entry that is not there,
 * which the next take-back forgets, never an entry no record knows.
 */
#ifndef FSITER_TRAVERSE_H
#define FSITER_TRAVERSE_H

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include "reach.h"

/* What apply changed: x on 'u' or 'g' with an id, on 'o', on 'm' the
 * mask; or 'c': it created the mask.
 */
struct traverse_rec {
	char *dir;
	char tag;
	unsigned int id;
};

/* A reader ('u', 'g' or 'o' with ID 0) that PIN_DIR's last apply granted;
 * STALE if PIN_DIR no longer exists: it counts for nothing, and is not
 * saved.
 */
struct traverse_need {
	char *pin_dir;
	char tag;
	unsigned int id;
	bool stale;
};

struct traverse {
	struct traverse_rec *r;		/* what grant-traverse added */
	size_t n;
	struct traverse_need *need;	/* every pin directory's readers */
	size_t nn;
	const char *pin_dir;	/* whose apply (or audit) this is */
	char old[PATH_MAX];	/* its record of an older fsiter-pin, or "" */
	int lock_fd;		/* the record's lock, or -1 */
	bool changed;	/* since traverse_load() */
	size_t given;	/* search permissions given (and set) by the caller */
	size_t taken;	/* ACL entries traverse_take_back() took back */
};

/* The record's file and its lock, in manifest_dir: names that no path
 * escaped by manifest_file() can take (a leading '.' is escaped there).
 */
#define TRAVERSE_RECORD	".grant-traverse.json"
#define TRAVERSE_LOCK	".grant-traverse.lock"

/*
 * The record (empty if there is no file), for PIN_DIR; with LOCK (apply),
 * first its lock, held until traverse_free(). A record PIN_DIR had of its
 * own (an older fsiter-pin's, MANIFEST_DIR/<pin dir>.traverse.json) is
 * merged in, and removed by the next traverse_save(). The readers of a
 * pin directory that no longer exists are marked stale (and, with LOCK,
 * said to be forgotten). A record that cannot be read whole (bad JSON,
 * a bad tag, directory or id) is -EBADMSG: nothing may be given or taken
 * back then. 0 or -errno (reported).
 */
int traverse_load(struct traverse *t, const char *pin_dir, bool lock);
/* Write it, if it changed: whole, fsynced, renamed over the old one. 0
 * or -errno (reported, with what a later apply will not know: the GIVEN
 * and TAKEN of this run).
 */
int traverse_save(struct traverse *t);
void traverse_free(struct traverse *t);
/* Record that grant-traverse added TAG ID's x (or the mask) on DIR,
 * once. 0 or -ENOMEM.
 */
int traverse_rec_add(struct traverse *t, const char *dir, char tag, unsigned int id);
/*
 * PIN_DIR has no pins now (remove --all): its readers leave the record
 * (under its lock), so that the next apply takes back what only they
 * needed. 0 or -errno (reported).
 */
int traverse_forget(const char *pin_dir);
/* Forget the records after the first N (added since T had N). */
void traverse_truncate(struct traverse *t, size_t n);
/* 'u', 'g' or 'o', as the record names R's kind. */
char traverse_reader_tag(const struct reader *r);
/* The N readers RS are now T->pin_dir's. 0 or -ENOMEM. */
int traverse_set_readers(struct traverse *t, const struct reader *rs, size_t n);
/*
 * Does a reader of a pin directory whose way crosses DIR need the entry
 * TAG ('u', 'g', 'o') ID there? A pin directory's own readers count as
 * they are named; with MEMBERS, and always for the other pin directories
 * (which this run cannot give anything), a user also needs the entries
 * of its groups.
 */
bool traverse_needed(const struct traverse *t, const char *dir, char tag,
		     unsigned int id, bool members);

/*
 * The first reader, of a pin directory whose way crosses DIR, that may
 * search DIR (owned as ST says) with access ACL BEFORE and not with AFTER;
 * with OWN, T->pin_dir's readers count too. NULL if there is none.
 */
const struct traverse_need *traverse_cuts_off(const struct traverse *t, const char *dir,
					      acl_t before, acl_t after,
					      const struct stat *st, bool own);
/*
 * Would taking TAG ID's x (as take-back does) from DIR's ACL, owned as ST
 * says, stop a reader of another pin directory than T->pin_dir? (Its own
 * readers would get their own entries from its next apply, as take-back
 * counts them.) Yes if that cannot be worked out.
 */
bool traverse_relied_on(const struct traverse *t, const char *dir, acl_t acl,
			const struct stat *st, char tag, unsigned int id);

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
 * Take x back from each recorded entry that no pin directory needs
 * (traverse_needed(), its own readers as named: this run gives them what
 * they lack) and that no reader gets through by otherwise (o+x, or the
 * mask for group::, that another policy's reader relies on:
 * traverse_cuts_off() on the ACL as it would be): a named entry left with
 * no permission goes. x on the mask
 * (or the mask it made) is taken back only once no named entry with x in
 * the directory's ACL, whoever made it, is needed by a reader of any pin
 * directory (with the entries of its groups); and the mask it made goes
 * when no named entry is left. Each change is said once it is made, and
 * counted in T->taken (x on a named entry, on o or on the mask, or the
 * mask itself); DRY_RUN only says what it would do. A record whose entry
 * cannot be changed stays, for the next apply, and so do the masks if a
 * named entry could not be changed. 0 or the first -errno (each
 * reported).
 */
int traverse_take_back(struct traverse *t, bool dry_run);

#endif
