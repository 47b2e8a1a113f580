/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages, in the util-linux style: "fsiter-pin: policy.conf:12: ...".
 * Everything goes to stderr, except what a command prints as its result.
 */
#ifndef FSITER_DIAG_H
#define FSITER_DIAG_H

#include <stdbool.h>

/* Where a policy item was written: the file as named, and a 1-based line. */
struct loc {
	const char *file;
	unsigned int line;
};

extern const char *program_name;
/* Quiet: no messages at all (the fuzzer). Verbose: also info_v(). */
extern bool diag_quiet;
extern bool diag_verbose;
/* Where messages go; NULL means stderr (tests capture them). */
#include <stdio.h>
extern FILE *diag_out;

void err_at(const struct loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info_v(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
