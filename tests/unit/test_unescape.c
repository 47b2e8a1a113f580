// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of view_unescape(), the decoder of names as the views print
 * them (docs/output.md, "Names and paths"): every byte from 1 to 255
 * escaped by the views' own rule (bpf/escape_byte.h) comes back; the
 * escapes no view prints (a truncated \1, \999, \400, \000, a trailing
 * backslash) are refused and leave the string as it was; and none of them
 * reads past the string's NUL, which here is the last byte before a page
 * that may not be read.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/types.h>
#include "view_unescape.h"
#include "check.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#include "escape_byte.h"

/* S as a view prints it, into OUT (4 * strlen(S) + 1 bytes). */
static void view_escape(const char *s, char *out)
{
	for (; *s; s++) {
		__u8 c = (__u8)*s;

		if (esc_plain(c)) {
			*out++ = (char)c;
		} else {
			esc_octal(out, c);
			out += ESC_WIDTH;
		}
	}
	*out = '\0';
}

/* IN decodes to WANT. */
static void good(const char *in, const char *want)
{
	char buf[256];
	int ret;

	snprintf(buf, sizeof(buf), "%s", in);
	ret = view_unescape(buf);
	CHECK(ret == 0 && !strcmp(buf, want), "'%s': %d, '%s'", in, ret, buf);
}

/* Page-sized area whose next page faults: a read past a string put at its end crashes. */
static char *guarded;
static long page;

static void bad(const char *in)
{
	size_t len = strlen(in) + 1;
	char *s = guarded + page - len;
	int ret;

	memcpy(s, in, len);
	ret = view_unescape(s);
	CHECK(ret == -EINVAL, "'%s': refused, not %d", in, ret);
	CHECK(!memcmp(s, in, len), "'%s': left as it was, not '%s'", in, s);
}

static void test_every_byte(void)
{
	char name[256], esc[4 * 256 + 1];
	bool ascii = true;

	for (int i = 0; i < 255; i++)
		name[i] = (char)(i + 1);
	name[255] = '\0';
	view_escape(name, esc);
	for (char *p = esc; *p; p++)
		ascii &= *p > ' ' && *p < 0x7f;
	CHECK(ascii, "escaped, every byte is printable ASCII but space");
	CHECK(!strchr(esc, '\n') && !strchr(esc, ' '), "no newline, no space");
	CHECK(view_unescape(esc) == 0 && !memcmp(esc, name, 256), "bytes 1 to 255 come back");
}

static void test_names(void)
{
	char esc[4 * 64 + 1];
	const char *forged = "x\nfile 99999 0 0 1 forged";

	view_escape(forged, esc);
	CHECK(!strcmp(esc, "x\\012file\\04099999\\0400\\0400\\0401\\040forged"),
	      "a forged line stays in its name: %s", esc);
	good(esc, forged);
	good("plain-name.txt", "plain-name.txt");
	good("", "");
	good("tab\\011here", "tab\there");
	good("back\\134slash", "back\\slash");
	good("ctl\\001x", "ctl\001x");
	good("bad\\377utf8", "bad\377utf8");
	good("caf\\303\\251", "caf\303\251");
	/* printf %b would read \0401 as \0 and 401: here it is a space and 1 */
	good("a\\0401", "a 1");
	/* a backslash in a name: its digits after it are text */
	view_escape("lit\\012", esc);
	CHECK(!strcmp(esc, "lit\\134012"), "a literal backslash is escaped: %s", esc);
	good(esc, "lit\\012");
}

static void test_bad(void)
{
	guarded = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guarded == MAP_FAILED || mprotect(guarded + page, page, PROT_NONE)) {
		CHECK(0, "mmap: %s", strerror(errno));
		return;
	}
	bad("\\");
	bad("name\\");
	bad("\\1");
	bad("x\\12");
	bad("\\1x2");
	bad("\\999");
	bad("\\400");
	bad("\\777");
	bad("\\000");
	bad("\\x41");
	bad("\\n");
	bad("\\\\");
	bad("ok\\041then\\08");
	munmap(guarded, 2 * page);
}

int main(void)
{
	page = sysconf(_SC_PAGESIZE);
	test_every_byte();
	test_names();
	test_bad();
	return check_summary();
}
