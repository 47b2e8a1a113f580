// SPDX-License-Identifier: GPL-2.0
/*
 * audit: print the findings of a plan (plan_findings()): missing and extra
 * pins, owner, mode and ACL changed by hand, a target replaced or gone, a
 * program that is not ours or not this version's, and granted readers who
 * cannot reach the pins. Changes nothing. Exit 0 clean, 1 drift, 2 error.
 */
#include <stdio.h>
#include <json-c/json.h>
#include "commands.h"
#include "pin_json.h"
#include "plan.h"

#define DEFAULT_POLICY	"/etc/fsiter/policy.conf"

struct audit {
	json_object *findings;
	bool json;
};

static void finding(void *arg, const char *kind, const char *pin,
		    const struct loc *loc, const char *detail)
{
	char source[PATH_MAX + 16] = "";
	json_object *o = json_object_new_object();
	struct audit *a = arg;

	if (loc)
		snprintf(source, sizeof(source), "%s:%u", loc->file, loc->line);
	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "pin", json_object_new_string(pin));
	json_object_object_add(o, "detail", json_object_new_string(detail));
	json_object_object_add(o, "source", loc ? json_object_new_string(source) : NULL);
	json_object_array_add(a->findings, o);
	if (a->json)
		return;
	printf("%-16s %s: %s", kind, pin, detail);
	if (loc)
		printf(" (%s)", source);
	printf("\n");
}

static void print_json(struct plan *pl, json_object *findings, size_t count)
{
	json_object *root = json_object_new_object();
	int unreadable;	/* each such pin is a finding already */

	json_object_object_add(root, "version", json_object_new_int(1));
	json_object_object_add(root, "policy", json_object_new_string(pl->policy_path));
	json_object_object_add(root, "pin_dir", json_object_new_string(pl->pin_dir));
	json_object_object_add(root, "clean", json_object_new_boolean(count == 0));
	json_object_object_add(root, "findings", json_object_get(findings));
	json_object_object_add(root, "pins", pin_json_all(&pl->dir, &unreadable));
	printf("%s\n", json_object_to_json_string_ext(root,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

static int audit(const char *policy_path, bool json)
{
	struct audit a = { json_object_new_array(), json };
	struct plan pl;
	size_t count = 0, n = 0;
	int ret;

	ret = plan_build(&pl, policy_path, PLAN_AUDIT, false);
	if (ret)
		goto out;
	count = plan_findings(&pl, finding, &a);
	for (size_t i = 0; i < pl.nr_items; i++)
		n += pl.items[i].action != PLAN_SKIP;
	if (json)
		print_json(&pl, a.findings, count);
	else if (!count)
		printf("clean: %zu pin%s match%s %s\n", n, n == 1 ? "" : "s",
		       n == 1 ? "es" : "", policy_path);
	else
		printf("%zu finding%s: the pins differ from %s\n", count,
		       count == 1 ? "" : "s", policy_path);
out:
	json_object_put(a.findings);
	plan_free(&pl);
	if (ret)
		return EXIT_USAGE;	/* 2: could not audit */
	return count ? EXIT_FAIL : EXIT_OK;
}

static const struct cmd_option opts[] = {
	{ "json", 'j', NULL, "print JSON (docs/output.md)", true },
	{ NULL }
};

static int run(int argc, char **argv)
{
	bool json = false;
	int c;

	while ((c = cmd_getopt(&cmd_audit, argc, argv)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		default:
			return cmd_exit(&cmd_audit, c);
		}
	}
	if (argc - optind > 1)
		return usage_error(&cmd_audit, "expected at most one POLICY file");
	return audit(optind < argc ? argv[optind] : DEFAULT_POLICY, json);
}

const struct command cmd_audit = {
	"audit", run, opts, "[POLICY]",
	"Report how the pins differ from the policy (default " DEFAULT_POLICY ").",
};
