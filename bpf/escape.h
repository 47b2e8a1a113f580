/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names as every view prints them (fsiter-views(7), NAMES):
 * printable ASCII but space and backslash as it is, every other byte
 * (control bytes, space, backslash, DEL and every byte from 0x80) as a
 * backslash and three octal digits, "\ooo", as /proc/self/mountinfo
 * prints space, tab, newline and backslash. Whatever a name holds, it
 * stays one field of one line, and a reader gets its bytes back by
 * replacing each "\ooo" with the byte.
 *
 * Bytes from 0x80 are escaped too, valid UTF-8 or not: checking UTF-8
 * here would cost the verifier more than it is worth, and UTF-8 has its
 * own line breaks (U+0085, U+2028) and controls (C1, bidi) that some
 * consumers act on.
 *
 * esc_seq_str() writes a kernel string to the seq_file one byte at a
 * time, in a bpf_loop() whose callback keeps no count: the 6.1 verifier
 * checks a callback once, with its context as it is before the first
 * call, and hard-wires the branches that one call did not take (see
 * cache-top.bpf.c, walk_up()). Views that build a path in a map value
 * use esc_plain() and esc_octal() (escape_byte.h) alone.
 */
#ifndef FSITER_ESCAPE_H
#define FSITER_ESCAPE_H

#include "escape_byte.h"

struct esc_str {
	struct seq_file *seq;
	__u64 s;		/* the string's kernel address, a number */
};

static long esc_seq_byte(__u32 idx, void *data)
{
	struct esc_str *e = data;
	char out[ESC_WIDTH];
	__u8 c = 0;

	if (bpf_probe_read_kernel(&c, 1, (const void *)(e->s + idx)) || !c)
		return 1;
	if (esc_plain(c)) {
		bpf_seq_write(e->seq, &c, 1);
		return 0;
	}
	esc_octal(out, c);
	bpf_seq_write(e->seq, out, sizeof(out));
	return 0;
}

/* The first MAX bytes at most of the kernel string S, escaped, into SEQ. */
static __always_inline void esc_seq_str(struct seq_file *seq, const void *s, __u32 max)
{
	struct esc_str e = { .seq = seq, .s = (__u64)s };

	bpf_loop(max, esc_seq_byte, &e, 0);
}

#endif /* FSITER_ESCAPE_H */
