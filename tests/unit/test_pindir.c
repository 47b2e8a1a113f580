// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the pin directory's lock (src/pindir.c) on a bpffs of its
 * own, mounted in a mount namespace of this process: list's PINDIR_TIDY
 * empties the work directory when the lock is free, then holds the lock
 * shared, as pindir.h says, so that another reader is not kept waiting
 * through its listing and an apply still is. And pindir_names() of an
 * empty pin directory and of one with names. Needs root and bpffs;
 * skipped (77) otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "diag.h"
#include "pindir.h"
#include "check.h"
#include "private_bpffs.h"

static char top[] = "/tmp/fsiter-test-pindir.XXXXXX";

/* May a second open file description take the lock of WORK with OP? */
static bool may_lock(const char *work, int op)
{
	int fd = open(work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = !flock(fd, op | LOCK_NB);
	close(fd);
	return ok;
}

static void test_tidy_then_shared(void)
{
	char pins[256], work[256], junk[300];
	struct pin_dir d;
	struct stat st;
	int ret, fd;

	snprintf(pins, sizeof(pins), "%s/pins", top);
	snprintf(work, sizeof(work), "%s/pins_staging", top);
	snprintf(junk, sizeof(junk), "%s/left", work);
	pindir_init(&d);
	ret = pindir_open(&d, pins, PINDIR_CREATE);
	CHECK(!ret, "pindir_open(PINDIR_CREATE): %d", ret);
	pindir_close(&d);
	CHECK(!mkdir(pins, 0711), "PIN_DIR, as an apply makes it: %s", strerror(errno));
	CHECK(!mkdir(junk, 0700), "what a killed run left: %s", strerror(errno));

	/* list, with the lock free: tidies, then shares. */
	ret = pindir_open(&d, pins, PINDIR_TIDY);
	CHECK(!ret, "pindir_open(PINDIR_TIDY): %d", ret);
	CHECK(stat(junk, &st) && errno == ENOENT, "the work directory was emptied");
	CHECK(may_lock(work, LOCK_SH), "another reader may look while list lists");
	CHECK(!may_lock(work, LOCK_EX), "and an apply may not change it meanwhile");
	CHECK(d.cur_fd >= 0, "PIN_DIR is open");
	pindir_close(&d);
	CHECK(may_lock(work, LOCK_EX), "closed: the lock is free");

	/* list, while another reader looks: looks beside it, tidies nothing. */
	fd = open(work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(fd >= 0 && !flock(fd, LOCK_SH), "a reader holds the lock shared");
	CHECK(!mkdir(junk, 0700), "left again");
	ret = pindir_open(&d, pins, PINDIR_TIDY);
	CHECK(!ret && !stat(junk, &st), "beside a reader: %d, nothing emptied", ret);
	CHECK(may_lock(work, LOCK_SH) && !may_lock(work, LOCK_EX), "shared");
	pindir_close(&d);
	close(fd);
}

/* The names in PIN_DIR, sorted; none, and no array, when it is empty, as
 * on a first apply (qsort() must not be given the NULL: UBSan).
 */
static void test_names(void)
{
	char pins[256], **names = NULL;
	struct pin_dir d;
	size_t n = 1;
	int ret;

	snprintf(pins, sizeof(pins), "%s/named", top);
	pindir_init(&d);
	ret = pindir_open(&d, pins, PINDIR_CREATE);
	CHECK(!ret, "pindir_open(PINDIR_CREATE): %d", ret);
	pindir_close(&d);
	CHECK(!mkdir(pins, 0711), "PIN_DIR: %s", strerror(errno));
	ret = pindir_open(&d, pins, PINDIR_LOOK);
	CHECK(!ret && d.cur_fd >= 0, "pindir_open(PINDIR_LOOK): %d", ret);
	ret = pindir_names(&d, &names, &n);
	CHECK(!ret && !n && !names, "empty: %d, %zu names", ret, n);
	CHECK(!mkdirat(d.cur_fd, "b", 0700) && !mkdirat(d.cur_fd, "a", 0700),
	      "two names: %s", strerror(errno));
	ret = pindir_names(&d, &names, &n);
	CHECK(!ret && n == 2 && !strcmp(names[0], "a") && !strcmp(names[1], "b"),
	      "two names, sorted: %d, %zu names", ret, n);
	pindir_free_names(names, n);
	pindir_close(&d);
}

int main(void)
{
	int ret;

	ret = private_bpffs(top);
	if (ret)
		return ret;
	diag_quiet = true;
	test_tidy_then_shared();
	test_names();
	ret = check_summary();
	umount2(top, MNT_DETACH);
	rmdir(top);
	return ret;
}
