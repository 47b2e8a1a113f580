/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's entry points for the commands that take no policy: list
 * and remove. Those that take one go through plan.h.
 */
#ifndef FSITER_ENGINE_H
#define FSITER_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

/*
 * Every pin of DIR, described (pin_json.h), into *PINS; *EMPTY if DIR
 * does not exist. Takes the lock and empties the work directory, as
 * apply would. 0 or -errno (reported).
 */
int engine_list(const char *dir, json_object **pins, bool *empty);
/*
 * Unpin the N NAMES of DIR, or ALL of them, printing each; if a name is
 * not pinned, nothing is removed. 0 or -errno (reported).
 */
int engine_remove(const char *dir, char **names, size_t n, bool all);

#endif
