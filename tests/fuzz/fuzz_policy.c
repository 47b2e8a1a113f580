// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the policy parser and validator on arbitrary bytes,
 * as a main file and as a drop-in that overrides it. Build and run with
 * tests/fuzz/run.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p;
	size_t half = size / 2;

	diag_quiet = true;
	policy_init(&p);
	/* The whole input as one file, then its second half as a drop-in:
	 * that exercises override by name and settings twice.
	 */
	policy_parse_buf(&p, "fuzz.conf", (const char *)data, size);
	policy_parse_buf(&p, "fuzz.d/10.conf", (const char *)data + half,
			 size - half);
	policy_validate(&p);
	for (size_t i = 0; i < p.nr_entries; i++)
		policy_find(&p, p.entries[i].name);
	policy_free(&p);
	return 0;
}
