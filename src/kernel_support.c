// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/xattr.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "diag.h"
#include "fsiter_uapi.h"
#include "kernel_support.h"
#include "target_kind.h"

/* The patches, by subject: the same in the series of every kernel. */
#define PATCH_FS_INODE	"bpf: Introduce the fs_inode iterator"
#define PATCH_FS_MNT	"bpf: Introduce the fs_mnt iterator"
#define PATCH_ACL	"bpf: Support POSIX ACLs in bpffs"
#define PATCH_FOLIOS	"bpf: Add bpf_filemap_get_folios() to list folios in one walk"
#define PATCH_FS_SB	"bpf: Introduce the fs_sb iterator"

/* A function in BTF: libbpf finds iterator targets as bpf_iter_<target>. */
static const struct need_func {
	unsigned int feature;	/* enum kernel_feature */
	const char *func;
	const char *what;
	const char *patch;
} need_funcs[] = {
	{ FEAT_FS_INODE, "bpf_iter_fs_inode",
	  "the iter/fs_inode target (no bpf_iter_fs_inode in its BTF)", PATCH_FS_INODE },
	{ FEAT_FOLIOS, "bpf_filemap_get_folios",
	  "the one-pass folio walk (no bpf_filemap_get_folios in its BTF)", PATCH_FOLIOS },
	{ FEAT_FS_MNT, "bpf_iter_fs_mnt",
	  "the iter/fs_mnt target (no bpf_iter_fs_mnt in its BTF)", PATCH_FS_MNT },
	{ FEAT_FS_SB, "bpf_iter_fs_sb",
	  "the iter/fs_sb target (no bpf_iter_fs_sb in its BTF)", PATCH_FS_SB },
};

/*
 * The type of member NAME of struct ID, looking into anonymous members;
 * 0 if there is none.
 */
static __u32 member_type(const struct btf *btf, __u32 id, const char *name,
			 int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	__u32 found;

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_composite(t) || depth > 4)
		return 0;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && !strcmp(n, name))
			return m->type;
		if ((!n || !*n) && (found = member_type(btf, m->type, name, depth + 1)))
			return found;
	}
	return 0;
}

/*
 * There is a bpf_link_info.iter.fs, which comes with the fs targets, and
 * it has MEMBER if not NULL: "flags" comes with the kernel's page-cache
 * rule, which a link attached with BPF_F_FS_ITER_EXPOSE_CACHE lifts.
 */
static bool has_fs_link_info(const struct btf *btf, const char *member)
{
	const struct btf_type *t, *it;
	const struct btf_member *m;
	__s32 id;

	id = btf__find_by_name_kind(btf, "bpf_link_info", BTF_KIND_STRUCT);
	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	/* The first member is the union of per-type structs. */
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && *n)
			continue;
		it = btf__type_by_id(btf, m->type);
		if (!it || !btf_is_union(it))
			continue;
		const struct btf_member *um = btf_members(it);

		for (int j = 0; j < btf_vlen(it); j++, um++) {
			n = btf__name_by_offset(btf, um->name_off);
			if (n && !strcmp(n, "iter")) {
				__u32 fs = member_type(btf, um->type, "fs", 0);

				return fs && (!member || member_type(btf, fs, member, 0));
			}
		}
	}
	return false;
}

/* Is NAME a value of an enum in BTF? */
static bool has_enum_value(const struct btf *btf, const char *name)
{
	__u32 n = btf__type_cnt(btf);

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;

		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (int i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
				return true;
	}
	return false;
}

static void add_missing(struct kernel_missing *km, const char *what,
			const char *patch)
{
	size_t i;

	if (km->nr == KERNEL_MISSING_MAX)
		return;
	km->what[km->nr++] = what;
	for (i = 0; i < km->nr_patches; i++)
		if (!strcmp(km->patches[i], patch))
			return;
	km->patches[km->nr_patches++] = patch;
}

/* kernel/patches/<major.minor>/ for the running kernel, if we have one. */
static const char *series_dir(char *buf, size_t size)
{
	static const char *const versions[] = { "6.1", "6.12" };
	struct utsname u;
	size_t n;

	if (uname(&u) < 0)
		return NULL;
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		n = strlen(versions[i]);
		if (!strncmp(u.release, versions[i], n) && u.release[n] == '.') {
			snprintf(buf, size, "kernel/patches/%s/", versions[i]);
			return buf;
		}
	}
	return NULL;
}

