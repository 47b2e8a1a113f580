// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include "diag.h"
#include "fsiter_uapi.h"
#include "views.h"
#include "view_inode.skel.h"
#include "view_cache.skel.h"
#include "view_inode_raw.skel.h"
#include "view_mount.skel.h"

/*
 * Each skeleton has its own type; these wrappers give the registry one
 * shape: the skeleton, its checked program, and its "all" program if any.
 */
#define VIEW_SKEL_OPS(skel, checked, all)				\
static void *skel##_open(struct bpf_program **progs)			\
{									\
	struct skel *s = skel##__open_and_load();			\
									\
	if (s) {							\
		progs[VIEW_CHECKED] = s->progs.checked;			\
		progs[VIEW_ALL] = all;					\
	}								\
	return s;							\
}									\
static void skel##_close(void *s)					\
{									\
	skel##__destroy(s);						\
}

VIEW_SKEL_OPS(view_inode, fsiter_inode, s->progs.fsiter_inode_all)
VIEW_SKEL_OPS(view_cache, fsiter_cache, s->progs.fsiter_cache_all)
VIEW_SKEL_OPS(view_inode_raw, fsiter_inode_raw, NULL)
VIEW_SKEL_OPS(view_mount, fsiter_mount, NULL)

static const struct {
	void *(*open)(struct bpf_program **progs);
	void (*close)(void *skel);
	const char *prog_name[VIEW_VARIANTS];
} skel_ops[VIEW_COUNT] = {
	[VIEW_INODE] = { view_inode_open, view_inode_close,
			 { "fsiter_inode", "fsiter_inode_all" } },
	[VIEW_CACHE] = { view_cache_open, view_cache_close,
			 { "fsiter_cache", "fsiter_cache_all" } },
	[VIEW_INODE_RAW] = { view_inode_raw_open, view_inode_raw_close,
			     { "fsiter_inode_raw" } },
	[VIEW_MOUNT] = { view_mount_open, view_mount_close,
			 { "fsiter_mount" } },
};

void view_tag_hex(const unsigned char tag[BPF_TAG_SIZE],
		  char out[BPF_TAG_SIZE * 2 + 1])
{
	for (int i = 0; i < BPF_TAG_SIZE; i++)
		sprintf(out + 2 * i, "%02x", tag[i]);
}

static int prog_info(struct bpf_program *prog, __u32 *id, char *tag)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return -errno;
	*id = info.id;
	view_tag_hex(info.tag, tag);
	return 0;
}

int view_load(struct view_prog *v, enum view_id id)
{
	int ret;

	if (v->skel)
		return 0;
	v->desc = &view_table[id];
	errno = 0;
	v->skel = skel_ops[id].open(v->prog);
	if (!v->skel) {
		ret = errno ? -errno : -EINVAL;
		err("view '%s': cannot load its program: %s (run with -v for the verifier's log)",
		    v->desc->name, strerror(-ret));
		return ret;
	}
	for (int i = 0; i < VIEW_VARIANTS; i++) {
		if (!v->prog[i])
			continue;
		ret = prog_info(v->prog[i], &v->prog_id[i], v->tag[i]);
		if (ret) {
			err("view '%s': program info: %s", v->desc->name,
			    strerror(-ret));
			view_unload(v);
			return ret;
		}
		info_v("view '%s': loaded %s, program id %u tag %s",
		       v->desc->name, skel_ops[id].prog_name[i], v->prog_id[i],
		       v->tag[i]);
	}
	return 0;
}

void view_unload(struct view_prog *v)
{
	if (v->skel)
		skel_ops[v->desc->id].close(v->skel);
	v->skel = NULL;
	memset(v->prog, 0, sizeof(v->prog));
}

int view_attach(const struct view_prog *v, enum view_variant variant,
		int target_fd, struct bpf_link **link)
{
	DECLARE_LIBBPF_OPTS(bpf_iter_attach_opts, opts);
	struct fsiter_iter_link_info linfo = {};
	struct bpf_link *l;

	linfo.fs.type = v->desc->target == VIEW_TARGET_MNT ?
			FSITER_FS_ITER_MNT : FSITER_FS_ITER_INODE;
	linfo.fs.fd = target_fd;
	opts.link_info = (union bpf_iter_link_info *)&linfo;
	opts.link_info_len = sizeof(linfo);
	if (!v->prog[variant])
		return -EINVAL;
	l = bpf_program__attach_iter(v->prog[variant], &opts);
	if (!l)
		return -errno;
	*link = l;
	return 0;
}

const struct view_desc *view_by_prog_name(const char *prog_name,
					  enum view_variant *variant)
{
	/* prog info names are cut to BPF_OBJ_NAME_LEN - 1 characters */
	for (int i = 0; i < VIEW_COUNT; i++) {
		for (int j = 0; j < VIEW_VARIANTS; j++) {
			const char *n = skel_ops[i].prog_name[j];

			if (n && !strncmp(n, prog_name, BPF_OBJ_NAME_LEN - 1)) {
				if (variant)
					*variant = j;
				return &view_table[i];
			}
		}
	}
	return NULL;
}
