/* SPDX-License-Identifier: GPL-2.0 */
/* Capabilities (libcap): check what a command needs, drop the rest. */
#ifndef FSITER_PRIVS_H
#define FSITER_PRIVS_H

/* What apply, list and remove (PRIVS_APPLY), and audit (PRIVS_READ)
 * need; see privs.c for why.
 */
#define PRIVS_APPLY	0
#define PRIVS_READ	1

/*
 * Check that the process has the capabilities of SET, naming each one it
 * lacks, then keep only those in the permitted and effective sets.
 * 0, -EPERM (reported) or another negative errno.
 */
int privs_restrict(int set);

#endif
