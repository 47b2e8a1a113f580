// SPDX-License-Identifier: GPL-2.0
/*
 * Messages with the journal's priority prefixes (src/diag.c): each line
 * starts with "<3>" for an error ... "<7>" for debug when stderr is the
 * stream JOURNAL_STREAM names (dev:ino, as systemd sets it for a
 * service), and is plain otherwise: no JOURNAL_STREAM, another stream's,
 * or a malformed one. Each case runs in a child, as diag.c decides once
 * per process, with stderr in a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "diag.h"
#include "check.h"

enum stream { NONE, THIS, OTHER, BAD };

/* The messages of every level, by a child whose stderr is a file whose
 * dev:ino JOURNAL_STREAM names (THIS) or not; what it wrote, malloc'ed.
 */
static char *messages(enum stream how)
{
	char path[] = "/tmp/test_diag.XXXXXX", env[64], *buf;
	const struct loc loc = { "policy.conf", 12 };
	struct stat st;
	FILE *f;
	long n;
	int fd;

	fd = mkstemp(path);
	if (fd < 0 || fstat(fd, &st))
		return NULL;
	if (!fork()) {
		dup2(fd, STDERR_FILENO);
		snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino + (how == OTHER));
		if (how == BAD)
			strcat(env, "x");
		if (how != NONE)
			setenv("JOURNAL_STREAM", env, 1);
		else
			unsetenv("JOURNAL_STREAM");
		diag_verbose = true;
		err_at(&loc, "unknown view '%s'", "inod");
		err("an error");
		warn("a warning");
		hint("a hint");
		info("some info");
		info_v("some detail");
		diag_write(DIAG_DEBUG, "libbpf: one line\nand a ");
		diag_write(DIAG_DEBUG, "line in two calls\n");
		exit(0);
	}
	wait(NULL);
	f = fdopen(fd, "r");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n)
		buf[0] = '\0';
	fclose(f);
	unlink(path);
	return buf;
}

static const char journal[] =
	"<3>fsiter-pin: policy.conf:12: unknown view 'inod'\n"
	"<3>fsiter-pin: an error\n"
	"<4>fsiter-pin: warning: a warning\n"
	"<5>fsiter-pin: hint: a hint\n"
	"<6>fsiter-pin: some info\n"
	"<7>fsiter-pin: some detail\n"
	"<7>libbpf: one line\n"
	"<7>and a line in two calls\n";

static const char plain[] =
	"fsiter-pin: policy.conf:12: unknown view 'inod'\n"
	"fsiter-pin: an error\n"
	"fsiter-pin: warning: a warning\n"
	"fsiter-pin: hint: a hint\n"
	"fsiter-pin: some info\n"
	"fsiter-pin: some detail\n"
	"libbpf: one line\n"
	"and a line in two calls\n";

int main(void)
{
	static const struct { enum stream how; const char *want, *what; } cases[] = {
		{ THIS, journal, "stderr is the journal: prefixes" },
		{ NONE, plain, "no JOURNAL_STREAM: plain" },
		{ OTHER, plain, "JOURNAL_STREAM of another stream: plain" },
		{ BAD, plain, "JOURNAL_STREAM malformed: plain" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = messages(cases[i].how);

		CHECK(got && !strcmp(got, cases[i].want), "%s; got:\n%s", cases[i].what,
		      got ?: "(nothing)");
		free(got);
	}
	return check_summary();
}
