// SPDX-License-Identifier: GPL-2.0
/*
 * fsiter-pin: pin BPF filesystem views in bpffs as a policy says, so that
 * unprivileged users can read them. See fsiter-pin(8).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "commands.h"
#include "diag.h"

#ifndef FSITER_VERSION
#define FSITER_VERSION "unknown"
#endif

const struct command *const commands[] = {
	&cmd_apply, &cmd_watch, &cmd_list, &cmd_audit, &cmd_remove, NULL
};

static void usage(FILE *out)
{
	char synopsis[256];

	fprintf(out, "Usage:\n");
	for (const struct command *const *c = commands; *c; c++) {
		cmd_synopsis(*c, synopsis, sizeof(synopsis));
		fprintf(out, " %s [-v] %s\n", program_name, synopsis);
	}
	cmd_print_options(NULL, out);
	fprintf(out, "\nFor more details see fsiter-pin(8) and fsiter-policy.conf(5).\n");
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	/* Failures are reported by us; libbpf's detail (the verifier's
	 * log) is for -v.
	 */
	if (!diag_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	int c;

	/* Global options come before the command: stop at the first word. */
	while ((c = getopt_long(argc, argv, "+vhV", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			diag_verbose = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("%s %s\n", program_name, FSITER_VERSION);
			return EXIT_OK;
		default:
			fprintf(stderr, "Try '%s --help' for more information.\n",
				program_name);
			return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	libbpf_set_print(libbpf_print);
	for (const struct command *const *cmd = commands; *cmd; cmd++) {
		if (strcmp((*cmd)->name, argv[optind]))
			continue;
		argc -= optind;
		argv += optind;
		optind = 0;	/* getopt starts over for the command */
		return (*cmd)->run(argc, argv);
	}
	fprintf(stderr, "%s: unknown command '%s'\n", program_name, argv[optind]);
	fprintf(stderr, "Try '%s --help' for more information.\n", program_name);
	return EXIT_USAGE;
}
