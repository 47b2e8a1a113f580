// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of revocation (src/revoke.c) on a bpffs of its own, mounted
 * in a mount namespace of this process, with BPF maps for pins (a map is
 * pinned as a link is; this kernel needs no fs iterator): the neuter hook
 * (neuter.h) is called before the pin's owner and mode are cut, once per
 * inode in a run, never for a pin that stays (the same inode under its
 * name in the live directory), nor for one that may (the live directory
 * cannot be looked in); a hook that fails does not stop the revocation
 * nor the unlink, and is counted and said. And link_neuter() leaves a
 * pin that is no link as it is. Needs root and bpffs; skipped (77)
 * otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "diag.h"
#include "neuter.h"
#include "pindir.h"
#include "revoke.h"
#include "views.h"
#include "check.h"
#include "private_bpffs.h"

#define OWNER	2001

static char top[] = "/tmp/fsiter-test-revoke.XXXXXX";

/* What the hook saw of each pin it was called for. */
static struct call {
	char name[64];
	uid_t uid;
	mode_t mode;
} calls[16];
static int ncalls;
static const char *fail_name;	/* the hook fails for this pin */

static int fake_neuter(int fd, const char *name)
{
	struct call *c = &calls[ncalls < 16 ? ncalls++ : 15];
	struct stat st;

	snprintf(c->name, sizeof(c->name), "%s", name);
	if (!fstat(fd, &st)) {
		c->uid = st.st_uid;
		c->mode = st.st_mode & 07777;
	}
	return fail_name && !strcmp(name, fail_name) ? -EIO : 0;
}

/* link_neuter() asks for a stub only for an fs iterator link. */
static int stubs_asked;

int stub_prog_fd(enum view_target kind, int *prog_fd)
{
	stubs_asked++;
	return -ENOSYS;
}

/* TOP/DIR, made. */
static int make_dir(const char *dir)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", top, dir);
	if (mkdir(path, 0700))
		return -1;
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* A map pinned at TOP/NAME, owned by OWNER, mode 0400: a pin. */
static bool pin_at(const char *name)
{
	char path[512];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", top, name);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);
	if (fd < 0)
		return false;
	ret = bpf_obj_pin(fd, path);
	close(fd);
	return !ret && !chown(path, OWNER, OWNER) && !chmod(path, 0400);
}

/* TOP/NAME: its owner and mode, or -1 if it is not there. */
static long owner_mode(const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", top, name);
	if (stat(path, &st))
		return -1;
	return (long)st.st_uid << 16 | (st.st_mode & 07777);
}

#define GRANTED		((long)OWNER << 16 | 0400)

static bool called(const char *name, int from)
{
	for (int i = from; i < ncalls; i++)
		if (!strcmp(calls[i].name, name))
			return true;
	return false;
}

/*
 * apply's exchange: the old directory holds a pin that goes, a pin that
 * stays (a hard link of the live one) and a directory. Only the one that
 * goes is neutered, before it is given to root; and only once, though
 * apply revokes it twice (at once, then before the unlink).
 */
static void test_swap(void)
{
	char a[512], b[512];
	int cur = make_dir("cur"), old = make_dir("old"), top_fd, n;

	snprintf(a, sizeof(a), "%s/cur/kept", top);
	snprintf(b, sizeof(b), "%s/old/kept", top);
	CHECK(cur >= 0 && old >= 0 && pin_at("cur/kept") && pin_at("old/gone") &&
	      !link(a, b) && make_dir("old/sub") >= 0, "the directories: %s", strerror(errno));
	n = ncalls;
	CHECK(!tree_revoke(old, cur), "tree_revoke");
	CHECK(ncalls == n + 1 && !strcmp(calls[n].name, "gone"),
	      "the hook is called for the pin that goes, only: %d calls", ncalls - n);
	CHECK(calls[n].uid == OWNER && calls[n].mode == 0400,
	      "before its owner and mode are cut (it had %u, %04o)", calls[n].uid,
	      calls[n].mode);
	CHECK(owner_mode("old/gone") == 0, "then it is root's, mode 0000");
	CHECK(owner_mode("cur/kept") == GRANTED, "the kept pin is untouched");
	CHECK((owner_mode("old/sub") & 07777) == 0700, "a directory is made 0700");

	top_fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(!tree_remove(top_fd, "old", cur), "tree_remove");
	CHECK(ncalls == n + 1, "revoked again before the unlink, but neutered once");
	CHECK(owner_mode("old") == -1, "the old directory is gone");
	CHECK(owner_mode("cur/kept") == GRANTED, "the kept pin stays, as it was");
	CHECK(!revoke_unneutered(), "no failure counted");
	close(top_fd);
	close(old);
	close(cur);
}

/*
 * Once per run, not per process: watch applies many times, and a pin
 * revoked in a later run is neutered though an inode of that number was
 * neutered before (bpffs inode numbers wrap). Here, the same pin, given
 * back and revoked again.
 */
