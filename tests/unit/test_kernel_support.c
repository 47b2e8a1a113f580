// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the kernel checks in BTF (src/kernel_support.c), on the
 * host, against BTF made up here: expose-totals needs
 * BPF_F_FS_ITER_WITHHELD_SUMS, which a kernel is known to lack only when
 * its BTF has the enum of BPF_F_FS_ITER_EXPOSE_CACHE without it.
 */
#include <string.h>
#include <bpf/btf.h>
#include "fsiter_uapi.h"
#include "kernel_support.h"
#include "check.h"

#define NO_SUMS	"no BPF_F_FS_ITER_WITHHELD_SUMS in its BTF"

/* BTF with the flags' enum: EXPOSE_CACHE, and WITHHELD_SUMS if SUMS. */
static struct btf *flags_btf(bool sums)
{
	struct btf *btf = btf__new_empty();

	if (!btf)
		return NULL;
	btf__add_enum(btf, "", 4);
	btf__add_enum_value(btf, "BPF_F_FS_ITER_EXPOSE_CACHE", 1);
	if (sums)
		btf__add_enum_value(btf, "BPF_F_FS_ITER_WITHHELD_SUMS", 2);
	return btf;
}

/*
 * Does checking BTF for LINK_FLAGS say the flag is missing, and name the
 * fs_sb patch? No view is used, so that nothing else names that patch.
 */
static bool says_no_sums(const struct btf *btf, __u32 link_flags)
{
	bool used[VIEW_COUNT] = { false }, said = false, patch = false;
	struct kernel_missing km = { 0 };

	kernel_check_btf(btf, used, link_flags, &km);
	for (size_t i = 0; i < km.nr; i++)
		said |= strstr(km.what[i], NO_SUMS) != NULL;
	for (size_t i = 0; i < km.nr_patches; i++)
		patch |= !strcmp(km.patches[i], "bpf: Introduce the fs_sb iterator");
	return said && patch;
}

int main(void)
{
	struct btf *without = flags_btf(false), *with = flags_btf(true);
	struct btf *none = btf__new_empty();

	CHECK(without && with && none, "BTF made up");
	if (!without || !with || !none)
		return check_summary();
	CHECK(says_no_sums(without, FSITER_F_WITHHELD_SUMS),
	      "the enum without WITHHELD_SUMS: missing, from the fs_sb patch");
	CHECK(!says_no_sums(with, FSITER_F_WITHHELD_SUMS), "the enum with it: there");
	CHECK(!says_no_sums(without, 0), "not asked for: not checked");
	CHECK(!says_no_sums(without, FSITER_F_EXPOSE_CACHE), "expose-cache alone: not checked");
	CHECK(!says_no_sums(none, FSITER_F_WITHHELD_SUMS),
	      "no enum at all: not known to lack it (attach says)");
	btf__free(without);
	btf__free(with);
	btf__free(none);
	return check_summary();
}
