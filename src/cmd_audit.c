// SPDX-License-Identifier: GPL-2.0
/*
 * audit: print the findings of a plan (plan_findings()): missing and extra
 * pins, owner, mode and ACL changed by hand, a target replaced or gone, a
 * program that is not ours or not this version's, granted readers who
 * cannot reach the pins, search permission above the pins that no reader
 * needs, and paths that gained hard links or now cross a directory a user
 * may change. Changes nothing. Exit 0 clean, 1 drift, 2 error. A policy
 * file that does not exist but that a manifest names, or while any pin is
 * orphaned, is audited as one with no pins (plan_policy_gone()): its
 * orphans are the findings.
 * As text, JSON or Prometheus metrics (metrics.h), to stdout or, with
 * --output, to a file replaced at once (outfile.h).
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "apply_state.h"
#include "commands.h"
#include "diag.h"
#include "metrics.h"
#include "outfile.h"
#include "pin_json.h"
#include "plan.h"

#define DEFAULT_POLICY	"/etc/fsiter/policy.conf"

enum format { FORMAT_TEXT, FORMAT_JSON, FORMAT_PROMETHEUS };

struct audit {
	json_object *findings;
	bool json;
};

/* The metrics, also when the plan could not be built (audit_success 0). */
static size_t print_metrics(const char *policy_path, struct plan *pl, bool built)
{
	struct apply_state last;
	json_object *pins;
	int unreadable = 0;	/* a pin that cannot be read has no readers to count */
	size_t count;

	/* A policy that is gone has no pin directory: its orphans only. */
	if (built && pl->policy_gone)
		pins = json_object_new_array();
	else
		pins = built ? pin_json_all(&pl->dir, &unreadable) : NULL;

	apply_state_read(policy_path, &last);
	count = metrics_print(stdout, policy_path, built ? pl : NULL, pins, &last);
	json_object_put(pins);
	return count;
}

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
	/* The pin's name, the paths in the detail and the policy file are
	 * echoed input: escaped, as in messages.
	 */
	outf("%-16s %s: %s", kind, ESC(pin), ESC(detail));
	if (loc)
		outf(" (%s:%u)", ESC(loc->file), loc->line);
	outf("\n");
}

static void print_json(struct plan *pl, json_object *findings, size_t count)
{
	json_object *root = json_object_new_object();
	int unreadable;	/* each such pin is a finding already */

	json_object_object_add(root, "version", json_object_new_int(1));
	json_object_object_add(root, "policy", json_object_new_string(pl->policy_path));
	json_object_object_add(root, "pin_dir", json_object_new_string(pl->pin_dir));
	json_object_object_add(root, "clean", json_object_new_boolean(count == 0));
	json_object_object_add(root, "policy_exists", json_object_new_boolean(!pl->policy_gone));
	json_object_object_add(root, "findings", json_object_get(findings));
	json_object_object_add(root, "pins", pl->policy_gone ? json_object_new_array() :
				pin_json_all(&pl->dir, &unreadable));
	printf("%s\n", json_object_to_json_string_ext(root,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

static int audit(const char *policy_path, enum format format, const char *output,
		 gid_t readers)
{
	struct audit a = { json_object_new_array(), format == FORMAT_JSON };
	bool json = format == FORMAT_JSON;
	struct outfile of;
	struct plan pl;
	size_t count = 0, n = 0;
	int ret;

	if (output && outfile_begin(&of, output)) {
		json_object_put(a.findings);
		return EXIT_USAGE;
	}
	if (output)
		of.readers = readers;
	ret = plan_build(&pl, policy_path, PLAN_AUDIT, false);
	if (format == FORMAT_PROMETHEUS) {
		count = print_metrics(policy_path, &pl, !ret);
		goto out;
	}
	if (ret)
		goto out;
	count = plan_findings(&pl, finding, &a);
	for (size_t i = 0; i < pl.nr_items; i++)
		n += pl.items[i].action != PLAN_SKIP;
	if (json)
		print_json(&pl, a.findings, count);
	else if (pl.policy_gone && !count)
		outf("clean: %s does not exist, and no pin it made is left\n",
		     ESC(policy_path));
	else if (pl.policy_gone)
		outf("%zu finding%s: %s does not exist, and deleting a policy revokes nothing\n",
		     count, count == 1 ? "" : "s", ESC(policy_path));
	else if (!count)
		outf("clean: %zu pin%s match%s %s\n", n, n == 1 ? "" : "s",
		     n == 1 ? "es" : "", ESC(policy_path));
	else
		outf("%zu finding%s: the pins differ from %s\n", count,
		     count == 1 ? "" : "s", ESC(policy_path));
out:
	json_object_put(a.findings);
	plan_free(&pl);
	/* Metrics are written even when the audit failed: they say so. */
	if (output && outfile_end(&of, !ret || format == FORMAT_PROMETHEUS))
		ret = ret ?: -EIO;
	if (ret)
		return EXIT_USAGE;	/* 2: could not audit */
	return count ? EXIT_FAIL : EXIT_OK;
}

static const struct cmd_option opts[] = {
	{ "json", 'j', NULL, "print JSON (docs/output.md); --format=json", true },
	{ "format", 'f', "FORMAT", "text, json or prometheus (docs/output.md)", true },
	{ "output", 'o', "FILE", "write to FILE, replaced at once (temp file, fsync, rename), mode 0640",
	  true },
	{ "output-group", 'g', "GROUP", "let GROUP read FILE too (an ACL entry)", true },
	{ NULL }
};

static int run(int argc, char **argv)
{
	static const char *const names[] = { "text", "json", "prometheus" };
	enum format format = FORMAT_TEXT;
	const char *output = NULL;
	gid_t readers = (gid_t)-1;
	struct group *gr;
	unsigned long num;
	char *end = NULL;
	size_t i;
	int c;

	while ((c = cmd_getopt(&cmd_audit, argc, argv)) != -1) {
		switch (c) {
		case 'j':
			format = FORMAT_JSON;
			break;
		case 'f':
			for (i = 0; i < 3 && strcmp(optarg, names[i]); i++)
				;
			if (i == 3)
				return usage_error(&cmd_audit,
						   "--format '%s': expected text, json or prometheus",
						   ESC(optarg));
			format = i;
			break;
		case 'o':
			output = optarg;
			break;
		case 'g':
			gr = getgrnam(optarg);
			errno = 0;
			num = gr || *optarg == '-' ? 0 : strtoul(optarg, &end, 10);
			readers = gr ? gr->gr_gid : (gid_t)num;
			if ((!gr && (*optarg == '-' || !*optarg || *end || errno ||
				     num >= (gid_t)-1)) || readers == (gid_t)-1)
				return usage_error(&cmd_audit, "--output-group '%s': no such group",
						   ESC(optarg));
			break;
		default:
			return cmd_exit(&cmd_audit, c);
		}
	}
	if (argc - optind > 1)
		return usage_error(&cmd_audit, "expected at most one POLICY file");
	if (readers != (gid_t)-1 && !output)
		return usage_error(&cmd_audit, "--output-group needs --output");
	return audit(optind < argc ? argv[optind] : DEFAULT_POLICY, format, output, readers);
}

const struct command cmd_audit = {
	"audit", run, opts, "[POLICY]",
	"Report how the pins differ from the policy (default " DEFAULT_POLICY ").",
};
