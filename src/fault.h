/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection for tests: FSITER_FAULT=POINT[:N][!|~] makes the Nth
 * time (default 1st) that apply passes POINT fail with EIO, with "!" kill
 * the process there (SIGKILL), as a crash would, or with "~" hang there
 * (a thread that must be given up on). The points are listed in fault.c.
 * Without FSITER_FAULT this does nothing; and in a build without the CMake
 * option FSITER_FAULT_INJECTION (the default, and the Debian package's),
 * FSITER_FAULT is ignored: a production binary takes no orders from the
 * environment of whoever runs it.
 */
#ifndef FSITER_FAULT_H
#define FSITER_FAULT_H

#include <stdbool.h>

/* Whether this build obeys FSITER_FAULT. */
extern const bool fault_injection;

/* 0, or -EIO when the fault for POINT is due (reported); hangs there for
 * "~".
 */
int fault_at(const char *point);
/* The same, but a hang ("~") is the caller's to make: 1 then. */
int fault_due(const char *point);

#endif
