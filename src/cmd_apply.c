// SPDX-License-Identifier: GPL-2.0
/*
 * apply: build the plan (plan.h) and commit it: readers see the old pins
 * until the switch, one rename; a failure before it removes the new
 * generation. With --dry-run, print the plan and change nothing.
 */
#include "commands.h"
#include "plan.h"

int apply_exit(int ret)
{
	return ret < 0 ? EXIT_FAIL : ret == PLAN_PARTIAL ? EXIT_PARTIAL : EXIT_OK;
}

static const struct cmd_option opts[] = {
	{ "dry-run", 'n', NULL, "say what would change; change nothing", true },
	{ "force", 'f', NULL, "replace a pin directory that holds other objects", true },
	{ NULL }
};

static int run(int argc, char **argv)
{
	bool dry_run = false, force = false;
	int c;

	while ((c = cmd_getopt(&cmd_apply, argc, argv)) != -1) {
		switch (c) {
		case 'n':
			dry_run = true;
			break;
		case 'f':
			force = true;
			break;
		default:
			return cmd_exit(&cmd_apply, c);
		}
	}
	if (optind != argc - 1)
		return usage_error(&cmd_apply, "expected one POLICY file");
	if (cmd_need_views(&cmd_apply))
		return EXIT_FAIL;
	return apply_exit(plan_apply(argv[optind], dry_run, force));
}

const struct command cmd_apply = {
	"apply", run, opts, "POLICY",
	"Make the pins match the policy, all at once.",
};
