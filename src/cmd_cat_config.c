// SPDX-License-Identifier: GPL-2.0
/*
 * cat-config: the policy as apply reads it, the file and then each
 * drop-in in order, each after a "# PATH" line, as systemd-tmpfiles
 * --cat-config prints its configuration. What is printed is what the
 * parser read (policy_each_source()), and only if all of it parses: with
 * an error, only the errors (on stderr), so that it never prints a file
 * that is not a policy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "diag.h"
#include "policy.h"

/* One line of a policy: tabs as they are, other control bytes as \xNN. */
static void put_line(char *line)
{
	for (char *tab; (tab = strchr(line, '\t')); line = tab + 1) {
		*tab = '\0';
		outf("%s", line);
		putchar('\t');
	}
	outf("%s\n", line);
}

static int print_file(void *arg, const char *path, const char *text, size_t len)
{
	bool *first = arg;
	char *copy, *line, *nl;

	printf("%s# %s", *first ? "" : "\n", ESC(path));
	*first = false;
	if (!text) {
		printf(": masked (/dev/null)\n");
		return 0;
	}
	putchar('\n');
	copy = strndup(text, len);
	if (!copy)
		return -ENOMEM;
	for (line = copy; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		put_line(line);
		if (!nl)
			break;
	}
	free(copy);
	return 0;
}

static int run(int argc, char **argv)
{
	const char *path = POLICY_DEFAULT_PATH;
	struct policy p;
	bool first = true;
	int c, ret;

	while ((c = cmd_getopt(&cmd_cat_config, argc, argv)) != -1)
		return cmd_exit(&cmd_cat_config, c);
	if (optind < argc - 1)
		return usage_error(&cmd_cat_config, "expected at most one POLICY file");
	if (optind == argc - 1)
		path = argv[optind];
	policy_init(&p);
	ret = policy_load(&p, path);
	/* Nothing of a file that is not a valid policy: run through sudo,
	 * cat-config would otherwise print any file root may read.
	 */
	c = ret ? 0 : policy_each_source(&p, print_file, &first);
	if (c == -ENOMEM)
		err("%s: %s", ESC(path), strerror(ENOMEM));
	policy_free(&p);
	return ret || c ? EXIT_FAIL : EXIT_OK;
}

const struct command cmd_cat_config = {
	"cat-config", run, (const struct cmd_option[]){ { NULL } }, "[POLICY]",
	"Print the policy and its drop-ins as apply reads them, each after its file name.",
};
