/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side of the views: each view's object, loaded at most once per
 * run, and attached once per policy entry.
 *
 * A view that shows page-cache state has two programs: the default one
 * shows it only to readers who own the file or may write it, the "all"
 * one to every reader (policy option expose-cache). Their instructions
 * differ, and so do their tags.
 */
#ifndef FSITER_VIEWS_H
#define FSITER_VIEWS_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "view_table.h"

struct view_prog {
	const struct view_desc *desc;
	struct bpf_object *obj;
	struct bpf_program *prog[VIEW_VARIANTS];	/* [VIEW_ALL]: may be NULL */
	__u32 prog_id[VIEW_VARIANTS];
	char tag[VIEW_VARIANTS][BPF_TAG_SIZE * 2 + 1];	/* hex, as bpftool shows */
};

/* Load view ID into V (once: a loaded V is left as it is). 0 or -errno. */
int view_load(struct view_prog *v, enum view_id id);
void view_unload(struct view_prog *v);
/* Attach V's program VARIANT to the open file TARGET_FD: a new link. */
int view_attach(const struct view_prog *v, enum view_variant variant,
		int target_fd, struct bpf_link **link);

#endif
