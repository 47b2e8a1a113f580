// SPDX-License-Identifier: GPL-2.0
/*
 * watch: apply, then apply again each time the mount table changes: entries
 * on filesystems that are mounted later (nofail) get their pins, and lose
 * them when the filesystem goes. With --timeout, stop once the mount table
 * has been quiet for SEC seconds (udev starts it for a device that comes
 * or goes); without, run until killed. Each apply is atomic, so killing
 * watch at any time is safe.
 */
#include <errno.h>
#include <stdlib.h>
#include "commands.h"
#include "engine.h"

static const struct cmd_option opts[] = {
	{ "timeout", 't', "SEC", "stop after SEC seconds without a change", true },
	{ NULL }
};

static int run(int argc, char **argv)
{
	long timeout = -1;
	char *end;
	int c;

	while ((c = cmd_getopt(&cmd_watch, argc, argv)) != -1) {
		switch (c) {
		case 't':
			errno = 0;
			timeout = strtol(optarg, &end, 10);
			if (errno || *end || timeout < 0 || timeout > 86400)
				return usage_error(&cmd_watch, "--timeout '%s': expected seconds, 0 to 86400",
						   optarg);
			break;
		default:
			return cmd_exit(&cmd_watch, c);
		}
	}
	if (optind != argc - 1)
		return usage_error(&cmd_watch, "expected one POLICY file");
	if (cmd_need_views(&cmd_watch))
		return EXIT_FAIL;
	return apply_exit(engine_watch(argv[optind], timeout));
}

const struct command cmd_watch = {
	"watch", run, opts, "POLICY",
	"Apply the policy, then again whenever the mount table changes.",
};
