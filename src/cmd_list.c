// SPDX-License-Identifier: GPL-2.0
/*
 * list: one line per pin: name, view, target (device and inode, or mount id
 * and mount point), the path it was made for, owner, group, mode, who can
 * read it ("!" marks a reader who cannot reach it), program id and tag.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "diag.h"
#include "engine.h"
#include "pin_json.h"
#include "policy.h"
#include "target_kind.h"

#define ROW	"%-20s %-11s %-22s %-28s %-18s %-5s %-24s %-6s %s\n"

static void print_pin(json_object *o)
{
	json_object *t = NULL, *readers = NULL;
	char view[48], target[PATH_MAX + 64] = "-", owner[160], *who = NULL;
	const char *name = pin_json_get(o, "view");
	size_t who_len = 0;
	FILE *w;

	/* NAME:all for expose-cache, NAME:totals for expose-totals. */
	snprintf(view, sizeof(view), "%s%s%s", strcmp(name, "-") ? name :
		 strcmp(pin_json_get(o, "tag"), "-") ? "(foreign)" : "(not a view)",
		 json_object_get_boolean(json_object_object_get(o, "expose_cache")) ?
		 ":all" : "",
		 json_object_get_boolean(json_object_object_get(o, "expose_totals")) ?
		 ":totals" : "");
	json_object_object_get_ex(o, "target", &t);
	if (t) {
		target_kind_named(pin_json_get(t, "type"))->brief(target, sizeof(target), t);
		if (json_object_get_boolean(json_object_object_get(t, "gone")))
			strncat(target, " (gone)", sizeof(target) - strlen(target) - 1);
	}
	snprintf(owner, sizeof(owner), "%s:%s", pin_json_get(o, "owner"),
		 pin_json_get(o, "group"));
	/* Every reader, however many. */
	json_object_object_get_ex(o, "readers", &readers);
	w = open_memstream(&who, &who_len);
	for (size_t i = 0; w && readers && i < json_object_array_length(readers); i++)
		fprintf(w, "%s%s", i ? "," : "",
			json_object_get_string(json_object_array_get_idx(readers, i)));
	if (w)
		fclose(w);
	/* Names, paths and mount points are echoed input: escaped. User and
	 * group names, however many, only through outf()'s guard.
	 */
	outf(ROW, ESC(pin_json_get(o, "name")), view, ESC(target),
	     ESC(pin_json_get(o, "path")), owner, pin_json_get(o, "mode"),
	     who && *who ? who : "-", pin_json_get(o, "prog_id"),
	     pin_json_get(o, "tag"));
	free(who);
}

static int list(const char *dir, bool json)
{
	json_object *pins = NULL;
	bool empty = false;
	int ret;

	/* What could be read is printed; a pin that could not fails list. */
	ret = engine_list(dir, &pins, &empty);
	if (!pins)
		return ret;
	if (empty && !json)
		info("%s: nothing is pinned", dir);
	if (json) {
		printf("%s\n", json_object_to_json_string_ext(pins,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else if (json_object_array_length(pins)) {
		outf(ROW, "NAME", "VIEW", "TARGET", "PATH", "OWNER:GROUP", "MODE",
		     "READERS", "PROG", "TAG");
		for (size_t i = 0; i < json_object_array_length(pins); i++)
			print_pin(json_object_array_get_idx(pins, i));
	}
	json_object_put(pins);
	return ret;
}

static const struct cmd_option opts[] = {
	{ "json", 'j', NULL, "print JSON (docs/output.md)", true },
	{ "pin-dir", 'd', "DIR", "the pin directory (default " POLICY_DEFAULT_PIN_DIR ")",
	  true },
	{ NULL }
};

static int run(int argc, char **argv)
{
	const char *dir = POLICY_DEFAULT_PIN_DIR;
	bool json = false;
	int c;

	while ((c = cmd_getopt(&cmd_list, argc, argv)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'j':
			json = true;
			break;
		default:
			return cmd_exit(&cmd_list, c);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_list, "unexpected argument '%s'", argv[optind]);
	return list(dir, json) ? EXIT_FAIL : EXIT_OK;
}

const struct command cmd_list = {
	"list", run, opts, NULL,
	"Describe every pin of the pin directory.",
};
