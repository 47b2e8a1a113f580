/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands, as a table: each row holds the command's options and
 * arguments, from which cli.c makes the usage lines, each command's -h and
 * its getopt_long() options. Each command gets argc/argv from its name
 * on, and returns an exit code.
 */
#ifndef FSITER_COMMANDS_H
#define FSITER_COMMANDS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

/* Exit codes (fsiter-pin(8)). */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* apply, list, remove: failed; audit: drift */
#define EXIT_USAGE	2	/* also audit: could not audit */
#define EXIT_PARTIAL	3	/* apply, watch: some entries failed, the rest applied */

struct cmd_option {
	const char *name;	/* --NAME */
	int key;		/* getopt's value, also a short option */
	const char *arg;	/* the argument's name, or NULL */
	const char *help;
	bool synopsis;		/* shown in the usage line */
};

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const struct cmd_option *opts;	/* ends with { NULL } */
	const char *args;		/* after the options in the usage line */
	const char *summary;
};

extern const struct command cmd_apply, cmd_watch, cmd_list, cmd_audit, cmd_remove,
	cmd_check, cmd_cat_config, cmd_show;
/* All of them, in the order usage lists them; NULL-terminated. */
extern const struct command *const commands[];

/* "apply [--dry-run] POLICY" into BUF. */
void cmd_synopsis(const struct command *c, char *buf, size_t size);
/* The option list of C (or the global one if C is NULL), to OUT. */
void cmd_print_options(const struct command *c, FILE *out);
/*
 * getopt_long() over C's options and --help: the key of the next option,
 * -1 after the last, or CMD_HELP / CMD_BAD, which cmd_exit() turns into
 * the exit code.
 */
#define CMD_HELP	0x100
#define CMD_BAD		0x101
int cmd_getopt(const struct command *c, int argc, char **argv);
int cmd_exit(const struct command *c, int key);

/*
 * 0 if this build has the views; else EXIT_FAIL, having said that C
 * cannot run without them: apply and watch refuse at once in a build
 * made with -DFSITER_BPF=OFF.
 */
int cmd_need_views(const struct command *c);

/* The exit code for what plan_apply() returned: 0, PLAN_PARTIAL, -errno. */
int apply_exit(int ret);

/* Print C's usage line and return EXIT_USAGE. */
int usage_error(const struct command *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
