// SPDX-License-Identifier: GPL-2.0
/*
 * remove: unpin from the current generation, under the apply lock. Every
 * NAME is checked first: an unknown name, or an object that is not a pin
 * (without --force), fails the command before anything is removed.
 */
#include "commands.h"
#include "engine.h"
#include "policy.h"
#include "policy_fields.h"

static const struct cmd_option opts[] = {
	{ "pin-dir", 'd', "DIR", "the pin directory (default " POLICY_DEFAULT_PIN_DIR ")",
	  true },
	{ "all", 'a', NULL, "remove every pin", false },
	{ "force", 'f', NULL, "remove objects that are not pins too", true },
	{ NULL }
};

static int run(int argc, char **argv)
{
	const char *dir = POLICY_DEFAULT_PIN_DIR;
	bool all = false, force = false;
	int c;

	while ((c = cmd_getopt(&cmd_remove, argc, argv)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'f':
			force = true;
			break;
		default:
			return cmd_exit(&cmd_remove, c);
		}
	}
	if (all == (optind < argc))
		return usage_error(&cmd_remove, all ? "--all takes no names" :
				   "expected NAME... or --all");
	for (int i = optind; i < argc; i++) {
		const char *why = policy_name_error(argv[i]);

		if (why)
			return usage_error(&cmd_remove, "name '%s': %s", argv[i], why);
	}
	return engine_remove(dir, argv + optind, argc - optind, all, force) ? EXIT_FAIL : EXIT_OK;
}

const struct command cmd_remove = {
	"remove", run, opts, "NAME... | --all",
	"Unpin the named pins, or all of them.",
};
