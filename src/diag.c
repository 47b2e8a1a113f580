// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include "diag.h"

const char *program_name = "fsiter-pin";
bool diag_quiet;
bool diag_verbose;
FILE *diag_out;

static void vmsg(const char *prefix, const struct loc *loc, const char *fmt,
		 va_list ap)
{
	FILE *out = diag_out ?: stderr;

	if (diag_quiet)
		return;
	fprintf(out, "%s: ", program_name);
	if (loc)
		fprintf(out, "%s:%u: ", loc->file, loc->line);
	if (prefix)
		fputs(prefix, out);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
}

#define DEFINE_MSG(fn, prefix, cond)					\
void fn(const char *fmt, ...)						\
{									\
	va_list ap;							\
									\
	if (!(cond))							\
		return;							\
	va_start(ap, fmt);						\
	vmsg(prefix, NULL, fmt, ap);					\
	va_end(ap);							\
}

DEFINE_MSG(err, NULL, true)
DEFINE_MSG(warn, "warning: ", true)
DEFINE_MSG(hint, "hint: ", true)
DEFINE_MSG(info, NULL, true)
DEFINE_MSG(info_v, NULL, diag_verbose)

void err_at(const struct loc *loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, loc, fmt, ap);
	va_end(ap);
}
