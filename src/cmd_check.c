// SPDX-License-Identifier: GPL-2.0
/*
 * check: would apply take this policy? Read and validate it as apply does,
 * with no capability, bpffs or our kernel (engine_check()), for a CI job,
 * a package's or Ansible's validation, or an administrator before apply.
 * Exit 0: apply would take every entry; 3: some would fail alone here;
 * 1: apply would refuse the policy.
 */
#include <stdlib.h>
#include "commands.h"
#include "diag.h"
#include "engine.h"
#include "policy.h"

static const struct cmd_option opts[] = {
	{ "no-resolve", 'R', NULL,
	  "ask NSS for no user or group, and check no path (a build host)", true },
	{ NULL }
};

static int run(int argc, char **argv)
{
	const char *policy = POLICY_DEFAULT_PATH;
	bool resolve = true;
	size_t failing;
	int c, n;

	while ((c = cmd_getopt(&cmd_check, argc, argv)) != -1) {
		switch (c) {
		case 'R':
			resolve = false;
			break;
		default:
			return cmd_exit(&cmd_check, c);
		}
	}
	if (optind < argc - 1)
		return usage_error(&cmd_check, "expected at most one POLICY file");
	if (optind == argc - 1)
		policy = argv[optind];
	n = engine_check(policy, resolve, &failing);
	if (n < 0) {
		err("%s: not valid: apply would refuse it and change nothing", ESC(policy));
		return EXIT_FAIL;
	}
	if (failing) {
		err("%s: %zu of %d entries would fail here; apply would apply the others",
		    ESC(policy), failing, n);
		return EXIT_PARTIAL;
	}
	outf("%s: valid, %d entr%s\n", ESC(policy), n, n == 1 ? "y" : "ies");
	return EXIT_OK;
}

const struct command cmd_check = {
	"check", run, opts, "[POLICY]",
	"Check a policy as apply would read it, changing nothing and needing no privilege.",
};
