// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/xattr.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "diag.h"
#include "kernel_support.h"
#include "target_kind.h"

#define PATCH_FS_INODE	"0004-bpf-Introduce-the-fs_inode-iterator.patch"
#define PATCH_FS_MNT	"0007-bpf-Introduce-the-fs_mnt-iterator.patch"
#define PATCH_LINK_INFO	"0009-bpf-Report-fs-iterator-targets-in-link-info-and-fdin.patch"
#define PATCH_ACL	"0011-bpf-Support-POSIX-ACLs-in-bpffs.patch"
#define PATCH_OBSERVE	"0012-bpf-Let-fs_inode-programs-apply-the-page-cache-visib.patch"
#define PATCH_FOLIOS	"0014-bpf-Add-bpf_filemap_get_folios-to-list-folios-in-one.patch"

/* A function in BTF: libbpf finds iterator targets as bpf_iter_<target>. */
static const struct need_func {
	unsigned int feature;	/* enum kernel_feature */
	const char *func;
	const char *what;
	const char *patch;
} need_funcs[] = {
	{ FEAT_FS_INODE, "bpf_iter_fs_inode", "the iter/fs_inode target", PATCH_FS_INODE },
	{ FEAT_FOLIOS, "bpf_filemap_get_folios", "the one-pass folio walk", PATCH_FOLIOS },
	{ FEAT_FS_MNT, "bpf_iter_fs_mnt", "the iter/fs_mnt target", PATCH_FS_MNT },
	{ FEAT_OBSERVE, "bpf_filemap_may_observe", "the page-cache visibility check",
	  PATCH_OBSERVE },
};

/* Is there a member NAME in struct ID, looking into anonymous members? */
static bool has_member(const struct btf *btf, __u32 id, const char *name,
		       int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_composite(t) || depth > 4)
		return false;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && !strcmp(n, name))
			return true;
		if ((!n || !*n) && has_member(btf, m->type, name, depth + 1))
			return true;
	}
	return false;
}

/* bpf_link_info.iter.fs, from the link info patch. */
static bool has_fs_link_info(const struct btf *btf)
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
			if (n && !strcmp(n, "iter"))
				return has_member(btf, um->type, "fs", 0);
		}
	}
	return false;
}

int kernel_check_views(const bool used[VIEW_COUNT])
{
	unsigned int features = 0;
	struct btf *btf;
	int ret = 0;

	btf = btf__load_vmlinux_btf();
	if (!btf) {
		ret = -errno;
		err("cannot read the kernel's BTF (/sys/kernel/btf/vmlinux): %s",
		    strerror(-ret));
		return ret;
	}
	for (int v = 0; v < VIEW_COUNT; v++)
		if (used[v])
			features |= view_table[v].features |
				    target_kinds[view_table[v].target].feature;
	for (size_t i = 0; i < sizeof(need_funcs) / sizeof(need_funcs[0]); i++) {
		const struct need_func *n = &need_funcs[i];

		if (!(features & n->feature) ||
		    btf__find_by_name_kind(btf, n->func, BTF_KIND_FUNC) >= 0)
			continue;
		err("this kernel lacks %s (no %s in its BTF); kernel/patches/%s provides it",
		    n->what, n->func, n->patch);
		ret = -ENOTSUP;
	}
	if (!has_fs_link_info(btf)) {
		err("this kernel lacks link info for fs iterators (no bpf_link_info.iter.fs in its BTF); kernel/patches/%s provides it",
		    PATCH_LINK_INFO);
		ret = -ENOTSUP;
	}
	btf__free(btf);
	return ret;
}

int kernel_check_bpffs_acl(int dirfd, const char *dir)
{
	int e;

	if (fgetxattr(dirfd, "system.posix_acl_access", NULL, 0) >= 0 ||
	    errno == ENODATA)
		return 0;
	e = errno;
	if (e == EOPNOTSUPP) {
		err("%s: this bpffs does not support POSIX ACLs, which the policy needs; kernel/patches/%s provides them",
		    dir, PATCH_ACL);
		return -ENOTSUP;
	}
	err("%s: cannot read its ACL: %s", dir, strerror(e));
	return -e;
}
