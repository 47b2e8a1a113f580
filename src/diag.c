// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "diag.h"

const char *program_name = "fsiter-pin";
bool diag_quiet;
bool diag_verbose;
FILE *diag_out;

size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned int c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF. */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/*
 * The one escaping routine. FULL: diag_escape()'s rules, for echoed input.
 * Not FULL: only control bytes, C1 controls and invalid UTF-8 become \xNN,
 * for a whole message whose own backslashes mean nothing special.
 */
static void escape(char *buf, size_t size, const char *s, bool full)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *c = (const unsigned char *)s;
	size_t o = 0;

	while (*c) {
		char tmp[8];
		size_t n = utf8_len(c), t = 0;

		if (full && *c == '\\') {
			tmp[t++] = '\\', tmp[t++] = '\\';
		} else if (full && *c == '\n') {
			tmp[t++] = '\\', tmp[t++] = 'n';
		} else if (full && *c == '\t') {
			tmp[t++] = '\\', tmp[t++] = 't';
		} else if (*c < 0x20 || *c == 0x7f || !n ||
			   (c[0] == 0xc2 && c[1] < 0xa0)) {
			/* Invalid UTF-8 and C1: escape the lead byte alone,
			 * the next ones are looked at on their own. */
			n = 1;
			tmp[t++] = '\\', tmp[t++] = 'x';
			tmp[t++] = hex[*c >> 4], tmp[t++] = hex[*c & 15];
		} else {
			memcpy(tmp, c, n);
			t = n;
		}
		if (o + t + 4 > size) {
			if (size >= 4) {
				memcpy(buf + (o <= size - 4 ? o : size - 4), "...", 4);
				return;
			}
			break;
		}
		memcpy(buf + o, tmp, t);
		o += t;
		c += n;
	}
	if (size)
		buf[o < size ? o : size - 1] = '\0';
}

const char *diag_escape(char *buf, size_t size, const char *s)
{
	escape(buf, size, s, true);
	return buf;
}

/*
 * Is stderr the journal? As systemd's own log.c decides: a service whose
 * stderr is connected to journald gets JOURNAL_STREAM=DEV:INO, and it is
 * still the journal only while stderr is that very stream (a child whose
 * stderr was redirected inherits the variable, not the stream). Asked
 * once.
 */
static bool stderr_is_journal(void)
{
	static int journal = -1;
	unsigned long long dev, ino;
	const char *e;
	struct stat st;
	int n = 0;

	if (journal >= 0)
		return journal;
	journal = 0;
	e = getenv("JOURNAL_STREAM");
	if (e && sscanf(e, "%llu:%llu%n", &dev, &ino, &n) == 2 && !e[n] &&
	    !fstat(STDERR_FILENO, &st) &&
	    (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino)
		journal = 1;
	return journal;
}

const char *diag_prefix(int level, FILE *out)
{
	static const char *const prefixes[] = {
		"<0>", "<1>", "<2>", "<3>", "<4>", "<5>", "<6>", "<7>",
	};

	if (out != stderr || level < 0 || level > DIAG_DEBUG || !stderr_is_journal())
		return "";
	return prefixes[level];
}

static void vmsg(int level, const char *prefix, const struct loc *loc,
		 const char *fmt, va_list ap)
{
	FILE *out = diag_out ?: stderr;
	char *text = NULL, *safe;
	size_t size;

	if (diag_quiet)
		return;
	fprintf(out, "%s%s: ", diag_prefix(level, out), program_name);
	if (loc)
		fprintf(out, "%s:%u: ", ESC(loc->file), loc->line);
	if (prefix)
		fputs(prefix, out);
	if (vasprintf(&text, fmt, ap) < 0) {
		fputs("(a message was lost: out of memory)\n", out);
		return;
	}
	size = 4 * strlen(text) + 4;
	safe = malloc(size);
	if (safe) {
		escape(safe, size, text, false);
		fputs(safe, out);
	} else {
		fputs("(a message was lost: out of memory)", out);
	}
	fputc('\n', out);
	free(safe);
	free(text);
}

void outf(const char *fmt, ...)
{
	char *text = NULL, *safe;
	size_t len;
	bool nl;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text) {
		fputs("(output was lost: out of memory)\n", stdout);
		return;
	}
	len = strlen(text);
	nl = len && text[len - 1] == '\n';
	if (nl)
		text[--len] = '\0';
	safe = malloc(4 * len + 4);
	if (safe) {
		escape(safe, 4 * len + 4, text, false);
		fputs(safe, stdout);
	} else {
		fputs("(output was lost: out of memory)", stdout);
	}
	if (nl)
		fputc('\n', stdout);
	free(safe);
	free(text);
}

#define DEFINE_MSG(fn, level, prefix, cond)				\
void fn(const char *fmt, ...)						\
{									\
	va_list ap;							\
									\
	if (!(cond))							\
		return;							\
	va_start(ap, fmt);						\
	vmsg(level, prefix, NULL, fmt, ap);				\
	va_end(ap);							\
}

DEFINE_MSG(err, DIAG_ERR, NULL, true)
DEFINE_MSG(warn, DIAG_WARNING, "warning: ", true)
DEFINE_MSG(hint, DIAG_NOTICE, "hint: ", true)
DEFINE_MSG(info, DIAG_INFO, NULL, true)
DEFINE_MSG(info_v, DIAG_DEBUG, NULL, diag_verbose)

void err_at(const struct loc *loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(DIAG_ERR, NULL, loc, fmt, ap);
	va_end(ap);
}

void diag_write(int level, const char *text)
{
	/* Where the last call left off: the next line gets its prefix. */
	static bool line_start = true;
	const char *nl;

	if (diag_quiet)
		return;
	for (; *text; text = nl + 1) {
		if (line_start)
			fputs(diag_prefix(level, stderr), stderr);
		nl = strchr(text, '\n');
		if (!nl) {
			fputs(text, stderr);
			line_start = false;
			return;
		}
		fwrite(text, 1, nl + 1 - text, stderr);
		line_start = true;
	}
}
