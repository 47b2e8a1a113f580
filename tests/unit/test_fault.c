// SPDX-License-Identifier: GPL-2.0
/*
 * src/fault.c, built twice: as a test build (FSITER_FAULT_INJECTION,
 * test_fault_on) it obeys FSITER_FAULT; as a production build
 * (test_fault_off) it ignores it.
 */
#include <errno.h>
#include <stdlib.h>
#include "diag.h"
#include "fault.h"
#include "check.h"

int main(void)
{
#ifdef FSITER_FAULT_INJECTION
	const int want = -EIO, want_hang = 1;
#else
	const int want = 0, want_hang = 0;
#endif

	diag_quiet = true;
	CHECK(fault_at("perms") == 0, "no FSITER_FAULT: no fault");
	setenv("FSITER_FAULT", "perms:2", 1);
	CHECK(fault_at("swap") == 0, "another point: no fault");
	CHECK(fault_at("perms") == 0, "FSITER_FAULT=perms:2, the first: no fault");
	CHECK(fault_at("perms") == want, "FSITER_FAULT=perms:2, the second: want %d", want);
	/* A hang is the caller's to make (targets.c's helper); the count
	 * goes on from the two passes above.
	 */
	setenv("FSITER_FAULT", "open:4~", 1);
	CHECK(fault_due("open") == 0, "FSITER_FAULT=open:4~, the third pass: no fault");
	CHECK(fault_due("open") == want_hang, "FSITER_FAULT=open:4~, the fourth: want %d",
	      want_hang);
	return check_summary();
}
