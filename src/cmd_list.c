// SPDX-License-Identifier: GPL-2.0
/*
 * list: one line per pin: name, view, target (device and inode, or mount id
 * and mount point), the path it was made for, owner, group, mode, who can
 * read it ("!" marks a reader who cannot reach it), program id and tag.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <libsmartcols.h>
#include "commands.h"
#include "diag.h"
#include "engine.h"
#include "pin_json.h"
#include "policy.h"
#include "target_kind.h"

/*
 * The columns, in the default order: list -o picks and orders them, by
 * name, as findmnt -o does (fsiter-pin(8) says what each holds).
 */
enum col { COL_NAME, COL_VIEW, COL_TARGET, COL_PATH, COL_OWNER, COL_GROUP, COL_MODE,
	   COL_READERS, COL_PROG, COL_TAG, COL_COUNT };

static const struct {
	const char *name;
	double width;		/* libsmartcols' width hint */
	int json_type;		/* SCOLS_JSON_* for -J */
} cols[COL_COUNT] = {
	[COL_NAME] = { "NAME", 0.1, SCOLS_JSON_STRING },
	[COL_VIEW] = { "VIEW", 0.1, SCOLS_JSON_STRING },
	[COL_TARGET] = { "TARGET", 0.2, SCOLS_JSON_STRING },
	[COL_PATH] = { "PATH", 0.2, SCOLS_JSON_STRING },
	[COL_OWNER] = { "OWNER", 0.05, SCOLS_JSON_STRING },
	[COL_GROUP] = { "GROUP", 0.05, SCOLS_JSON_STRING },
	[COL_MODE] = { "MODE", 0.05, SCOLS_JSON_STRING },
	[COL_READERS] = { "READERS", 0.2, SCOLS_JSON_STRING },
	[COL_PROG] = { "PROG", 0.05, SCOLS_JSON_NUMBER },
	[COL_TAG] = { "TAG", 0.1, SCOLS_JSON_STRING },
};

struct table_opts {
	enum col order[COL_COUNT];
	size_t ncols;
	bool raw, noheadings, json;
};

/* "NAME,VIEW": the columns of -o, into T. 0, or -EINVAL naming the bad one. */
static int parse_columns(const char *list, struct table_opts *t)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	t->ncols = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t c;

		for (c = 0; c < COL_COUNT && strcasecmp(cols[c].name, tok); c++)
			;
		if (c == COL_COUNT || t->ncols == COL_COUNT) {
			usage_error(&cmd_list, "unknown column '%s' (%s --help lists them)",
				    ESC(tok), "list");
			ret = -EINVAL;
			break;
		}
		t->order[t->ncols++] = c;
	}
	if (!ret && !t->ncols) {
		usage_error(&cmd_list, "--output: no column");
		ret = -EINVAL;
	}
	free(copy);
	return ret;
}

/* The record's member that a plain column shows. */
static const char *const cell_keys[COL_COUNT] = {
	[COL_NAME] = "name", [COL_PATH] = "path", [COL_OWNER] = "owner",
	[COL_GROUP] = "group", [COL_MODE] = "mode", [COL_PROG] = "prog_id",
	[COL_TAG] = "tag",
};

/*
 * Column C of pin O into BUF, for a table that is JSON if T_JSON. Names
 * and paths are echoed input: escaped.
 */
static const char *cell(json_object *o, enum col c, bool t_json, char *buf, size_t size)
{
	json_object *t = NULL, *readers = NULL;
	const char *v;
	size_t n = 0;

	switch (c) {
	case COL_VIEW:
		v = pin_json_get(o, "view");
		/* NAME:all for expose-cache, NAME:totals for expose-totals. */
		snprintf(buf, size, "%s%s%s", strcmp(v, "-") ? v :
			 strcmp(pin_json_get(o, "tag"), "-") ? "(foreign)" : "(not a view)",
			 json_object_get_boolean(json_object_object_get(o, "expose_cache")) ?
			 ":all" : "",
			 json_object_get_boolean(json_object_object_get(o, "expose_totals")) ?
			 ":totals" : "");
		return buf;
	case COL_TARGET:
		snprintf(buf, size, "-");
		json_object_object_get_ex(o, "target", &t);
		if (t) {
			char target[PATH_MAX + 64];

			target_kind_named(pin_json_get(t, "type"))->brief(target, sizeof(target), t);
			snprintf(buf, size, "%s%s", ESC(target),
				 json_object_get_boolean(json_object_object_get(t, "gone")) ?
				 " (gone)" : "");
		}
		return buf;
	case COL_READERS:
		/* Every reader, however many: BUF is sized for them. */
		json_object_object_get_ex(o, "readers", &readers);
		buf[0] = '\0';
		for (size_t i = 0; readers && i < json_object_array_length(readers) && n < size; i++)
			n += snprintf(buf + n, size - n, "%s%s", i ? "," : "",
				      ESC(json_object_get_string(json_object_array_get_idx(readers, i))));
		return *buf ? buf : "-";
	default:
		break;
	}
	v = pin_json_get(o, cell_keys[c]);
	/* No program: no number, which -J prints as null. */
	if (c == COL_PROG && !strcmp(v, "-"))
		return t_json ? "" : v;
	snprintf(buf, size, "%s", ESC(v));
	return buf;
}

