/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The last apply of a policy, for audit --format=prometheus: when it ran
 * and whether it succeeded. apply and watch record it after each run
 * (not --dry-run) in /run/fsiter-pin/POLICY.last-apply, a JSON file named
 * after the policy's absolute path by manifest_file()
 * ("/etc/fsiter/policy.conf" gives etc-fsiter-policy.conf.last-apply),
 * written whole and renamed. Like the
 * pins and the manifest, it does not survive a reboot.
 */
#ifndef FSITER_APPLY_STATE_H
#define FSITER_APPLY_STATE_H

#include <stdbool.h>

struct apply_state {
	bool known;		/* a record was found */
	double time;		/* seconds since the epoch */
	int result;		/* apply's 0 or -errno */
};

/* Record that an apply of POLICY ended with RESULT (0 or -errno), now.
 * 0 or -errno (warned about: only the metrics need it).
 */
int apply_state_record(const char *policy, int result);
/* The last apply of POLICY into *ST (ST->known false if there is none). */
void apply_state_read(const char *policy, struct apply_state *st);

#endif
