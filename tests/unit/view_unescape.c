// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include "view_unescape.h"

/* The byte of the three octal digits at P, or -1. Stops at a NUL. */
static int octal_byte(const char *p)
{
	int v = 0;

	for (int i = 0; i < 3; i++) {
		if (p[i] < '0' || p[i] > '7')
			return -1;
		v = v * 8 + (p[i] - '0');
	}
	/* A NUL cannot be in a name; above \377 is not a byte. */
	return v >= 1 && v <= 0377 ? v : -1;
}

int view_unescape(char *s)
{
	char *in, *out;

	/* Check it all first, so that a bad escape leaves S as it was. */
	for (in = s; *in; in++) {
		if (*in != '\\')
			continue;
		if (octal_byte(in + 1) < 0)
			return -EINVAL;
		in += 3;
	}
	for (in = out = s; *in; in++) {
		if (*in == '\\') {
			*out++ = (char)octal_byte(in + 1);
			in += 3;
		} else {
			*out++ = *in;
		}
	}
	*out = '\0';
	return 0;
}
