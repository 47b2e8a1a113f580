/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both fuzz targets check beyond crashes and sanitizer reports:
 *
 * - every diagnostic is formatted, into a sink that keeps nothing (as
 *   /dev/null would) but aborts on a line that does not start with
 *   "fsiter-pin: ", that holds a control byte, a C1 control or bytes that
 *   are not UTF-8, or that is left without its newline;
 * - every parsed policy holds only entries the parser should have let
 *   through (valid name, path and view, mode within 0444, no two of one
 *   name, each found by policy_find()), and every validated one also
 *   no two of one view, options and path, and no expose-* with an owner
 *   other than root.
 *
 * A broken invariant prints what broke and aborts, which libFuzzer saves
 * as a crash.
 */
#ifndef FSITER_FUZZ_CHECK_H
#define FSITER_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policy.h"
#include "policy_fields.h"

#define BROKEN(...)							\
	do {								\
		fprintf(stderr, "fuzz: invariant broken: " __VA_ARGS__); \
		fputc('\n', stderr);					\
		abort();						\
	} while (0)

static char *sink_line;
static size_t sink_len, sink_cap;

static void sink_check_line(void)
{
	const unsigned char *c = (const unsigned char *)sink_line;
	const unsigned char *end = c + sink_len;

	if (sink_len < 12 || memcmp(sink_line, "fsiter-pin: ", 12))
		BROKEN("a message without 'fsiter-pin: ': '%.*s'", (int)sink_len,
		       sink_line);
	while (c < end) {
		size_t n = utf8_len(c);

		if (!n || c + n > end || *c < 0x20 || *c == 0x7f ||
		    (c[0] == 0xc2 && c[1] < 0xa0))
			BROKEN("a raw control byte or bad UTF-8 at %zu in a message",
			       (size_t)(c - (const unsigned char *)sink_line));
		c += n;
	}
}

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		if (buf[i] == '\n') {
			sink_check_line();
			sink_len = 0;
			continue;
		}
		if (sink_len + 1 >= sink_cap) {
			sink_cap = sink_cap ? 2 * sink_cap : 4096;
			sink_line = realloc(sink_line, sink_cap);
			if (!sink_line)
				abort();
		}
		sink_line[sink_len++] = buf[i];
		sink_line[sink_len] = '\0';
	}
	return size;
}

/* Messages go to the sink; call once. */
static void sink_open(void)
{
	static cookie_io_functions_t io = { .write = sink_write };

	diag_out = fopencookie(NULL, "w", io);
	if (!diag_out)
		abort();
	diag_verbose = true;	/* info_v() too: overrides, masked drop-ins */
}

/* After each input: every message ended with its newline. */
static void sink_done(void)
{
	fflush(diag_out);
	if (sink_len)
		BROKEN("a message without a newline: '%.*s'", (int)sink_len, sink_line);
}

static int ref_cmp(const void *a, const void *b)
{
	const struct policy_entry *x = *(const struct policy_entry *const *)a;
	const struct policy_entry *y = *(const struct policy_entry *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : x < y ? -1 : x > y;
}

static int repeat_cmp(const void *a, const void *b)
{
	const struct policy_entry *x = *(const struct policy_entry *const *)a;
	const struct policy_entry *y = *(const struct policy_entry *const *)b;

	if (x->view != y->view)
		return x->view < y->view ? -1 : 1;
	if (x->options != y->options)
		return x->options < y->options ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* What holds for the entries of any parse, good or not. */
static void check_parsed(const struct policy *p)
{
	const struct policy_entry **v;
	size_t n = p->nr_entries;

	if (p->pin_dir && policy_pin_dir_error(p->pin_dir))
		BROKEN("pin-dir '%s': %s", p->pin_dir, policy_pin_dir_error(p->pin_dir));
	if (p->pin_dir_mode && p->pin_dir_mode != 0755 && p->pin_dir_mode != 0711)
		BROKEN("pin-dir-mode %04o", (unsigned int)p->pin_dir_mode);
	v = calloc(n ?: 1, sizeof(*v));
	if (!v)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct policy_entry *e = &p->entries[i];
		const char *why;

		if (!e->view || !e->name || !e->path || !e->loc.file || !e->loc.line)
			BROKEN("entry %zu is incomplete", i);
		if ((why = policy_name_error(e->name)))
			BROKEN("name '%s': %s", e->name, why);
		if ((why = policy_path_error(e->path)))
			BROKEN("path of '%s': %s", e->name, why);
		if (e->mode & ~0444)
			BROKEN("'%s' has mode %04o", e->name, (unsigned int)e->mode);
		if (e->options & ~(POLICY_OPT_NOFAIL | POLICY_OPT_EXPOSE_RAW |
				   POLICY_OPT_EXPOSE_CACHE | POLICY_OPT_EXPOSE_TOTALS |
				   POLICY_OPT_HARDLINKS))
			BROKEN("'%s' has options %#x", e->name, e->options);
		if (policy_find(p, e->name) != e)
			BROKEN("policy_find('%s') is not entry %zu", e->name, i);
		v[i] = e;
	}
	qsort(v, n, sizeof(*v), ref_cmp);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(v[i - 1]->name, v[i]->name))
			BROKEN("two entries named '%s'", v[i]->name);
	free(v);
}

/* What holds for a policy that also passed policy_validate(). */
static void check_valid(const struct policy *p)
{
	const struct policy_entry **v;
	size_t n = p->nr_entries;

	check_parsed(p);
	v = calloc(n ?: 1, sizeof(*v));
	if (!v)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct policy_entry *e = &p->entries[i];

		if ((e->options & (POLICY_OPT_EXPOSE_RAW | POLICY_OPT_EXPOSE_CACHE |
				   POLICY_OPT_EXPOSE_TOTALS)) && e->uid != 0)
			BROKEN("'%s': expose-* with owner uid %u", e->name,
			       (unsigned int)e->uid);
		if ((e->options & POLICY_OPT_EXPOSE_CACHE) &&
		    !(e->view->flags & VIEW_SHOWS_CACHE))
			BROKEN("'%s': expose-cache on view %s", e->name, e->view->name);
		if ((e->options & POLICY_OPT_EXPOSE_TOTALS) && e->view->target != TARGET_SB)
			BROKEN("'%s': expose-totals on view %s", e->name, e->view->name);
		if ((e->options & POLICY_OPT_EXPOSE_TOTALS) &&
		    (e->options & POLICY_OPT_EXPOSE_CACHE))
			BROKEN("'%s': expose-totals with expose-cache", e->name);
		if (e->acl && !e->nr_grants)
			BROKEN("'%s': an ACL without grants", e->name);
		v[i] = e;
	}
	qsort(v, n, sizeof(*v), repeat_cmp);
	for (size_t i = 1; i < n; i++)
		if (!repeat_cmp(&v[i - 1], &v[i]))
			BROKEN("'%s' and '%s': one view of one path", v[i - 1]->name,
			       v[i]->name);
	free(v);
}

#endif
