/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rule of escape.h for one byte, apart so that code on the host (a
 * decoder's tests) can use this very rule. Needs __u8, bool and
 * __always_inline.
 */
#ifndef FSITER_ESCAPE_BYTE_H
#define FSITER_ESCAPE_BYTE_H

/* The most one byte becomes: "\ooo". */
#define ESC_WIDTH	4

/* Printed as it is: printable ASCII but space and backslash. */
static __always_inline bool esc_plain(__u8 c)
{
	return c > ' ' && c < 0x7f && c != '\\';
}

/* "\ooo" of C into OUT[0..3]. */
static __always_inline void esc_octal(char *out, __u8 c)
{
	out[0] = '\\';
	out[1] = '0' + (c >> 6);
	out[2] = '0' + ((c >> 3) & 7);
	out[3] = '0' + (c & 7);
}

#endif /* FSITER_ESCAPE_BYTE_H */
