/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side of the views: each view's object, loaded at most once per
 * run, and attached once per policy entry.
 *
 * A view has one program. A view that takes top=N (VIEW_TAKES_TOP) has
 * it in the program's read-only data (section .rodata.param, set before
 * loading): iterator links have no cookie on 6.1, so each distinct N is a
 * program of its own, loaded once per run like a view.
 *
 * The kernel shows page-cache state only to
 * readers who own the file or may write it, unless the link was attached
 * with FSITER_F_EXPOSE_CACHE (policy option expose-cache): the same
 * program, a different link.
 */
#ifndef FSITER_VIEWS_H
#define FSITER_VIEWS_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "view_table.h"

/*
 * NULL in a build with the views; in one without (views_none.c), why not:
 * "built with FSITER_BPF=OFF". There view_load() and stub_prog_fd() fail,
 * saying so.
 */
extern const char *const views_missing;

struct view_prog {
	const struct view_desc *desc;
	struct bpf_object *obj;
	struct bpf_program *prog;
	__u32 top;			/* its top=N, 0 if it takes none */
	__u32 prog_id;
	char tag[BPF_TAG_SIZE * 2 + 1];	/* hex, as bpftool shows */
};

/* Load view ID with TOP (0 for a view that takes none) into V (once: a
 * loaded V is left as it is). 0 or -errno.
 */
int view_load(struct view_prog *v, enum view_id id, __u32 top);
void view_unload(struct view_prog *v);
/*
 * Attach V's program to the open file TARGET_FD, with LINK_FLAGS
 * (FSITER_F_*): a new link.
 */
int view_attach(const struct view_prog *v, __u32 link_flags, int target_fd,
		struct bpf_link **link);

/*
 * The stub of target kind KIND (bpf/stub.bpf.c: prints nothing), for
 * neuter.h, into *PROG_FD: loaded on first use and kept for the run; a
 * load that failed is said once and not tried again. 0 or -errno.
 */
int stub_prog_fd(enum view_target kind, int *prog_fd);

#endif
