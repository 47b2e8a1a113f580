// SPDX-License-Identifier: GPL-2.0
/*
 * RUN_TESTS() for the stand-in test_progs.h: the part of the selftests'
 * test_loader.c that the series' verifier tests use. Each program of the
 * object is a subtest: it is loaded alone, must fail or succeed as its
 * __failure or __success tag says, and the verifier log must hold every
 * __msg() text, in the order the program gives them.
 *
 * The tags are BTF decl tags on the program's function, as bpf_misc.h
 * writes them: "comment:test_expect_failure", "comment:test_expect_success"
 * and "comment:test_expect_msg=N=TEXT", where N orders the messages.
 */
#include "test_progs.h"

#include <bpf/btf.h>

#define TAG_FAILURE	"comment:test_expect_failure"
#define TAG_SUCCESS	"comment:test_expect_success"
#define TAG_MSG		"comment:test_expect_msg="
#define MAX_MSGS	16
#define LOG_SIZE	(1U << 20)

struct expect {
	bool failure;
	int nr_msgs;
	struct {
		long order;
		const char *text;
	} msgs[MAX_MSGS];
};

static int by_order(const void *a, const void *b)
{
	const long *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* Reads the tags of the function @name from @btf into @exp. */
static int read_expect(const struct btf *btf, const char *name,
		       struct expect *exp)
{
	__u32 i, n = btf__type_cnt(btf);
	int func;

	memset(exp, 0, sizeof(*exp));
	func = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	if (func < 0)
		return func;
	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const char *s, *rest;
		char *end;

		if (!btf_is_decl_tag(t) || t->type != (__u32)func ||
		    btf_decl_tag(t)->component_idx != -1)
			continue;
		s = btf__str_by_offset(btf, t->name_off);
		if (!strcmp(s, TAG_FAILURE)) {
			exp->failure = true;
		} else if (!strcmp(s, TAG_SUCCESS)) {
			exp->failure = false;
		} else if (!strncmp(s, TAG_MSG, strlen(TAG_MSG))) {
			if (exp->nr_msgs == MAX_MSGS)
				return -E2BIG;
			rest = s + strlen(TAG_MSG);
			exp->msgs[exp->nr_msgs].order = strtol(rest, &end, 10);
			exp->msgs[exp->nr_msgs].text = *end == '=' ? end + 1 : rest;
			exp->nr_msgs++;
		}
	}
	qsort(exp->msgs, exp->nr_msgs, sizeof(exp->msgs[0]), by_order);
	return 0;
}

/* Loads program @name of the object alone and checks it against @exp. */
static void run_one(const char *skel, const void *bytes, size_t size,
		    const char *name, const struct expect *exp, char *log)
{
	struct bpf_object *obj = NULL;
	struct bpf_program *prog, *p;
	const char *at = log;
	int err, i;

	obj = bpf_object__open_mem(bytes, size, NULL);
	if (!ASSERT_OK_PTR(obj, "open"))
		return;
	prog = bpf_object__find_program_by_name(obj, name);
	if (!ASSERT_OK_PTR(prog, "find program"))
		goto out;
	bpf_object__for_each_program(p, obj)
		bpf_program__set_autoload(p, p == prog);
	log[0] = '\0';
	bpf_program__set_log_buf(prog, log, LOG_SIZE);
	bpf_program__set_log_level(prog, 1);

	err = bpf_object__load(obj);
	if (exp->failure ? !ASSERT_ERR(err, name) : !ASSERT_OK(err, name)) {
		fprintf(stderr, "%s/%s: verifier log:\n%s\n", skel, name, log);
		goto out;
	}
	for (i = 0; i < exp->nr_msgs; i++) {
		const char *hit = strstr(at, exp->msgs[i].text);

		if (!hit) {
			test__fail(name, "%s/%s: '%s' not in the verifier log (after the previous message):\n%s\n",
				   skel, name, exp->msgs[i].text, log);
			break;
		}
		at = hit + strlen(exp->msgs[i].text);
	}
out:
	bpf_object__close(obj);
}

void run_tests_aux(const char *skel, const void *(*elf_bytes)(size_t *sz))
{
	struct bpf_object *obj = NULL;
	struct bpf_program *prog;
	struct expect exp;
	const void *bytes;
	char *log = NULL;
	size_t size;

	bytes = elf_bytes(&size);
	log = malloc(LOG_SIZE);
	obj = bpf_object__open_mem(bytes, size, NULL);
	if (!ASSERT_OK_PTR(log, "malloc") || !ASSERT_OK_PTR(obj, "open"))
		goto out;
	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);

		if (!test__start_subtest(name))
			continue;
		if (!ASSERT_OK(read_expect(bpf_object__btf(obj), name, &exp),
			       "decl tags"))
			continue;
		run_one(skel, bytes, size, name, &exp, log);
	}
out:
	bpf_object__close(obj);
	free(log);
}
