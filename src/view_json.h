/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A view's "key value" lines as JSON (show --json), each value typed by
 * its key's row in view_keys.def, and keys with dots nested: "cache.cached
 * 12" becomes {"cache": {"cached": 12}}.
 *
 * The keys that repeat (KEY_LIST: a folio, a file) are written out as
 * they come, an array member each, so that memory does not grow with a
 * file's folios; the other keys are kept and written at the end, after
 * the arrays (members of a JSON object have no order). A list's lines
 * must come together, as every view prints them.
 */
#ifndef FSITER_VIEW_JSON_H
#define FSITER_VIEW_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>
#include "view_keys.h"

struct view_json {
	FILE *out;
	json_object *root;	/* the keys that do not repeat */
	unsigned int views;	/* the views that print every key seen */
	unsigned int lines;
	const struct view_key *list;	/* the array being written, or NULL */
	size_t items;		/* its members so far */
	unsigned long long done_lists;	/* the arrays written, by row */
	bool started;		/* "{" is out */
};

/* Writes to OUT. 0 or -ENOMEM. */
int view_json_init(struct view_json *vj, FILE *out);
void view_json_free(struct view_json *vj);
/*
 * One line, without its newline: 0, or -EINVAL with what is wrong with it
 * in WHY (an unknown key, a key twice, a value not of its type, keys of
 * two views, a list's lines apart), or -ENOMEM. What was written of the
 * object stays written: the caller says it is incomplete.
 */
int view_json_line(struct view_json *vj, const char *line, size_t len,
		   char *why, size_t why_size);
/* The one view that prints every key seen, or NULL. */
const struct view_desc *view_json_view(const struct view_json *vj);
/* The kept keys, and "pin": PIN and "view", to end the object. */
void view_json_end(struct view_json *vj, const char *pin);

/*
 * The LEN bytes at S as a JSON string that a terminal cannot act on: C0
 * and C1 controls, DEL, line separators and bidi marks as \uXXXX. Bytes
 * that are not UTF-8 as the views write them, "\ooo" (and a backslash
 * "\134").
 */
json_object *view_json_text(const char *s, size_t len);

#endif
