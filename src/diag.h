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

/*
 * When stderr is the journal (JOURNAL_STREAM names it, as systemd sets it
 * for a service), each line of a message starts with its priority as
 * sd-daemon(3) writes it, "<3>" for an error, which journald reads and
 * strips: err() and err_at() are DIAG_ERR, warn() DIAG_WARNING, hint()
 * DIAG_NOTICE, info() DIAG_INFO and info_v() DIAG_DEBUG. Elsewhere (a
 * terminal, a file, a pipe) the text is plain.
 */
#define DIAG_ERR	3
#define DIAG_WARNING	4
#define DIAG_NOTICE	5
#define DIAG_INFO	6
#define DIAG_DEBUG	7
/* "<LEVEL>" if OUT is stderr and stderr is the journal, else "". */
const char *diag_prefix(int level, FILE *out);
/*
 * TEXT to stderr as it is (another library's messages: libbpf's), but
 * with LEVEL's prefix at the start of each line when stderr is the
 * journal; a line may span calls.
 */
void diag_write(int level, const char *text);

/* Length of the UTF-8 sequence at S, 0 if it is not valid UTF-8. */
size_t utf8_len(const unsigned char *s);

#endif