void kernel_report_missing(const struct kernel_missing *km)
{
	char list[2048], patches[1024], dir[64];
	struct utsname u;
	size_t used = 0, pused = 0;

	if (!km->nr)
		return;
	/* Bounded appends: the pointer never goes past the end of the buffer. */
	for (size_t i = 0; i < km->nr && used < sizeof(list); i++)
		used += snprintf(list + used, sizeof(list) - used, "%s%s",
				 i ? "; " : "", km->what[i]);
	for (size_t i = 0; i < km->nr_patches && pused < sizeof(patches); i++)
		pused += snprintf(patches + pused, sizeof(patches) - pused,
				  "%s\"%s\"", i ? ", " : "", km->patches[i]);
	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "?");
	if (series_dir(dir, sizeof(dir)))
		err("this kernel (%s) lacks what the policy needs: %s; the patches %s of %s provide it",
		    u.release, list, patches, dir);
	else
		err("this kernel (%s) lacks what the policy needs: %s; the patches %s provide it, in the series for Linux 6.1 or 6.12 (kernel/patches/6.1/, kernel/patches/6.12/)",
		    u.release, list, patches);
}

int kernel_check_btf(const struct btf *btf, const bool used[VIEW_COUNT],
		     __u32 link_flags, struct kernel_missing *km)
{
	unsigned int features = 0;
	int ret = 0;

	for (int v = 0; v < VIEW_COUNT; v++)
		if (used[v])
			features |= view_table[v].features |
				    target_kinds[view_table[v].target].feature;
	for (size_t i = 0; i < sizeof(need_funcs) / sizeof(need_funcs[0]); i++) {
		const struct need_func *n = &need_funcs[i];

		if (!(features & n->feature) ||
		    btf__find_by_name_kind(btf, n->func, BTF_KIND_FUNC) >= 0)
			continue;
		add_missing(km, n->what, n->patch);
		ret = -ENOTSUP;
	}
	if (!has_fs_link_info(btf, NULL)) {
		add_missing(km, "link info for fs iterators (no bpf_link_info.iter.fs in its BTF)",
			    PATCH_FS_INODE);
		ret = -ENOTSUP;
	} else if ((features & FEAT_CACHE_RULE) && !has_fs_link_info(btf, "flags")) {
		add_missing(km, "the page-cache rule of fs_inode iterators (no bpf_link_info.iter.fs.flags in its BTF)",
			    PATCH_FS_INODE);
		ret = -ENOTSUP;
	}
	/*
	 * The flag's value is in the enum that holds EXPOSE_CACHE's. Only a
	 * kernel whose BTF has that enum can say it lacks the flag; any other
	 * finds out at attach (-EINVAL).
	 */
	if ((link_flags & FSITER_F_WITHHELD_SUMS) &&
	    has_enum_value(btf, "BPF_F_FS_ITER_EXPOSE_CACHE") &&
	    !has_enum_value(btf, "BPF_F_FS_ITER_WITHHELD_SUMS")) {
		add_missing(km, "the sums over withheld files of fs_sb iterators, for expose-totals (no BPF_F_FS_ITER_WITHHELD_SUMS in its BTF)",
			    PATCH_FS_SB);
		ret = -ENOTSUP;
	}
	return ret;
}

int kernel_check_views(const bool used[VIEW_COUNT], __u32 link_flags,
		       struct kernel_missing *km)
{
	struct btf *btf;
	int ret;

	btf = btf__load_vmlinux_btf();
	if (!btf) {
		ret = -errno;
		err("cannot read the kernel's BTF (/sys/kernel/btf/vmlinux): %s",
		    strerror(-ret));
		return ret;
	}
	ret = kernel_check_btf(btf, used, link_flags, km);
	btf__free(btf);
	return ret;
}

int kernel_check_bpffs_acl(int dirfd, const char *dir,
			   struct kernel_missing *km)
{
	int e;

	if (fgetxattr(dirfd, "system.posix_acl_access", NULL, 0) >= 0 ||
	    errno == ENODATA)
		return 0;
	e = errno;
	if (e == EOPNOTSUPP) {
		add_missing(km, "POSIX ACLs in bpffs (setfacl on it fails with EOPNOTSUPP)",
			    PATCH_ACL);
		return -ENOTSUP;
	}
	err("%s: cannot read its ACL: %s", dir, strerror(e));
	return -e;
}
