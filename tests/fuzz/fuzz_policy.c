// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the policy parser and validator on arbitrary bytes,
 * as a main file and as a drop-in that overrides it, with the checks of
 * fuzz_check.h on every message and every policy. Build and run with
 * tests/fuzz/run.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p;
	size_t half = size / 2;
	int ret;

	if (!diag_out)
		sink_open();
	policy_init(&p);
	/* The whole input as one file, then its second half as a drop-in:
	 * that exercises override by name and settings twice.
	 */
	ret = policy_parse_buf(&p, "fuzz.conf", (const char *)data, size);
	ret = policy_parse_buf(&p, "fuzz.d/10.conf", (const char *)data + half,
			       size - half) ?: ret;
	check_parsed(&p);
	/* Validate whatever parsed, as far as it goes. */
	if (!policy_validate(&p) && !ret)
		check_valid(&p);
	sink_done();
	policy_free(&p);
	return 0;
}
