// SPDX-License-Identifier: GPL-2.0
/*
 * fsiter-pin remove [--pin-dir DIR] NAME... | --all
 *
 * Unpins from the current generation, under the apply lock. Every NAME is
 * checked first: an unknown name fails the command before anything is
 * removed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "diag.h"
#include "pins.h"
#include "policy.h"
#include "policy_fields.h"
#include "privs.h"

static int remove_pins(const char *dir, char **names, size_t n, bool all)
{
	struct pin_dir d;
	char **found = NULL;
	size_t nfound = 0;
	int ret;

	pindir_init(&d);
	ret = pindir_open(&d, dir, 0);
	if (ret == -ENOENT)
		err("%s: no such directory", dir);
	if (ret)
		return ret;
	ret = pindir_names(&d, &found, &nfound);
	if (ret) {
		err("%s: %s", dir, strerror(-ret));
		goto out;
	}
	if (all) {
		names = found;
		n = nfound;
	}
	for (size_t i = 0; i < n && !all; i++) {
		size_t j;

		for (j = 0; j < nfound && strcmp(found[j], names[i]); j++)
			;
		if (j == nfound) {
			err("%s: no pin '%s'", dir, names[i]);
			ret = -ENOENT;
		}
	}
	for (size_t i = 0; i < n && !ret; i++) {
		ret = pin_remove(&d, names[i]);
		if (ret) {
			err("%s/%s: %s", dir, names[i], strerror(-ret));
			break;
		}
		printf("removed %s\n", names[i]);
	}
out:
	pindir_free_names(found, nfound);
	pindir_close(&d);
	return ret;
}

int cmd_remove(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pin-dir", required_argument, NULL, 'd' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *dir = POLICY_DEFAULT_PIN_DIR;
	bool all = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:ah", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'h':
			printf("Usage: fsiter-pin remove [--pin-dir DIR] NAME... | --all\n");
			return EXIT_OK;
		default:
			return usage_error("remove", NULL);
		}
	}
	if (all == (optind < argc))
		return usage_error("remove", all ? "--all takes no names" :
				   "expected NAME... or --all");
	for (int i = optind; i < argc; i++) {
		const char *why = policy_name_error(argv[i]);

		if (why)
			return usage_error("remove", "name '%s': %s", argv[i], why);
	}
	if (privs_restrict(PRIVS_READ))
		return EXIT_FAIL;
	return remove_pins(dir, argv + optind, argc - optind, all) ? EXIT_FAIL : EXIT_OK;
}
