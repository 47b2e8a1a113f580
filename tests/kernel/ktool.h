/* SPDX-License-Identifier: GPL-2.0 */
/* fsiter-ktool's parts: a test helper for the kernel series. */
#ifndef KTOOL_H
#define KTOOL_H

#include <bpf/libbpf.h>

/* Open OBJ, load PROG alone; NULL after a message naming what failed. */
struct bpf_object *ktool_load(const char *obj_path, const char *prog_name,
			      struct bpf_program **progp);

/* fsiter-ktool race: the exit status. */
int ktool_race(const char *obj_path, const char *prog_name, const char *dir,
	       const char *rounds);

#endif
