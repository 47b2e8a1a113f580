// SPDX-License-Identifier: GPL-2.0
/* The pin directory's lock, with a bounded wait; lock.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "diag.h"
#include "lock.h"

pid_t lock_holder(int fd, char *comm, size_t size)
{
	char line[256], path[64];
	struct stat st;
	pid_t found = 0;
	FILE *f;

	snprintf(comm, size, "?");
	if (fstat(fd, &st))
		return 0;
	f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 1234 00:1f:5678 0 EOF"; waiters
	 * ("1: -> FLOCK ...") do not hold it.
	 */
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		unsigned long ino;
		char type[16];
		int pid;

		if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu", type, &pid, &maj,
			   &min, &ino) == 5 && !strcmp(type, "FLOCK") &&
		    ino == st.st_ino && makedev(maj, min) == st.st_dev &&
		    pid != getpid())
			found = pid;
	}
	fclose(f);
	if (found) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)found);
		f = fopen(path, "re");
		if (f && fgets(comm, size, f))
			comm[strcspn(comm, "\n")] = '\0';
		if (f)
			fclose(f);
	}
	return found;
}

static long wait_bound_ms(void)
{
	const char *s = getenv("FSITER_LOCK_TIMEOUT");
	char *end;
	long v;

	if (!s || !*s)
		return LOCK_WAIT_S * 1000L;
	v = strtol(s, &end, 10);
	return *end || v < 0 || v > 86400 ? LOCK_WAIT_S * 1000L : v * 1000L;
}

/* "PID 123 (apply)", or "another process" */
static const char *holder(int fd, char *buf, size_t size)
{
	char comm[64];
	pid_t pid = lock_holder(fd, comm, sizeof(comm));

	if (pid)
		snprintf(buf, size, "PID %d (%s)", (int)pid, comm);
	else
		snprintf(buf, size, "another process");
	return buf;
}

int lock_wait(int fd, const char *path, int op)
{
	struct timespec step = { 0, 100 * 1000 * 1000 };
	long waited = 0, bound = wait_bound_ms();
	char who[96];
	int ret;

	for (;;) {
		if (!flock(fd, op | LOCK_NB))
			return 0;
		ret = -errno;
		if (ret != -EWOULDBLOCK && ret != -EINTR)
			break;
		if (!waited)
			info("%s: waiting up to %ld s for the lock, held by %s", path,
			     bound / 1000, holder(fd, who, sizeof(who)));
		if (waited >= bound) {
			err("%s: still locked after %ld s, by %s; giving up", path,
			    bound / 1000, holder(fd, who, sizeof(who)));
			return -ETIMEDOUT;
		}
		nanosleep(&step, NULL);
		waited += 100;
	}
	err("%s: cannot lock it: %s", path, strerror(-ret));
	return ret;
}
