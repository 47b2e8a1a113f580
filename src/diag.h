/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages, in the util-linux style: "fsiter-pin: policy.conf:12: ...".
 * Everything goes to stderr, except what a command prints as its result.
 */
#ifndef FSITER_DIAG_H
#define FSITER_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Where a policy item was written: the file as named, and a 1-based line. */
struct loc {
	const char *file;
	unsigned int line;
};

extern const char *program_name;
/* Quiet: no messages at all. Verbose: also info_v(). */
extern bool diag_quiet;
extern bool diag_verbose;
/* Where messages go; NULL means stderr (tests capture them). */
extern FILE *diag_out;

void err_at(const struct loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info_v(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Input echoed in a message goes through diag_escape(): a backslash
 * becomes \\, a newline \n, a tab \t, and every other control byte, every
 * byte that is not valid UTF-8 and every C1 control (U+0080 to U+009F)
 * \xNN, which is how a policy path writes them. Valid printable UTF-8 is
 * kept. The text fits in SIZE bytes, cut with "..." if longer; returns
 * BUF. ESC(s) does it in a buffer that lives until the end of the
 * enclosing block:
 *
 *	err_at(loc, "path '%s': %s", ESC(path), why);
 *
 * As a last guard, the message itself is printed with its control bytes
 * and invalid UTF-8 as \xNN (and no other change), so no message writes a
 * raw control byte to the terminal, whatever its arguments.
 */
#define DIAG_ESC_MAX	(4 * 4096 + 4)
const char *diag_escape(char *buf, size_t size, const char *s);
#define ESC(s)	diag_escape((char[DIAG_ESC_MAX]){ 0 }, DIAG_ESC_MAX, (s))

/*
 * printf() to stdout for what a command prints as its result, with the
 * last guard of messages: control bytes (but a final newline), C1
 * controls and invalid UTF-8 become \xNN. Input echoed in it (paths,
 * names) still goes through ESC(), which writes a newline or a backslash
 * as a policy would.
 */
void outf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Length of the UTF-8 sequence at S, 0 if it is not valid UTF-8. */
size_t utf8_len(const unsigned char *s);

#endif