/* The readers column's room: every reader of the pin, each escaped. */
static size_t cell_size(json_object *o)
{
	json_object *readers = NULL;
	size_t n = PATH_MAX + 256;

	json_object_object_get_ex(o, "readers", &readers);
	for (size_t i = 0; readers && i < json_object_array_length(readers); i++)
		n += 4 * strlen(json_object_get_string(json_object_array_get_idx(readers, i))) + 2;
	return n;
}

static int print_table(json_object *pins, const struct table_opts *t)
{
	struct libscols_table *tb = scols_new_table();
	char *buf = NULL;
	int ret = -ENOMEM;

	if (!tb)
		return -ENOMEM;
	scols_table_enable_raw(tb, t->raw);
	scols_table_enable_noheadings(tb, t->noheadings);
	scols_table_enable_json(tb, t->json);
	if (t->json && scols_table_set_name(tb, "pins"))
		goto out;
	for (size_t i = 0; i < t->ncols; i++) {
		struct libscols_column *cl =
			scols_table_new_column(tb, cols[t->order[i]].name, cols[t->order[i]].width, 0);

		if (!cl)
			goto out;
		scols_column_set_json_type(cl, cols[t->order[i]].json_type);
	}
	for (size_t p = 0; p < json_object_array_length(pins); p++) {
		json_object *o = json_object_array_get_idx(pins, p);
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		size_t size = cell_size(o);

		free(buf);
		buf = malloc(size);
		if (!ln || !buf)
			goto out;
		for (size_t i = 0; i < t->ncols; i++)
			if (scols_line_set_data(ln, i, cell(o, t->order[i], t->json, buf, size)))
				goto out;
	}
	ret = scols_print_table(tb) ? -EIO : 0;
out:
	free(buf);
	scols_unref_table(tb);
	return ret;
}

static int list(const char *dir, bool json, const struct table_opts *t)
{
	json_object *pins = NULL;
	bool empty = false;
	int ret;

	/* What could be read is printed; a pin that could not fails list. */
	ret = engine_list(dir, &pins, &empty);
	if (!pins)
		return ret;
	if (empty && !json && !t->json)
		info("%s: nothing is pinned", dir);
	if (json) {
		printf("%s\n", json_object_to_json_string_ext(pins,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else if (json_object_array_length(pins) || t->json) {
		int r = print_table(pins, t);

		if (r < 0) {
			err("list: %s", strerror(-r));
			ret = ret ?: r;
		}
	}
	json_object_put(pins);
	return ret;
}

static const struct cmd_option opts[] = {
	{ "json", 'j', NULL, "print every pin's record as JSON (docs/output.md)", true },
	{ "output", 'o', "LIST", "the columns to print, comma-separated (above)", true },
	{ "noheadings", 'n', NULL, "no header line", true },
	{ "raw", 'r', NULL, "raw output: columns one space apart, not aligned", true },
	{ "table-json", 'J', NULL, "the table as JSON, as findmnt -J (with -o)", true },
	{ "pin-dir", 'd', "DIR", "the pin directory (default " POLICY_DEFAULT_PIN_DIR ")",
	  true },
	{ NULL }
};

static int run(int argc, char **argv)
{
	const char *dir = POLICY_DEFAULT_PIN_DIR, *columns = NULL;
	struct table_opts t = { .ncols = COL_COUNT };
	bool json = false;
	int c;

	for (size_t i = 0; i < COL_COUNT; i++)
		t.order[i] = i;

	while ((c = cmd_getopt(&cmd_list, argc, argv)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'o':
			columns = optarg;
			break;
		case 'n':
			t.noheadings = true;
			break;
		case 'r':
			t.raw = true;
			break;
		case 'J':
			t.json = true;
			break;
		default:
			return cmd_exit(&cmd_list, c);
		}
	}
	if (optind != argc)
		return usage_error(&cmd_list, "unexpected argument '%s'", argv[optind]);
	if (json && (columns || t.raw || t.noheadings || t.json))
		return usage_error(&cmd_list, "--json prints every record whole: "
				   "no --output, --raw, --noheadings or --table-json with it");
	if (columns && parse_columns(columns, &t))
		return EXIT_USAGE;
	return list(dir, json, &t) ? EXIT_FAIL : EXIT_OK;
}

const struct command cmd_list = {
	"list", run, opts, NULL,
	"Describe every pin of the pin directory, a line each. The columns (--output): NAME, "
	"VIEW, TARGET, PATH, OWNER, GROUP, MODE, READERS, PROG, TAG.",
};
