// SPDX-License-Identifier: GPL-2.0
/*
 * fsiter-pin list [--json] [--pin-dir DIR]
 *
 * One line per pin: name, view, target (device and inode, or mount id and
 * mount point), the path it was made for, owner, group, mode, who can
 * read it ("!" marks a reader who cannot reach it), program id and tag.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "diag.h"
#include "pin_json.h"
#include "pins.h"
#include "policy.h"
#include "privs.h"

static const char *get(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return "-";
	return json_object_get_string(v);
}

static void print_pin(json_object *o)
{
	json_object *t = NULL, *readers = NULL;
	char view[48], target[PATH_MAX + 64], owner[160], who[4096] = "";

	snprintf(view, sizeof(view), "%s%s", strcmp(get(o, "view"), "-") ? get(o, "view") :
		 strcmp(get(o, "tag"), "-") ? "(foreign)" : "(not a view)",
		 json_object_get_boolean(json_object_object_get(o, "expose_cache")) ?
		 ":all" : "");
	json_object_object_get_ex(o, "target", &t);
	if (!t)
		snprintf(target, sizeof(target), "-");
	else if (!strcmp(get(t, "type"), "mount"))
		snprintf(target, sizeof(target), "mnt %s %s%s", get(t, "mnt_id"),
			 get(t, "mount_point"),
			 json_object_get_boolean(json_object_object_get(t, "gone")) ?
			 " (gone)" : "");
	else
		snprintf(target, sizeof(target), "%s ino %s%s", get(t, "dev"),
			 get(t, "ino"),
			 json_object_get_boolean(json_object_object_get(t, "gone")) ?
			 " (gone)" : "");
	snprintf(owner, sizeof(owner), "%s:%s", get(o, "owner"), get(o, "group"));
	json_object_object_get_ex(o, "readers", &readers);
	for (size_t i = 0; readers && i < json_object_array_length(readers); i++)
		snprintf(who + strlen(who), sizeof(who) - strlen(who), "%s%s",
			 i ? "," : "",
			 json_object_get_string(json_object_array_get_idx(readers, i)));
	printf("%-20s %-11s %-22s %-28s %-18s %-5s %-24s %-6s %s\n",
	       get(o, "name"), view, target, get(o, "path"), owner, get(o, "mode"),
	       *who ? who : "-", get(o, "prog_id"), get(o, "tag"));
}

static int list(const char *dir, bool json)
{
	json_object *pins = NULL;
	struct pin_dir d;
	int ret;

	pindir_init(&d);
	ret = pindir_open(&d, dir, 0);
	if (ret && ret != -ENOENT)
		return ret;
	if (ret == -ENOENT || d.cur_fd < 0) {
		if (!json)
			info("%s: nothing is pinned", dir);
	}
	pins = pin_json_all(&d);
	if (json) {
		printf("%s\n", json_object_to_json_string_ext(pins,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else if (json_object_array_length(pins)) {
		printf("%-20s %-11s %-22s %-28s %-18s %-5s %-24s %-6s %s\n", "NAME",
		       "VIEW", "TARGET", "PATH", "OWNER:GROUP", "MODE", "READERS",
		       "PROG", "TAG");
		for (size_t i = 0; i < json_object_array_length(pins); i++)
			print_pin(json_object_array_get_idx(pins, i));
	}
	json_object_put(pins);
	pindir_close(&d);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pin-dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *dir = POLICY_DEFAULT_PIN_DIR;
	bool json = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			printf("Usage: fsiter-pin list [--json] [--pin-dir DIR]\n");
			return EXIT_OK;
		default:
			return usage_error("list", NULL);
		}
	}
	if (optind != argc)
		return usage_error("list", "unexpected argument '%s'", argv[optind]);
	if (privs_restrict(PRIVS_READ))
		return EXIT_FAIL;
	return list(dir, json) ? EXIT_FAIL : EXIT_OK;
}
