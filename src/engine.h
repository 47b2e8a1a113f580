/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's entry points for list, remove and watch; apply and audit
 * go through plan.h.
 */
#ifndef FSITER_ENGINE_H
#define FSITER_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

/*
 * Every pin of DIR, described (pin_json.h), into *PINS; *EMPTY if DIR
 * does not exist. Takes the lock shared, and empties the work directory
 * as apply would if nobody else holds the lock. 0 or -errno (reported);
 * *PINS holds what could be read even then (NULL if nothing could).
 */
int engine_list(const char *dir, json_object **pins, bool *empty);
/*
 * Unpin the N NAMES of DIR, or ALL of them, printing each; if a name is
 * not pinned, or is not one of fsiter-pin's pins and not FORCE, nothing is
 * removed. With FORCE a directory goes with what it holds (tree_remove()).
 * 0 or -errno (reported).
 */
int engine_remove(const char *dir, char **names, size_t n, bool all, bool force);

/*
 * Apply POLICY (plan_apply()), then again each time the mount table
 * changes, until it has been quiet for TIMEOUT_S seconds (-1: never).
 * The last apply's 0, PLAN_PARTIAL or -errno.
 */
int engine_watch(const char *policy, long timeout_s);

/*
 * What apply would make of POLICY, asking for no capability, bpffs or our
 * kernel: read and validate it and its drop-ins as apply does, each
 * error said with its file and line; with RESOLVE, users and groups
 * through NSS, and each entry's path where it exists, with apply's checks
 * (a missing one fails its entry unless nofail); without (a build host),
 * neither. The number of entries, of which *NR_FAILING would fail alone
 * here (apply would apply the rest); or -errno if apply would refuse the
 * whole policy.
 */
int engine_check(const char *policy, bool resolve, size_t *nr_failing);

#endif
