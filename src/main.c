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

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} commands[] = {
	{ "apply", cmd_apply, "apply [--dry-run] POLICY" },
	{ "watch", cmd_watch, "watch [--timeout SEC] POLICY" },
	{ "list", cmd_list, "list [--json] [--pin-dir DIR]" },
	{ "audit", cmd_audit, "audit [--json] [POLICY]" },
	{ "remove", cmd_remove, "remove [--pin-dir DIR] NAME... | --all" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "Usage:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(out, " %s [-v] %s\n", program_name, commands[i].usage);
	fprintf(out, "\nOptions:\n"
		" -v, --verbose   say more, including libbpf's messages\n"
		" -h, --help      display this help\n"
		" -V, --version   display version\n"
		"\nFor more details see fsiter-pin(8) and fsiter-policy.conf(5).\n");
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		fprintf(stderr, "%s: %s: ", program_name, cmd);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, cmd))
			fprintf(stderr, "Usage: %s %s\n", program_name, commands[i].usage);
	fprintf(stderr, "Try '%s --help' for more information.\n", program_name);
	return EXIT_USAGE;
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
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, argv[optind]))
			return commands[i].run(argc - optind, argv + optind);
	fprintf(stderr, "%s: unknown command '%s'\n", program_name, argv[optind]);
	fprintf(stderr, "Try '%s --help' for more information.\n", program_name);
	return EXIT_USAGE;
}
