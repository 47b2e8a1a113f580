/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keys of the views' "key value" lines (view_keys.def), as plain
 * data: what each means is in fsiter-views(7); view_json.c types them.
 */
#ifndef FSITER_VIEW_KEYS_H
#define FSITER_VIEW_KEYS_H

#include <stddef.h>
#include "view_table.h"

enum key_type {
	KEY_COUNT,	/* unsigned decimal, or "-" (not known to this reader) */
	KEY_INT,	/* signed decimal */
	KEY_ERRNO,	/* a negative errno, on a line that may repeat: the first kept */
	KEY_FRACTION,	/* 0 to 1, with four decimals, or "-" */
	KEY_TEXT,	/* the rest of the line, as printed */
	KEY_NAME,	/* an escaped name or path (fsiter-views(7), NAMES) */
	KEY_RECORD,	/* words, named by the row's fields */
	KEY_LIST,	/* a record that repeats, one line each */
};

struct view_key {
	const char *name;
	enum key_type type;
	unsigned int views;	/* 1 << enum view_id, for each view printing it */
	const char *fields;	/* a record's, view_keys.def says how */
};

extern const struct view_key view_keys[];
extern const size_t view_key_count;

/* The row of KEY (LEN bytes, not NUL-terminated), or NULL. */
const struct view_key *view_key_lookup(const char *key, size_t len);

#endif
