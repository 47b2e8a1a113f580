/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small stand-in for tools/testing/selftests/bpf/test_progs.h: enough of
 * its API (subtests and ASSERT_*) to build our selftests from the kernel
 * series unchanged and run them in the test VM without building all of
 * test_progs. Only what the fs iterator selftests use is here.
 */
#ifndef FSITER_TEST_PROGS_H
#define FSITER_TEST_PROGS_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

bool test__start_subtest(const char *name);
void test__fail(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define CHECK(condition, tag, format...) ({				\
	bool ___bad = !!(condition);					\
	if (___bad)							\
		test__fail(tag, format);				\
	___bad;								\
})

#define __ASSERT_CMP(actual, expected, op, name) ({			\
	long long ___act = (long long)(actual);				\
	long long ___exp = (long long)(expected);			\
	bool ___ok = ___act op ___exp;					\
	CHECK(!___ok, (name), "%s: %lld " #op " %lld is false\n",	\
	      (name), ___act, ___exp);					\
	___ok;								\
})

#define ASSERT_TRUE(actual, name)	__ASSERT_CMP(!!(actual), 1, ==, name)
#define ASSERT_FALSE(actual, name)	__ASSERT_CMP(!!(actual), 0, ==, name)
#define ASSERT_EQ(actual, expected, name) __ASSERT_CMP(actual, expected, ==, name)
#define ASSERT_NEQ(actual, expected, name) __ASSERT_CMP(actual, expected, !=, name)
#define ASSERT_LT(actual, expected, name) __ASSERT_CMP(actual, expected, <, name)
#define ASSERT_LE(actual, expected, name) __ASSERT_CMP(actual, expected, <=, name)
#define ASSERT_GT(actual, expected, name) __ASSERT_CMP(actual, expected, >, name)
#define ASSERT_GE(actual, expected, name) __ASSERT_CMP(actual, expected, >=, name)

#define ASSERT_OK(res, name) ({						\
	long long ___res = (res);					\
	bool ___ok = ___res == 0;					\
	CHECK(!___ok, (name), "%s: unexpected error %lld (errno %d)\n",	\
	      (name), ___res, errno);					\
	___ok;								\
})

#define ASSERT_ERR(res, name) ({					\
	long long ___res = (res);					\
	bool ___ok = ___res < 0;					\
	CHECK(!___ok, (name), "%s: unexpected success %lld\n",		\
	      (name), ___res);						\
	___ok;								\
})

#define ASSERT_NULL(ptr, name) ({					\
	const void *___res = (ptr);					\
	bool ___ok = !___res;						\
	CHECK(!___ok, (name), "%s: unexpected pointer %p\n", (name), ___res); \
	___ok;								\
})

#define ASSERT_OK_PTR(ptr, name) ({					\
	const void *___res = (ptr);					\
	int ___err = libbpf_get_error(___res);				\
	bool ___ok = ___res && ___err == 0;				\
	CHECK(!___ok, (name), "%s: unexpected error %d\n", (name), ___err); \
	___ok;								\
})

#define ASSERT_ERR_PTR(ptr, name) ({					\
	const void *___res = (ptr);					\
	bool ___ok = libbpf_get_error(___res) != 0;			\
	CHECK(!___ok, (name), "%s: unexpected pointer %p\n", (name), ___res); \
	___ok;								\
})

#define ASSERT_STREQ(actual, expected, name) ({				\
	const char *___act = (actual), *___exp = (expected);		\
	bool ___ok = strcmp(___act, ___exp) == 0;			\
	CHECK(!___ok, (name), "%s: '%s' != '%s'\n", (name), ___act, ___exp); \
	___ok;								\
})

#define ASSERT_HAS_SUBSTR(str, substr, name) ({				\
	const char *___str = (str), *___sub = (substr);			\
	bool ___ok = strstr(___str, ___sub) != NULL;			\
	CHECK(!___ok, (name), "%s: '%s' is not in '%.2000s'\n",		\
	      (name), ___sub, ___str);					\
	___ok;								\
})

/*
 * The verifier tests of a skeleton, as the selftests' test_loader.c runs
 * them: each program is a subtest, checked against its __failure,
 * __success and __msg() tags (tests/kernel/test_loader.c).
 */
void run_tests_aux(const char *skel, const void *(*elf_bytes)(size_t *sz));
#define RUN_TESTS(skel) run_tests_aux(#skel, skel##__elf_bytes)

#endif /* FSITER_TEST_PROGS_H */
