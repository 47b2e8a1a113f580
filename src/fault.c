// SPDX-License-Identifier: GPL-2.0
/*
 * Points, in the order apply passes them:
 *   mount    mounting bpffs, if it is not mounted
 *   open     each path opened (counted in order; "~" makes the helper
 *            process's lookup of that path hang, as a dead NFS server
 *            would: targets.c, which asks fault_due())
 *   load     each view loaded         } these fail their entries alone
 *   inspect  each pin in place read   }
 *   traverse each ACL grant-traverse sets (taking back, then giving)
 *   gen      making the next pin directory
 *   keep     each hard link of a kept pin (then made anew, as replaced)
 *   attach   each link created    } these three fail their entry alone
 *   pin      each pin             } (exit 3); the others fail the whole
 *   perms    each owner, mode and ACL } apply, which changes no pin
 *   swap     the rename that switches pin directories
 *   stub     loading a stub, for the first link of its kind revoked
 *   neuter   each link revoked (before its pin is given to root)
 *   cleanup  removing the old pin directory
 * (stub and neuter fail that link's neutering alone: the pin is revoked
 * and removed all the same, and the command exits non-zero); and, for
 * list and audit:
 *   read     each pin described
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "diag.h"
#include "fault.h"

#ifdef FSITER_FAULT_INJECTION
const bool fault_injection = true;

int fault_due(const char *point)
{
	static unsigned int hits;
	const char *spec = getenv("FSITER_FAULT");
	size_t len = strlen(point);
	unsigned long n = 1;
	bool kill_self;
	char *end;

	if (!spec || strncmp(spec, point, len) ||
	    (spec[len] && !strchr(":!~", spec[len])))
		return 0;
	end = (char *)spec + len;
	if (*end == ':')
		n = strtoul(end + 1, &end, 10);
	kill_self = *end == '!';
	if (__atomic_add_fetch(&hits, 1, __ATOMIC_SEQ_CST) != n)
		return 0;
	if (*end == '~')	/* hang, as a dead NFS server would; silent, */
		return 1;	/* as the caller goes on without it */
	if (kill_self) {
		info("fault injected: killed at %s:%lu", point, n);
		kill(getpid(), SIGKILL);
	}
	err("fault injected at %s:%lu", point, n);
	return -EIO;
}

int fault_at(const char *point)
{
	int ret = fault_due(point);

	while (ret > 0)
		pause();
	return ret;
}
#else
/* A production build: the environment has no say. */
const bool fault_injection = false;

int fault_due(const char *point)
{
	return 0;
}

int fault_at(const char *point)
{
	return 0;
}
#endif
