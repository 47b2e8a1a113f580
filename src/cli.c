// SPDX-License-Identifier: GPL-2.0
/* The command line, from the table of commands (commands.h). */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "diag.h"
#include "views.h"

#define MAX_OPTIONS	16

void cmd_synopsis(const struct command *c, char *buf, size_t size)
{
	size_t n = snprintf(buf, size, "%s", c->name);

	for (const struct cmd_option *o = c->opts; o->name && n < size; o++)
		if (o->synopsis)
			n += snprintf(buf + n, size - n, " [--%s%s%s]", o->name,
				      o->arg ? " " : "", o->arg ?: "");
	if (c->args && n < size)
		snprintf(buf + n, size - n, " %s", c->args);
}

static void print_option(FILE *out, const char *shorts, const char *name,
			 const char *arg, const char *help)
{
	char left[64];

	snprintf(left, sizeof(left), "%s--%s%s%s", shorts, name, arg ? " " : "",
		 arg ?: "");
	fprintf(out, " %-15s %s\n", left, help);
}

void cmd_print_options(const struct command *c, FILE *out)
{
	fprintf(out, "\nOptions:\n");
	if (!c) {
		print_option(out, "-v, ", "verbose", NULL,
			     "say more, including libbpf's messages");
		print_option(out, "-h, ", "help", NULL, "display this help");
		print_option(out, "-V, ", "version", NULL, "display version");
		return;
	}
	for (const struct cmd_option *o = c->opts; o->name; o++)
		print_option(out, "", o->name, o->arg, o->help);
	print_option(out, "", "help", NULL, "display this help");
}

int cmd_getopt(const struct command *c, int argc, char **argv)
{
	struct option opts[MAX_OPTIONS + 2] = { { "help", no_argument, NULL, 'h' } };
	char shorts[2 * MAX_OPTIONS + 3] = "h";
	size_t n = 1, ns = 1;
	char synopsis[256];
	int key;

	for (const struct cmd_option *o = c->opts; o->name && n <= MAX_OPTIONS; o++) {
		opts[n++] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					     NULL, o->key };
		shorts[ns++] = o->key;
		if (o->arg)
			shorts[ns++] = ':';
	}
	key = getopt_long(argc, argv, shorts, opts, NULL);
	if (key == 'h') {
		cmd_synopsis(c, synopsis, sizeof(synopsis));
		printf("Usage: %s %s\n\n%s\n", program_name, synopsis, c->summary);
		cmd_print_options(c, stdout);
		return CMD_HELP;
	}
	return key == '?' || key == ':' ? CMD_BAD : key;
}

int cmd_exit(const struct command *c, int key)
{
	return key == CMD_HELP ? EXIT_OK : usage_error(c, NULL);
}

int cmd_need_views(const struct command *c)
{
	if (!views_missing)
		return 0;
	err("%s: this build has no views (%s)", c->name, views_missing);
	hint("'%s check POLICY' checks a policy without them", program_name);
	return EXIT_FAIL;
}

int usage_error(const struct command *c, const char *fmt, ...)
{
	char synopsis[256], *text = NULL;
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		if (vasprintf(&text, fmt, ap) < 0)
			text = NULL;
		va_end(ap);
		err("%s: %s", c->name, text ?: "(a message was lost: out of memory)");
		free(text);
	}
	cmd_synopsis(c, synopsis, sizeof(synopsis));
	fprintf(stderr, "Usage: %s %s\n", program_name, synopsis);
	fprintf(stderr, "Try '%s --help' for more information.\n", program_name);
	return EXIT_USAGE;
}
