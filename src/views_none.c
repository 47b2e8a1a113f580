// SPDX-License-Identifier: GPL-2.0
/*
 * views.h in a build without the views (-DFSITER_BPF=OFF: no vmlinux.h
 * of our kernel to build them against): nothing to load. apply and watch
 * refuse at once (cmd_need_views()); audit compares everything but the
 * programs (plan.c); a pin that remove or list revokes is revoked all
 * the same, its link not neutered: said and counted, as any link whose
 * stub did not load.
 */
#include <errno.h>
#include "diag.h"
#include "target_kind.h"
#include "views.h"

const char *const views_missing = "built with FSITER_BPF=OFF";

int view_load(struct view_prog *v, enum view_id id, __u32 top)
{
	err("view '%s': this build has no views (%s)", view_table[id].name,
	    views_missing);
	return -ENOPKG;
}

void view_unload(struct view_prog *v)
{
	v->obj = NULL;
	v->prog = NULL;
}

int view_attach(const struct view_prog *v, __u32 link_flags, int target_fd,
		struct bpf_link **link)
{
	return -ENOPKG;
}

int stub_prog_fd(enum view_target kind, int *prog_fd)
{
	static bool said[TARGET_KINDS];

	if (!said[kind])
		err("stub '%s': cannot load it: this build has no views (%s)",
		    target_kinds[kind].stub, views_missing);
	said[kind] = true;
	return -ENOPKG;
}
