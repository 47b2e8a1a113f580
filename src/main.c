// SPDX-License-Identifier: GPL-2.0
/*
 * fsiter-pin: pin BPF filesystem views in bpffs as a policy says, so that
 * unprivileged users can read them. See fsiter-pin(8).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/libbpf.h>
#include "commands.h"
#include "diag.h"
#include "fault.h"
#include "neuter.h"
#include "revoke.h"
#include "views.h"

#ifndef FSITER_VERSION
#define FSITER_VERSION "unknown"
#endif

const struct command *const commands[] = {
	&cmd_apply, &cmd_watch, &cmd_list, &cmd_audit, &cmd_remove, &cmd_check,
	&cmd_cat_config, &cmd_show, NULL
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
	static const int levels[] = {
		[LIBBPF_WARN] = DIAG_WARNING, [LIBBPF_INFO] = DIAG_INFO,
		[LIBBPF_DEBUG] = DIAG_DEBUG,
	};
	char *text;
	int n;

	if (!diag_verbose)
		return 0;
	n = vasprintf(&text, fmt, ap);
	if (n < 0)
		return n;
	diag_write(level <= LIBBPF_DEBUG ? levels[level] : DIAG_DEBUG, text);
	free(text);
	return n;
}

/*
 * util-linux's close_stdout(), at exit: output that could not be written
 * (a full disk, >/dev/full) is an error and exit status 1, not a silent
 * success. A closed pipe (EPIPE) is the reader's choice.
 */
static void close_stdout(void)
{
	bool failed = ferror(stdout);
	int e = 0;

	if (fflush(stdout)) {
		failed = true;
		e = errno;
	}
	if (fclose(stdout) && !failed) {
		failed = true;
		e = errno;
	}
	if (failed && e != EPIPE) {
		err("write error%s%s", e ? ": " : "", e ? strerror(e) : "");
		_exit(EXIT_FAIL);
	}
	if (fclose(stderr) && errno != EBADF)
		_exit(EXIT_FAIL);
}

/*
 * apply holds one O_PATH fd per entry until the exchange: raise the soft
 * limit on open files to the hard one, as systemd does for itself (its
 * services get a soft limit of 1024 and a hard one of 524288).
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
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

	atexit(close_stdout);
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
			printf("%s %s", program_name, FSITER_VERSION);
			if (views_missing)
				printf(" (without the views: %s)", views_missing);
			printf("%s\n", fault_injection ? " (a test build: obeys FSITER_FAULT)" : "");
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
	raise_nofile();
	/* Whatever revokes a pin first neuters its link. */
	revoke_set_neuter(link_neuter);
	for (const struct command *const *cmd = commands; *cmd; cmd++) {
		if (strcmp((*cmd)->name, argv[optind]))
			continue;
		argc -= optind;
		argv += optind;
		optind = 0;	/* getopt starts over for the command */
		return (*cmd)->run(argc, argv);
	}
	err("unknown command '%s'", ESC(argv[optind]));
	fprintf(stderr, "Try '%s --help' for more information.\n", program_name);
	return EXIT_USAGE;
}
