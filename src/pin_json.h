/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pin as list and audit describe it, once, as JSON (json-c); list's
 * table is printed from the same object. The schema is in
 * docs/output.md ("fsiter-pin list --json").
 */
#ifndef FSITER_PIN_JSON_H
#define FSITER_PIN_JSON_H

#include <json-c/json.h>
#include "pindir.h"

/*
 * The pin NAME of D, or NULL with -errno in *error (reported). MANIFEST is
 * manifest_load()'s, or NULL.
 */
json_object *pin_json(struct pin_dir *d, const char *name, json_object *manifest,
		      int *error);
/* The string value of KEY in O, or "-". */
const char *pin_json_get(json_object *o, const char *key);
/* Every pin of D that can be read, in name order: an array (empty if
 * there is none). *ERROR: 0, or the first -errno of a pin, or of the
 * directory, that could not be read (each reported).
 */
json_object *pin_json_all(struct pin_dir *d, int *error);

#endif
