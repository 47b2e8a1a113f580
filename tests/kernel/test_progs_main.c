// SPDX-License-Identifier: GPL-2.0
/*
 * Runs the fs iterator selftests of the kernel series (prog_tests/), and
 * the RFC's own (rfc/), with the stand-in test_progs.h. Usage: test_fs_iters [-t NAME_SUBSTRING]
 * Prints one line per subtest and "N passed, N failed" at the end; exits
 * 1 if any subtest failed.
 */
#include <stdarg.h>
#include "test_progs.h"

void test_bpf_iter_fs_inode(void);
void test_bpf_iter_fs_mnt(void);
void test_bpf_iter_fs_safety(void);
void test_bpf_iter_fs(void);
/* Only in the series that have the fs_sb target. */
void test_bpf_iter_fs_sb(void) __attribute__((weak));

static const struct {
	const char *name;
	void (*run)(void);
} tests[] = {
	{ "bpf_iter_fs_inode", test_bpf_iter_fs_inode },
	{ "bpf_iter_fs_mnt", test_bpf_iter_fs_mnt },
	{ "bpf_iter_fs_safety", test_bpf_iter_fs_safety },
	{ "bpf_iter_fs (the RFC's, unchanged)", test_bpf_iter_fs },
	{ "bpf_iter_fs_sb", test_bpf_iter_fs_sb },
};

static const char *filter;
static const char *cur_test, *cur_sub;
static bool cur_failed;
static int passed, failed;

static void end_subtest(void)
{
	if (!cur_sub)
		return;
	printf("%s: %s/%s\n", cur_failed ? "FAIL" : "OK", cur_test, cur_sub);
	if (cur_failed)
		failed++;
	else
		passed++;
	cur_sub = NULL;
	cur_failed = false;
}

bool test__start_subtest(const char *name)
{
	end_subtest();
	if (filter && !strstr(name, filter) && !strstr(cur_test, filter))
		return false;
	cur_sub = name;
	return true;
}

void test__fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	cur_failed = true;
	fprintf(stderr, "  %s/%s: ", cur_test, cur_sub ? cur_sub : "-");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	(void)name;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc == 3 && !strcmp(argv[1], "-t"))
		filter = argv[2];
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [-t NAME]\n", argv[0]);
		return 2;
	}
	libbpf_set_print(print_libbpf);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (!tests[i].run)
			continue;
		cur_test = tests[i].name;
		tests[i].run();
		end_subtest();
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
