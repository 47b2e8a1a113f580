/* SPDX-License-Identifier: GPL-2.0 */
/* CHECK(cond, fmt, ...) and the summary, for the engine's unit tests. */
#ifndef FSITER_TEST_CHECK_H
#define FSITER_TEST_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK(cond, ...)						\
	do {								\
		checks++;						\
		if (!(cond)) {						\
			failures++;					\
			printf("FAIL %s:%d: ", __FILE__, __LINE__);	\
			printf(__VA_ARGS__);				\
			printf("\n");					\
		}							\
	} while (0)

static inline int check_summary(void)
{
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

#endif
