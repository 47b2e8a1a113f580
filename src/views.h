/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side of the views: each view's skeleton, loaded at most once per
 * run, and attached once per policy entry.
 */
#ifndef FSITER_VIEWS_H
#define FSITER_VIEWS_H

#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include "view_table.h"

struct view_prog {
	const struct view_desc *desc;
	void *skel;
	struct bpf_program *prog;
	__u32 prog_id;
	char tag[BPF_TAG_SIZE * 2 + 1];	/* hex, as bpftool shows it */
};

/* Load view ID into V (once: a loaded V is left as it is). 0 or -errno. */
int view_load(struct view_prog *v, enum view_id id);
void view_unload(struct view_prog *v);
/* Attach V to the open file TARGET_FD: a new iterator link. */
int view_attach(const struct view_prog *v, int target_fd,
		struct bpf_link **link);
/* The view whose program is called PROG_NAME (as truncated in prog info). */
const struct view_desc *view_by_prog_name(const char *prog_name);
/* Hex of a program tag. */
void view_tag_hex(const unsigned char tag[BPF_TAG_SIZE],
		  char out[BPF_TAG_SIZE * 2 + 1]);

#endif
