// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "view_table.h"

/* As bpf_prog_info.name keeps them: BPF_OBJ_NAME_LEN - 1 characters. */
#define PROG_NAME_LEN	15

#define VIEW(id, name, target, flags, features, prog, summary) \
	{ VIEW_##id, name, target, flags, features, prog, summary },
const struct view_desc view_table[VIEW_COUNT] = {
#include "views.def"
};
#undef VIEW

const struct view_desc *view_lookup(const char *name)
{
	for (int i = 0; i < VIEW_COUNT; i++)
		if (!strcmp(view_table[i].name, name))
			return &view_table[i];
	return NULL;
}

/* "a, b, c": the names of the views with all of FLAGS and, unless it is
 * TARGET_KINDS, on TARGET, into BUF.
 */
static const char *names_of(char *buf, size_t size, unsigned int flags,
			    enum view_target target)
{
	size_t n = 0;

	for (int i = 0; i < VIEW_COUNT; i++)
		if ((view_table[i].flags & flags) == flags &&
		    (target == TARGET_KINDS || view_table[i].target == target))
			n += snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
				      view_table[i].name);
	return buf;
}

static const char *names_with(char *buf, size_t size, unsigned int flags)
{
	return names_of(buf, size, flags, TARGET_KINDS);
}

const char *view_names(void)
{
	static char names[VIEW_COUNT * 32];

	return *names ? names : names_with(names, sizeof(names), 0);
}

const char *view_names_showing_cache(void)
{
	static char names[VIEW_COUNT * 32];

	return *names ? names : names_with(names, sizeof(names), VIEW_SHOWS_CACHE);
}

const char *view_names_taking_top(void)
{
	static char names[VIEW_COUNT * 32];

	return *names ? names : names_with(names, sizeof(names), VIEW_TAKES_TOP);
}

const char *view_names_whole_fs(void)
{
	static char names[VIEW_COUNT * 32];

	return *names ? names : names_of(names, sizeof(names), 0, TARGET_SB);
}

const struct view_desc *view_by_prog_name(const char *prog_name)
{
	for (int i = 0; i < VIEW_COUNT; i++)
		if (!strncmp(view_table[i].prog, prog_name, PROG_NAME_LEN))
			return &view_table[i];
	return NULL;
}
