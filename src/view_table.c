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

const char *view_names(void)
{
	static char names[VIEW_COUNT * 32];
	size_t n = 0;

	if (*names)
		return names;
	for (int i = 0; i < VIEW_COUNT; i++)
		n += snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
			      view_table[i].name);
	return names;
}

const struct view_desc *view_by_prog_name(const char *prog_name)
{
	for (int i = 0; i < VIEW_COUNT; i++)
		if (!strncmp(view_table[i].prog, prog_name, PROG_NAME_LEN))
			return &view_table[i];
	return NULL;
}
