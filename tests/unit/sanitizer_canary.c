// SPDX-License-Identifier: GPL-2.0
/*
 * sanitizer_canary MODE: a program with the bug MODE names, built in a
 * FSITER_SANITIZE build only (tests/unit/sanitizer-canary.sh): each must
 * end in its sanitizer's report, or the sanitizers do not work as ctest
 * runs them here, and a clean run of the host tests proves nothing.
 *   heap  a write past a heap block, by memset: UBSan's object-size
 *         check would catch a plain store first (ASan)
 *   leak  a block no pointer reaches at exit (LeakSanitizer)
 *   ub    a signed overflow (UBSan)
 *   race  two threads writing one int unlocked (TSan)
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;
static int counter;

static void *bump(void *arg)
{
	counter++;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "heap")) {
		volatile size_t n = 9;

		sink = malloc(8);	/* through sink: not optimized away */
		memset(sink, 0, n);
		free(sink);
	} else if (!strcmp(mode, "leak")) {
		sink = malloc(32);
		sink = NULL;
	} else if (!strcmp(mode, "ub")) {
		volatile int x = INT_MAX;

		x = x + 1;
	} else if (!strcmp(mode, "race")) {
		pthread_t t;

		if (pthread_create(&t, NULL, bump, NULL))
			return 2;
		counter++;
		pthread_join(t, NULL);
	} else {
		fprintf(stderr, "sanitizer_canary: unknown mode '%s'\n", mode);
		return 2;
	}
	return 0;
}
