/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target kinds, one row each: what the kernel calls them, and how to
 * compare, describe and print a target of that kind. Nothing else in
 * fsiter-pin chooses between kinds. A new kind is a row here, its value
 * in view_table.h's enum view_target and its UAPI type.
 */
#ifndef FSITER_TARGET_KIND_H
#define FSITER_TARGET_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <json-c/json.h>
#include "view_table.h"

struct target;
struct pin_info;

struct target_kind {
	const char *name;	/* list --json's target.type */
	__u32 uapi_type;	/* enum fsiter_fs_iter_type */
	unsigned int feature;	/* FEAT_*: its iterator target */
	/* Is the link of PI attached to T? (PI is of this kind.) */
	bool (*same)(const struct target *t, const struct pin_info *pi);
	/* Add the members of PI's target to O (docs/output.md). */
	void (*to_json)(json_object *o, const struct pin_info *pi);
	/* "inode 12 of device 8:1": what the pin is attached to. */
	void (*describe_pin)(char *buf, size_t size, const struct pin_info *pi);
	/* "is inode 13 of 8:1": what the path names now. */
	void (*describe_target)(char *buf, size_t size, const struct target *t);
	/* list's TARGET column, from the object to_json() filled. */
	void (*brief)(char *buf, size_t size, json_object *t);
	/* The program of bpf/stub.bpf.c for this target, which prints
	 * nothing: what a revoked link runs from then on (neuter.h).
	 */
	const char *stub;
};

extern const struct target_kind target_kinds[TARGET_KINDS];

/* The kind of a link's target, from link info's type; the inode kind if
 * the type is unknown.
 */
const struct target_kind *target_kind_of_type(__u32 uapi_type);
/* The kind called NAME; the inode kind if none is. */
const struct target_kind *target_kind_named(const char *name);
/* The kind whose iterator target the kernel calls TARGET_NAME (link
 * info's iter.target_name: "fs_inode"); NULL if none is.
 */
const struct target_kind *target_kind_of_iter(const char *target_name);
/* The kind whose stub is called PROG_NAME (as truncated in prog info);
 * NULL if none is.
 */
const struct target_kind *target_kind_of_stub(const char *prog_name);

#endif