static void test_new_run(void)
{
	int dir = make_dir("rr"), keep = make_dir("rr-keep"), n;
	char p[512];

	snprintf(p, sizeof(p), "%s/rr/p", top);
	CHECK(dir >= 0 && keep >= 0 && pin_at("rr/p"), "the pin: %s", strerror(errno));
	revoke_run_begin();
	n = ncalls;
	CHECK(!tree_revoke(dir, keep) && ncalls == n + 1, "revoked: neutered");
	CHECK(!chown(p, OWNER, 0) && !chmod(p, 0400), "given back");
	CHECK(!tree_revoke(dir, keep) && ncalls == n + 1, "in the same run: not again");
	CHECK(!chown(p, OWNER, 0) && !chmod(p, 0400), "given back");
	revoke_run_begin();
	CHECK(!tree_revoke(dir, keep) && ncalls == n + 2, "in a new run: neutered again (%d)",
	      ncalls - n);
	close(keep);
	close(dir);
}

/*
 * The clean-up of a run killed before its exchange: the next directory in
 * the work directory holds a hard link of a live pin and a new one.
 */
static void test_interrupted(void)
{
	char a[512], b[512];
	int cur = make_dir("cur2"), work = make_dir("work"), n = ncalls;

	snprintf(a, sizeof(a), "%s/cur2/live", top);
	snprintf(b, sizeof(b), "%s/work/next/live", top);
	CHECK(cur >= 0 && work >= 0 && make_dir("work/next") >= 0 && pin_at("cur2/live") &&
	      !link(a, b) && pin_at("work/next/new"), "the directories: %s", strerror(errno));
	CHECK(!tree_empty(work, cur), "tree_empty");
	CHECK(ncalls == n + 1 && called("new", n), "only the new pin is neutered");
	CHECK(!called("live", n), "never the live one");
	CHECK(owner_mode("cur2/live") == GRANTED && owner_mode("work/next") == -1,
	      "the live pin is untouched, the work directory emptied");
	close(work);
	close(cur);
}

/* A live directory that cannot be looked in: the pin may be live. */
static void test_keep_unknown(void)
{
	int old = make_dir("old3"), keep = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int n = ncalls, ret;

	CHECK(old >= 0 && keep >= 0 && pin_at("old3/maybe"), "the directory");
	ret = tree_revoke(old, keep);
	CHECK(ret == -ENOTDIR, "the error is said: %d", ret);
	CHECK(ncalls == n, "not neutered");
	CHECK(owner_mode("old3/maybe") == GRANTED, "not revoked either");
	close(keep);
	close(old);
}

/*
 * remove, with a hook that fails: the pin is revoked and unlinked all the
 * same, the failure is counted and said, and remove fails.
 */
static void test_failure(void)
{
	unsigned int before = revoke_unneutered();
	char *msg = NULL;
	size_t len = 0;
	struct pin_dir d;
	int n = ncalls, ret;

	pindir_init(&d);
	d.cur_fd = make_dir("cur4");
	CHECK(d.cur_fd >= 0 && pin_at("cur4/bad") && pin_at("cur4/good"), "the pins");
	fail_name = "bad";
	CHECK(!pin_remove(&d, "bad"), "a link that is not neutered: its pin removed");
	CHECK(!pin_remove(&d, "good"), "and the next one");
	fail_name = NULL;
	CHECK(ncalls == n + 2 && called("bad", n) && called("good", n), "both tried");
	CHECK(owner_mode("cur4/bad") == -1 && owner_mode("cur4/good") == -1, "both unlinked");
	CHECK(revoke_unneutered() == before + 1, "one failure counted");

	diag_out = open_memstream(&msg, &len);
	diag_quiet = false;
	ret = revoke_check_neutered(before, "/sys/fs/bpf/x");
	diag_quiet = true;
	fclose(diag_out);
	diag_out = NULL;
	CHECK(ret == -EIO, "a failure of the command: %d", ret);
	CHECK(msg && strstr(msg, "/sys/fs/bpf/x: 1 revoked link could not be neutered"),
	      "said: %s", msg ? msg : "");
	free(msg);
	CHECK(!revoke_check_neutered(revoke_unneutered(), "x"), "none since: 0");
	pindir_close(&d);
}

/* A pin that is no link (a map): left, and no stub asked for. */
static void test_not_a_link(void)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/map", top);
	CHECK(pin_at("map"), "a map");
	fd = open(path, O_PATH | O_CLOEXEC);
	CHECK(fd >= 0 && !link_neuter(fd, "map"), "link_neuter on a map: 0");
	CHECK(!stubs_asked, "no stub asked for");
	close(fd);
}

int main(void)
{
	int ret;

	ret = private_bpffs(top);
	if (ret)
		return ret;
	if (!pin_at("probe")) {
		printf("skipped: cannot pin a BPF map: %s\n", strerror(errno));
		umount2(top, MNT_DETACH);
		rmdir(top);
		return 77;
	}
	diag_quiet = true;
	revoke_set_neuter(fake_neuter);
	test_swap();
	test_new_run();
	test_interrupted();
	test_keep_unknown();
	test_failure();
	test_not_a_link();
	ret = check_summary();
	umount2(top, MNT_DETACH);
	rmdir(top);
	return ret;
}
