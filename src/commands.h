/* SPDX-License-Identifier: GPL-2.0 */
/* The commands: each gets argc/argv from its name on, returns an exit code. */
#ifndef FSITER_COMMANDS_H
#define FSITER_COMMANDS_H

#include <stdbool.h>

/* Exit codes (fsiter-pin(8)). */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* apply, list, remove: failed; audit: drift */
#define EXIT_USAGE	2	/* also audit: could not audit */

int cmd_apply(int argc, char **argv);
int cmd_watch(int argc, char **argv);
/* apply, once: 0 or -errno, everything reported. */
int apply_policy(const char *policy_path, bool dry_run);
int cmd_list(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_remove(int argc, char **argv);

/* Print the usage line of a command and return EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
