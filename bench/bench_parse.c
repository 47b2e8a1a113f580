// SPDX-License-Identifier: GPL-2.0
/*
 * bench_parse: how the policy parser and validator scale with the number
 * of entries, against two baselines timed in the same run on the same
 * text:
 *
 *   scan       one pass over the text that splits it into lines and
 *              fields and does nothing else: the floor for any parser
 *   parse      policy_parse_buf() + policy_validate(), as apply runs them
 *   quadratic  the duplicate checks fsiter-pin had before (each entry's
 *              name, then its view, options and path, compared with every
 *              earlier entry's), run alone over the parsed entries
 *
 *   bench_parse [--max-quadratic N] [N...]
 *
 * Each N (default 1000 10000 100000) is a policy of N distinct entries,
 * a third each cache, inode (with an ACL) and mount, with owner and group,
 * as a single file. Times are the
 * best of 3 (the quadratic check runs once, and only up to
 * --max-quadratic entries, default 100000). Nothing here asserts a time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "policy.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *make_policy(size_t n, size_t *len)
{
	static const char *const views[] = { "cache", "inode", "mount" };
	size_t cap = n * 80 + 1, o = 0;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	for (size_t i = 0; i < n; i++)
		o += snprintf(buf + o, cap - o,
			      "%-5s e%07zu /srv/d%03zu/file%07zu 0440 root root%s\n",
			      views[i % 3], i, i % 1000, i,
			      i % 3 == 1 ? " g:nogroup:r" : "");
	*len = o;
	return buf;
}

/* Lines and blank-separated fields, touching every byte once. */
static size_t scan(const char *buf, size_t len)
{
	size_t fields = 0;
	int in = 0;

	for (size_t i = 0; i < len; i++) {
		int blank = buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n';

		fields += !blank && !in;
		in = !blank;
	}
	return fields;
}

/* The checks of before: O(n^2). */
static size_t quadratic(const struct policy *p)
{
	size_t dups = 0;

	for (size_t i = 0; i < p->nr_entries; i++) {
		const struct policy_entry *e = &p->entries[i];

		for (size_t j = 0; j < i; j++)
			dups += !strcmp(p->entries[j].name, e->name);
		for (size_t j = 0; j < i; j++) {
			const struct policy_entry *o = &p->entries[j];

			dups += o->view == e->view && o->options == e->options &&
				!strcmp(o->path, e->path);
		}
	}
	return dups;
}

int main(int argc, char **argv)
{
	static const size_t def[] = { 1000, 10000, 100000 };
	size_t max_quad = 100000, sizes[32], nr = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--max-quadratic") && i + 1 < argc)
			max_quad = strtoul(argv[++i], NULL, 10);
		else if (nr < 32)
			sizes[nr++] = strtoul(argv[i], NULL, 10);
	}
	if (!nr) {
		memcpy(sizes, def, sizeof(def));
		nr = 3;
	}
	diag_out = fopen("/dev/null", "w");
	printf("%9s %10s %12s %14s %12s\n", "entries", "scan ms", "parse ms",
	       "quadratic ms", "parse/scan");
	for (size_t k = 0; k < nr; k++) {
		size_t n = sizes[k], len, fields = 0;
		double t_scan = 1e9, t_parse = 1e9, t_quad = -1, t;
		char *buf = make_policy(n, &len);

		if (!buf)
			return 1;
		for (int r = 0; r < 3; r++) {
			t = now();
			fields += scan(buf, len);
			t = now() - t;
			t_scan = t < t_scan ? t : t_scan;
		}
		for (int r = 0; r < 3; r++) {
			struct policy p;
			int ret;

			policy_init(&p);
			t = now();
			ret = policy_parse_buf(&p, "bench.conf", buf, len);
			if (!ret)
				ret = policy_validate(&p);
			t = now() - t;
			if (ret || p.nr_entries != n) {
				fprintf(stderr, "bench_parse: %zu entries: ret %d, %zu parsed\n",
					n, ret, p.nr_entries);
				return 1;
			}
			t_parse = t < t_parse ? t : t_parse;
			if (r == 0 && n <= max_quad) {
				t = now();
				if (quadratic(&p)) {
					fprintf(stderr, "bench_parse: duplicates?\n");
					return 1;
				}
				t_quad = now() - t;
			}
			policy_free(&p);
		}
		if (fields != 3 * (6 * n + (n + 1) / 3)) {
			fprintf(stderr, "bench_parse: the scan is wrong\n");
			return 1;
		}
		printf("%9zu %10.2f %12.2f ", n, t_scan * 1e3, t_parse * 1e3);
		if (t_quad < 0)
			printf("%14s", "-");
		else
			printf("%14.2f", t_quad * 1e3);
		printf(" %12.0f\n", t_parse / t_scan);
		fflush(stdout);
		free(buf);
	}
	return 0;
}
