// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "view_keys.h"

#define V(id)	(1U << VIEW_##id)
#define KEY(name, type, views, fields)	{ name, type, views, fields },
const struct view_key view_keys[] = {
#include "view_keys.def"
};
#undef KEY
#undef V

const size_t view_key_count = sizeof(view_keys) / sizeof(view_keys[0]);

const struct view_key *view_key_lookup(const char *key, size_t len)
{
	for (size_t i = 0; i < view_key_count; i++)
		if (strlen(view_keys[i].name) == len &&
		    !memcmp(view_keys[i].name, key, len))
			return &view_keys[i];
	return NULL;
}

/* view_json.c keeps the lists it wrote as bits of a 64-bit word. */
_Static_assert(sizeof(view_keys) / sizeof(view_keys[0]) <= 64,
	       "more than 64 keys: widen view_json's done_lists");
