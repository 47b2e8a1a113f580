// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of grant-traverse's record (src/traverse_record.c, through
 * reach_check()) on a bpffs of its own (0700, as systemd mounts
 * /sys/fs/bpf), mounted in a mount namespace of this process, with the
 * records in a directory of the test's:
 *  - the record names an entry before its ACL is set: at the moment
 *    apply would set it (the fault point "traverse", here a hook of the
 *    test's), the entry is recorded and not yet in the ACL, which is
 *    what a run killed there leaves; the next apply takes back nothing
 *    that is not there, and says nothing is wrong; and forgets such a
 *    record even while a reader needs it, so that the same entry made
 *    by hand later is not taken back;
 *  - two pin directories under one parent: one policy dropping a reader
 *    does not take back an entry the other's readers need (a group
 *    named, or a user of that group), and the last one to drop it does;
 *  - the record's lock is shared by every pin directory: an apply waits
 *    for it, and gives up after FSITER_LOCK_TIMEOUT;
 *  - a record an older fsiter-pin kept per pin directory is taken over;
 *  - audit names a search entry that no reader of the policy, nor of
 *    another pin directory by the record, needs, and o+x that nobody's
 *    pin for everyone asks for (reach_extra.c);
 *  - grant-traverse gives nothing on a directory that a user could
 *    replace (its own, or root's in a directory it may write), nor
 *    through a link swapped in for it while apply runs, and takes
 *    nothing back there;
 *  - the readers of a pin directory that is gone count for nothing
 *    (audit names them, apply forgets them), nor do those of one whose
 *    pins are all removed (traverse_forget());
 *  - x on the mask is kept while a reader needs a named entry relying
 *    on it, grant-traverse's or an administrator's;
 *  - o+x, or the mask's x, that a reader gets through by (a user of
 *    another pin directory, a group through group::) is not taken back,
 *    nor called extra by audit;
 *  - a record that cannot be read whole (bad JSON, an id out of range)
 *    stops grant-traverse alone: nothing is given or taken back, the
 *    record stays as it is, and the readers are checked as they are.
 * Needs root and bpffs; skipped (77) otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <acl/libacl.h>
#include <linux/magic.h>
#include "fault.h"
#include "manifest.h"
#include "policy.h"
#include "reach.h"
#include "traverse.h"
#include "check.h"
#include "private_bpffs.h"

#define GROUP	2100	/* no such group is needed: a reader by number */
#define GROUP2	2101
#define NOBODY	65534

static char top[] = "/tmp/fsiter-test-traverse.XXXXXX";
static char run[] = "/tmp/fsiter-test-traverse-run.XXXXXX";

/* What the hook saw at each "traverse" point: is the entry recorded, is
 * it in the ACL?
 */
static struct { bool recorded, in_acl; int calls; } seen;
static char watch_text[64];	/* the entry the hook looks for: "group:2100:--x" */

/* TOP's access ACL as text, in BUF ("" if it cannot be read). */
static const char *acl_text(char *buf, size_t size)
{
	acl_t acl = acl_get_file(top, ACL_TYPE_ACCESS);
	char *s = acl ? acl_to_any_text(acl, NULL, ',', TEXT_NUMERIC_IDS) : NULL;

	snprintf(buf, size, "%s", s ?: "");
	acl_free(s);
	acl_free(acl);
	return buf;
}

/* The record's text, in BUF ("" if there is none). */
static const char *record_text(char *buf, size_t size)
{
	char path[512];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/.grant-traverse.json", run);
	buf[0] = '\0';
	f = fopen(path, "re");
	if (f) {
		n = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Does the record name DIR in what it added? */
static bool recorded_in(const char *dir)
{
	char text[8192], want[600];

	record_text(text, sizeof(text));
	snprintf(want, sizeof(want), "\"%s\"", dir);
	return strstr(text, want);
}

/* Does the record have an added entry of TOP with TAG and ID? */
static bool recorded(char tag, unsigned int id)
{
	char text[8192], want[600];
	char *p, *q;

	record_text(text, sizeof(text));
	p = strstr(text, "\"added\"");
	q = p ? strstr(p, "\"readers\"") : NULL;
	if (q)
		*q = '\0';
	snprintf(want, sizeof(want), "\"dir\":\"%s\",\"tag\":\"%c\",\"id\":%u", top, tag, id);
	/* JSON_C_TO_STRING_PRETTY: compare without the blanks. */
	for (char *s = p ?: text, *d = s;; s++) {
		if (*s != ' ' && *s != '\n')
			*d++ = *s;
		if (!*s)
			break;
	}
	return p && strstr(p, want);
}

/* The engine's fault point: here, a look at what a kill would leave. */
const bool fault_injection = false;

/* With SWAP_DIR set, the hook swaps that directory for a symbolic link
 * to SWAP_TO (once): a user racing apply, in a directory it may write.
 */
static char swap_dir[300], swap_to[300];

static void swap(void)
{
	char old[320];

	snprintf(old, sizeof(old), "%s.old", swap_dir);
	if (rename(swap_dir, old) || symlink(swap_to, swap_dir))
		perror("swap");
	swap_dir[0] = '\0';
}

int fault_at(const char *point)
{
	char buf[1024];

	if (!strcmp(point, "traverse") && swap_dir[0])
		swap();
	if (strcmp(point, "traverse") || !watch_text[0])
		return 0;
	seen.calls++;
	seen.recorded = recorded('g', GROUP);
	seen.in_acl = strstr(acl_text(buf, sizeof(buf)), watch_text);
	return 0;
}

static struct policy_entry entry(mode_t mode, uid_t uid, gid_t gid)
{
	return (struct policy_entry){ .loc = { "t.conf", 1 }, .name = "p",
				      .mode = mode, .uid = uid, .gid = gid };
}

static struct reach_changes changes;	/* of the last apply */

/* apply's check of PIN_DIR (TOP/NAME) for the N entries E, with GT. */
static int apply_gt(const char *name, enum grant_traverse gt,
		    const struct policy_entry *e, size_t n)
{
	const struct policy_entry *es[4];
	char pin_dir[256];
	bool stopped[4];

	snprintf(pin_dir, sizeof(pin_dir), "%s/%s", top, name);
	for (size_t i = 0; i < n; i++)
		es[i] = &e[i];
	return reach_check(es, n, gt, pin_dir, false, NULL, NULL, &changes, stopped);
}

static int apply(const char *name, const struct policy_entry *e, size_t n)
{
	return apply_gt(name, GRANT_TRAVERSE_YES, e, n);
}

/* TOP back to its mode alone, 0700: no ACL entries. */
static int acl_reset(void)
{
	acl_t acl = acl_from_mode(0700);
	int ret = acl && !acl_set_file(top, ACL_TYPE_ACCESS, acl) ? 0 : -errno;

	acl_free(acl);
	return ret;
}

static bool acl_has(const char *what)
{
	char buf[1024];

	return strstr(acl_text(buf, sizeof(buf)), what);
}

static void test_record_first(void)
{
	struct policy_entry g = entry(0440, 0, GROUP);
	int ret;

	snprintf(watch_text, sizeof(watch_text), "group:%u:--x", GROUP);
	ret = apply("a", &g, 1);
	CHECK(!ret, "apply: %s", strerror(-ret));
	CHECK(seen.calls == 1, "one ACL set: %d", seen.calls);
	CHECK(seen.recorded, "the entry is recorded before the ACL is set");
	CHECK(!seen.in_acl, "and is not in the ACL yet at that point");
	CHECK(acl_has(watch_text), "then it is in the ACL");

	/* A run killed there: recorded, not in the ACL. The next apply
	 * (which needs it no more) takes back what is not there: nothing.
	 */
	CHECK(!acl_reset(), "the entry removed, as if never set");
	ret = apply("a", NULL, 0);
	CHECK(!ret, "the next apply: %s", strerror(-ret));
	CHECK(!recorded('g', GROUP), "and forgets the entry");
	watch_text[0] = '\0';
}

/* A record of an entry that is not there, though a reader needs it (it
 * gets through otherwise): forgotten, so that the same entry made by hand
 * later is not taken back.
 */
static void test_absent_record(void)
{
	struct policy_entry g = entry(0440, 0, GROUP);
	char want[64], text[128];
	acl_t acl;
	int ret;

	snprintf(want, sizeof(want), "group:%u:--x", GROUP);
	ret = apply("a", &g, 1);
	CHECK(!ret && acl_has(want) && recorded('g', GROUP), "given and recorded (%d)", ret);
	/* Killed before the ACL was set; others may search TOP meanwhile. */
	CHECK(!acl_reset() && !chmod(top, 0701), "the entry not there, o+x");
	ret = apply("a", &g, 1);
	CHECK(!ret && !recorded('g', GROUP), "the next apply forgets the record (%d)", ret);
	/* An administrator adds the same entry by hand. */
	snprintf(text, sizeof(text), "u::rwx,g::---,g:%u:--x,m::--x,o::--x", GROUP);
	acl = acl_from_text(text);
	CHECK(acl && !acl_set_file(top, ACL_TYPE_ACCESS, acl), "g:%u:x by hand", GROUP);
	acl_free(acl);
	ret = apply("a", NULL, 0);
	CHECK(!ret && acl_has(want), "a drops its reader: the hand-made entry stays (%d)", ret);
	chmod(top, 0700);
	acl_reset();
}

/* Two pin directories under TOP: neither takes back what the other needs. */
static void test_shared_parent(void)
{
	struct policy_entry g = entry(0440, 0, GROUP);
	struct policy_entry u = entry(0400, NOBODY, 0);
	struct policy_entry ng = entry(0440, 0, NOBODY);
	char want[64];
	int ret;

	snprintf(want, sizeof(want), "group:%u:--x", GROUP);
	ret = apply("a", &g, 1) ?: apply("b", &g, 1);
	CHECK(!ret, "a and b grant group %u: %s", GROUP, strerror(-ret));
	CHECK(acl_has(want), "a added g:%u:x", GROUP);
	ret = apply("a", NULL, 0);
	CHECK(!ret && acl_has(want), "a drops it, b needs it: it stays (%d)", ret);
	CHECK(recorded('g', GROUP), "and stays recorded");
	ret = apply("b", NULL, 0);
	CHECK(!ret && !acl_has(want), "b drops it too: taken back (%d)", ret);
	CHECK(!recorded('g', GROUP), "and forgotten");

	/* b's reader is a user who gets through by its group's entry. */
	if (!getpwuid(NOBODY)) {
		printf("skip: no user %d\n", NOBODY);
		return;
	}
	snprintf(want, sizeof(want), "group:%u:--x", NOBODY);
	ret = apply("a", &ng, 1) ?: apply("b", &u, 1);
	CHECK(!ret && acl_has(want), "a gives g:%u:x, b's user %u gets through by it (%d)",
	      NOBODY, NOBODY, ret);
	CHECK(!acl_has("user:65534:"), "so b adds nothing");
	ret = apply("a", NULL, 0);
	CHECK(!ret && acl_has(want), "a drops it: it stays, for b's user (%d)", ret);
	ret = apply("b", NULL, 0);
	CHECK(!ret && !acl_has(want), "b drops its user: taken back (%d)", ret);
}

/* An apply waits for the record's lock, whoever holds it. */
static void test_lock(void)
{
	struct policy_entry g = entry(0440, 0, GROUP2);
	char path[512];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/.grant-traverse.lock", run);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && !flock(fd, LOCK_EX), "another apply holds the lock: %s",
	      strerror(errno));
	setenv("FSITER_LOCK_TIMEOUT", "1", 1);
	ret = apply("c", &g, 1);
	CHECK(ret == -ETIMEDOUT, "c, another pin directory, waits and gives up: %d", ret);
	CHECK(!acl_has("group:2101:"), "having changed nothing");
	close(fd);
	ret = apply("c", &g, 1);
	CHECK(!ret && acl_has("group:2101:--x"), "once free, it applies: %d", ret);
	unsetenv("FSITER_LOCK_TIMEOUT");
	ret = apply("c", NULL, 0);
	CHECK(!ret && !acl_has("group:2101:"), "and takes it back: %d", ret);
}

/* A record that an older fsiter-pin kept for one pin directory. */
static void test_old_record(void)
{
	char path[PATH_MAX], pin_dir[256], text[600];
	struct stat st;
	acl_t acl;
	FILE *f;
	int ret;

	snprintf(pin_dir, sizeof(pin_dir), "%s/a", top);
	CHECK(!manifest_path(pin_dir, ".traverse.json", path), "its name");
	f = fopen(path, "we");
	CHECK(f, "%s: %s", path, strerror(errno));
	if (!f)
		return;
	fprintf(f, "[ { \"dir\": \"%s\", \"tag\": \"g\", \"id\": %u } ]\n", top, GROUP2);
	fclose(f);
	snprintf(text, sizeof(text), "u::rwx,g::---,g:%u:--x,m::--x,o::---", GROUP2);
	acl = acl_from_text(text);
	CHECK(acl && !acl_set_file(top, ACL_TYPE_ACCESS, acl), "the entry it added");
	acl_free(acl);
	ret = apply("a", NULL, 0);
	CHECK(!ret && !acl_has("group:2101:"), "taken back by the next apply: %d", ret);
	CHECK(stat(path, &st) && errno == ENOENT, "and the old record is gone");
	acl_reset();
}

static int nextra, nstale;
static char extra[512];

/* audit's extra-search findings on TOP (a host's /tmp may be a tmpfs),
 * and in NSTALE those of pin directories that are gone.
 */
static void keep_extra(const struct reach_extra *x, void *arg)
{
	nstale += !!strstr(x->detail, "which no longer exists");
	if (strcmp(x->dir, top))
		return;
	nextra++;
	snprintf(extra, sizeof(extra), "%s", x->detail);
}

static int audit(const struct policy_entry *e, size_t n)
{
	const struct policy_entry *es[4];
	char pin_dir[256];
	int ret;

	snprintf(pin_dir, sizeof(pin_dir), "%s/a", top);
	for (size_t i = 0; i < n; i++)
		es[i] = &e[i];
	nextra = 0;
	nstale = 0;
	extra[0] = '\0';
	ret = reach_extra_search(es, n, pin_dir, keep_extra, NULL);
	return ret ?: nextra;
}

/* What audit says of search permissions on TOP that no reader needs. */
static void test_audit_extra(void)
{
	struct policy_entry g = entry(0440, 0, GROUP), o = entry(0444, 0, 0);
	char text[600], want[600];
	acl_t acl;

	snprintf(text, sizeof(text), "u::rwx,g::---,g:%u:--x,m::--x,o::---", GROUP);
	acl = acl_from_text(text);
	CHECK(acl && !acl_set_file(top, ACL_TYPE_ACCESS, acl), "g:%u:x by hand", GROUP);
	acl_free(acl);
	CHECK(audit(&g, 1) == 0, "a reader of the policy needs it: %s", extra);
	CHECK(audit(NULL, 0) == 1, "no reader needs it: one finding, %d", nextra);
	snprintf(want, sizeof(want), "g:%u has search permission (x), which no reader of this policy nor of another pin directory needs; 'setfacl -x g:%u %s' would take it away",
		 GROUP, GROUP, top);
	CHECK(!strcmp(extra, want), "saying what and how: %s", extra);
	CHECK(!apply("b", &g, 1), "b, another pin directory, grants the group");
	CHECK(audit(NULL, 0) == 0, "so a's audit finds nothing to say: %s", extra);
	CHECK(!apply("b", NULL, 0), "b drops it");
	CHECK(audit(NULL, 0) == 1, "a's audit finds it again: %s", extra);
	CHECK(!acl_reset() && !chmod(top, 0701), "o+x on the topmost directory");
	CHECK(audit(&g, 1) == 1 && strstr(extra, "every user has search permission (o+x)") &&
	      strstr(extra, "'chmod o-x "), "o+x that no policy wants: %s", extra);
	CHECK(audit(&o, 1) == 0, "wanted by a pin for everyone: %s", extra);
	chmod(top, 0700);
}

/* Readers of a pin directory that is gone, or has no pins left. */
static void test_stale_readers(void)
{
	struct policy_entry g = entry(0440, 0, GROUP2);
	char s[300], w[320], text[8192], want[64];
	int ret;

	snprintf(want, sizeof(want), "group:%u:--x", GROUP2);
	snprintf(s, sizeof(s), "%s/s", top);
	CHECK(!mkdir(s, 0711), "%s", s);
	ret = apply("s", &g, 1);
	CHECK(!ret && acl_has(want), "s grants g:%u (%d)", GROUP2, ret);
	CHECK(audit(NULL, 0) == 0 && !nstale, "a's audit: s needs it (%s)", extra);
	CHECK(!rmdir(s), "then s is removed");
	CHECK(audit(NULL, 0) == 1, "a's audit: nothing needs it now (%d)", nextra);
	CHECK(nstale == 1, "and s's readers are stale (%d)", nstale);
	ret = apply("a", NULL, 0);
	CHECK(!ret && !acl_has(want), "a's apply takes it back (%d)", ret);
	CHECK(!strstr(record_text(text, sizeof(text)), s), "and forgets s's readers");

	/* remove --all: the pin directory stays, its readers go. */
	CHECK(!mkdir(s, 0711), "%s again", s);
	ret = apply("s", &g, 1);
	CHECK(!ret && acl_has(want), "s grants g:%u again (%d)", GROUP2, ret);
	ret = traverse_forget(s);
	CHECK(!ret && !strstr(record_text(text, sizeof(text)), s),
	      "s has no pins left: its readers are forgotten (%d)", ret);
	ret = apply("a", NULL, 0);
	CHECK(!ret && !acl_has(want), "so a's apply takes it back (%d)", ret);
	rmdir(s);

	/* A first apply: its readers are recorded before its pin directory
	 * exists, but its work directory is there; another apply meanwhile
	 * must keep them.
	 */
	snprintf(w, sizeof(w), "%s/s%s", top, POLICY_WORK_SUFFIX);
	CHECK(!mkdir(s, 0711), "%s for a first apply", s);
	ret = apply("s", &g, 1);
	CHECK(!ret && acl_has(want), "s grants g:%u (%d)", GROUP2, ret);
	CHECK(!rename(s, w), "s is only its work directory, as in a first apply");
	ret = apply("a", NULL, 0);
	CHECK(!ret && acl_has(want), "a's apply keeps what s's first apply needs (%d)", ret);
	CHECK(strstr(record_text(text, sizeof(text)), s), "and s's readers");
	rmdir(w);
	acl_reset();
}

static int acl_set_text(const char *text)
{
	acl_t acl = acl_from_text(text);
	int ret = acl && !acl_set_file(top, ACL_TYPE_ACCESS, acl) ? 0 : -errno;

	acl_free(acl);
	return ret;
}

/* x on the mask, raised by 'others', for an entry grant-traverse did not
 * add: kept while a reader of any pin directory needs that entry.
 */
static void test_mask_needed(void)
{
	struct policy_entry g = entry(0440, 0, GROUP), g3 = entry(0440, 0, 2102);
	char e[300];
	int ret;

	snprintf(e, sizeof(e), "%s/e", top);
	CHECK(!mkdir(e, 0711), "%s", e);
	/* An administrator's g:2100:x, masked off (after a chmod 700). */
	CHECK(!acl_set_text("u::rwx,g::---,g:2100:--x,m::---,o::---"), "masked entry");
	ret = apply_gt("b", GRANT_TRAVERSE_OTHERS, &g, 1);
	CHECK(!ret && acl_has("mask::--x") && changes.given == 1,
	      "b (others) raises the mask for g:2100 (%d, given %zu)", ret, changes.given);
	ret = apply_gt("b", GRANT_TRAVERSE_OTHERS, &g, 1);
	CHECK(!ret && changes.given == 0 && changes.taken == 0,
	      "b again, unchanged: nothing taken back nor given (given %zu, taken %zu)",
	      changes.given, changes.taken);
	ret = apply("a", NULL, 0);
	CHECK(!ret && acl_has("mask::--x"), "a, no readers, leaves the mask b needs (%d)", ret);
	ret = apply_gt("b", GRANT_TRAVERSE_OTHERS, NULL, 0);
	CHECK(!ret && acl_has("mask::---"), "b drops g:2100: x taken off the mask (%d)", ret);

	/* b raises the mask for its own g:2102; e ('yes') relies on the
	 * administrator's g:2100 through it, adding nothing.
	 */
	ret = apply_gt("b", GRANT_TRAVERSE_OTHERS, &g3, 1) ?: apply("e", &g, 1);
	CHECK(!ret && acl_has("mask::--x"), "b raises the mask, e gets through (%d)", ret);
	ret = apply_gt("b", GRANT_TRAVERSE_OTHERS, NULL, 0);
	CHECK(!ret && acl_has("mask::--x") && !acl_has("group:2102:"),
	      "b drops g:2102: its entry goes, the mask e needs stays (%d)", ret);
	ret = apply("e", &g, 1);
	CHECK(!ret, "e's next apply still gets through (%d)", ret);
	ret = apply("e", NULL, 0);
	CHECK(!ret && acl_has("mask::---"), "e drops it: the mask's x goes (%d)", ret);
	rmdir(e);
	acl_reset();
}

/*
 * What a reader gets through by, though no record names it for that
 * reader: o+x that a pin for everyone asked for, a user of another pin
 * directory relying on it; x on the mask, raised for one group, that
 * another group relies on through group:: (TOP's owning group). Neither
 * is taken back while relied on, and audit does not call it extra.
 */
static void test_relied_on(void)
{
	struct policy_entry o = entry(0444, 0, 0), u = entry(0400, NOBODY, 0);
	struct policy_entry g = entry(0440, 0, GROUP), g2 = entry(0440, 0, GROUP2);
	struct policy_entry both[] = { g, g2 };
	char want[64];
	int ret;

	if (!getpwuid(NOBODY)) {
		printf("skip: no user %d\n", NOBODY);
		return;
	}
	snprintf(want, sizeof(want), "user:%u:--x", NOBODY);
	ret = apply_gt("a", GRANT_TRAVERSE_OTHERS, &o, 1) ?: apply("b", &u, 1);
	CHECK(!ret && acl_has("other::--x") && !acl_has(want),
	      "a gives o+x for everyone; b's user gets through by it, adding nothing (%d)", ret);
	ret = apply_gt("a", GRANT_TRAVERSE_OTHERS, NULL, 0);
	CHECK(!ret && acl_has("other::--x"), "a drops everyone: o+x stays, b's user relies on it (%d)",
	      ret);
	CHECK(audit(NULL, 0) == 0, "and a's audit does not call it extra: %s", extra);
	ret = apply("b", &u, 1);
	CHECK(!ret && !acl_has("other::--x") && acl_has(want),
	      "b's next apply takes o+x back and gives its user an entry (%d)", ret);
	ret = apply("b", NULL, 0);
	CHECK(!ret && !acl_has(want), "b drops its user: the entry goes (%d)", ret);

	/* group:: through the mask that 'others' raised for g:GROUP. */
	CHECK(!chown(top, 0, GROUP2), "TOP's group is %u", GROUP2);
	CHECK(!acl_set_text("u::rwx,g::--x,g:2100:--x,m::---,o::---"), "masked entries");
	ret = apply_gt("a", GRANT_TRAVERSE_OTHERS, &g, 1);
	CHECK(!ret && acl_has("mask::--x"), "a raises the mask for g:%u (%d)", GROUP, ret);
	ret = apply("b", &g2, 1);
	CHECK(!ret && changes.given == 0, "b's group gets through by group::, adding nothing (%d)",
	      ret);
	ret = apply_gt("a", GRANT_TRAVERSE_OTHERS, NULL, 0);
	CHECK(!ret && acl_has("mask::--x"), "a drops g:%u: the mask b's group relies on stays (%d)",
	      GROUP, ret);
	CHECK(audit(NULL, 0) == 1 && strstr(extra, "g:2100 has search permission"),
	      "audit names g:%u, which nobody needs, not the mask: %s", GROUP, extra);
	ret = apply("b", NULL, 0);
	CHECK(!ret && acl_has("mask::---"), "b drops its group: the mask's x goes (%d)", ret);

	/* The same within one pin directory, whose next apply says 'yes'. */
	CHECK(!acl_set_text("u::rwx,g::--x,g:2100:--x,m::---,o::---"), "masked entries again");
	ret = apply_gt("a", GRANT_TRAVERSE_OTHERS, both, 2);
	CHECK(!ret && acl_has("mask::--x"), "a raises the mask for both groups (%d)", ret);
	ret = apply("a", &g2, 1);
	CHECK(!ret && acl_has("mask::--x"),
	      "a keeps g:%u only, with 'yes': the mask it relies on stays (%d)", GROUP2, ret);
	ret = apply("a", NULL, 0);
	CHECK(!ret && acl_has("mask::---"), "a drops it: the mask's x goes (%d)", ret);
	CHECK(!chown(top, 0, 0), "TOP's group is root's again");
	acl_reset();
}

/* Write TEXT as the record. */
static void record_write(const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/.grant-traverse.json", run);
	f = fopen(path, "we");
	CHECK(f && fputs(text, f) >= 0 && !fclose(f), "%s: %s", path, strerror(errno));
}

/* A record that cannot be read whole: apply fails, changing nothing. */
static void test_bad_record(void)
{
	struct policy_entry g = entry(0440, 0, GROUP);
	const char *bad[] = {
		"{ \"added\": [",
		"[]",
		"{ \"added\": [ { \"dir\": \"/x\", \"tag\": \"g\", \"id\": 4294967296 } ] }",
		"{ \"added\": [ { \"dir\": \"/x\", \"tag\": \"u\", \"id\": -1 } ] }",
		"{ \"added\": [ { \"dir\": \"x\", \"tag\": \"u\", \"id\": 1 } ] }",
		"{ \"readers\": { \"/p\": [ { \"tag\": \"q\" } ] } }",
	};
	char saved[8192], now[8192];
	int ret;

	record_text(saved, sizeof(saved));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		record_write(bad[i]);
		ret = apply("a", &g, 1);
		CHECK(ret == -EACCES && changes.bad_record,
		      "%s: grant-traverse alone fails: the reader is stopped, said so (%d)",
		      bad[i], ret);
		CHECK(!strcmp(record_text(now, sizeof(now)), bad[i]),
		      "%s: the record is left as it is", bad[i]);
		CHECK(!acl_has("group:2100:"), "%s: nothing given", bad[i]);
		ret = apply("a", NULL, 0);
		CHECK(!ret && changes.bad_record, "%s: no reader: nothing fails but that (%d)",
		      bad[i], ret);
	}
	record_write(saved);
	CHECK(!apply("a", NULL, 0), "a good record again");
}

/* Does PATH's access ACL have WHAT? */
static bool path_acl_has(const char *path, const char *what)
{
	acl_t acl = acl_get_file(path, ACL_TYPE_ACCESS);
	char *s = acl ? acl_to_any_text(acl, NULL, ',', TEXT_NUMERIC_IDS) : NULL;
	bool has = s && strstr(s, what);

	acl_free(s);
	acl_free(acl);
	return has;
}

/* A directory on the way that a user could replace: grant-traverse
 * changes nothing there, nor through a link put in its place.
 */
static void test_unsafe_dir(void)
{
	struct policy_entry g = entry(0440, 0, GROUP);
	char x[300], w[300], y[300], z[300], victim[300], old[320], want[64];
	struct stat st;
	int fd, ret;

	snprintf(want, sizeof(want), "group:%u:--x", GROUP);
	snprintf(x, sizeof(x), "%s/x", top);
	snprintf(w, sizeof(w), "%s/w", top);
	snprintf(y, sizeof(y), "%s/w/y", top);
	snprintf(z, sizeof(z), "%s/z", top);
	snprintf(victim, sizeof(victim), "%s/victim", top);
	fd = open(victim, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);	/* /etc/shadow */
	CHECK(fd >= 0 && !close(fd), "%s: %s", victim, strerror(errno));
	/* The user's, o=rw-: its readers cannot search it. */
	CHECK(!mkdir(x, 0706) && !chown(x, NOBODY, NOBODY) && !chmod(x, 0706), "%s", x);
	ret = apply("x/p", &g, 1);
	CHECK(ret == -EACCES, "a user's directory on the way: the reader is stopped (%d)", ret);
	CHECK(!path_acl_has(x, want), "and grant-traverse gave nothing there");

	/* The user swaps it for a link to root's file while apply is at
	 * the directory above (the hook stands in for the race).
	 */
	snprintf(swap_dir, sizeof(swap_dir), "%s", x);
	snprintf(swap_to, sizeof(swap_to), "%s", victim);
	acl_reset();
	ret = apply("x/p", &g, 1);
	CHECK(!swap_dir[0], "the directory was swapped");
	CHECK(ret < 0, "apply fails: %d", ret);
	CHECK(!stat(victim, &st) && (st.st_mode & 07777) == 0600,
	      "the file the link names keeps its mode 0600: %04o", st.st_mode & 07777);
	CHECK(!path_acl_has(victim, want), "and gets no ACL entry");
	snprintf(old, sizeof(old), "%s.old", x);
	unlink(x);
	rmdir(old);

	/* Root's directory in a directory every user may write. */
	CHECK(!mkdir(w, 0777) && !chmod(w, 0777) && !mkdir(y, 0700), "%s", y);
	ret = apply("w/y/p", &g, 1);
	CHECK(ret == -EACCES && !path_acl_has(y, want),
	      "root's directory whose parent others may write: nothing given (%d)", ret);
	rmdir(y);
	rmdir(w);

	/* Taking back: not in a directory that became a user's. */
	CHECK(!mkdir(z, 0700), "%s", z);
	ret = apply("z/p", &g, 1);
	CHECK(!ret && path_acl_has(z, want), "root's directory: given (%d)", ret);
	CHECK(!chown(z, NOBODY, 0), "then a user's");
	ret = apply("z/p", NULL, 0);
	CHECK(!ret && path_acl_has(z, want), "not taken back there (%d)", ret);
	CHECK(!chown(z, 0, 0), "root's again");
	ret = apply("z/p", NULL, 0) ?: apply("x/p", NULL, 0) ?: apply("w/y/p", NULL, 0);
	CHECK(!ret && !path_acl_has(z, want) && !acl_has(want),
	      "now taken back (%d)", ret);
	rmdir(z);

	/* A recorded directory that is now a link: forgotten, said. */
	CHECK(!mkdir(z, 0700), "%s again", z);
	ret = apply("z/p", &g, 1);
	CHECK(!ret && path_acl_has(z, want), "given on %s (%d)", z, ret);
	CHECK(!rmdir(z) && !symlink("/", z), "%s is a link now", z);
	ret = apply("z/p", NULL, 0);
	CHECK(ret == 0 && !recorded_in(z), "a link in its place: forgotten, no failure (%d)", ret);
	unlink(z);
	unlink(victim);
	acl_reset();
}

int main(void)
{
	char pins[300];
	int ret;

	ret = private_bpffs(top);
	if (ret)
		return ret;
	/* A kernel without the series has no ACLs in bpffs: tmpfs, which
	 * has, stands in.
	 */
	if (acl_reset() == -EOPNOTSUPP) {
		printf("bpffs has no ACLs here: a tmpfs stands in\n");
		if (umount2(top, MNT_DETACH) || mount("tmpfs", top, "tmpfs", 0, "mode=0700") ||
		    acl_reset()) {
			printf("skipped: no ACLs on tmpfs either: %s\n", strerror(errno));
			return 77;
		}
		reach_fs_magic = TMPFS_MAGIC;
	}
	if (!mkdtemp(run)) {
		perror(run);
		return 2;
	}
	manifest_dir = run;
	for (const char *d = "abc"; *d; d++) {
		snprintf(pins, sizeof(pins), "%s/%c", top, *d);
		CHECK(!mkdir(pins, 0711), "%s: %s", pins, strerror(errno));
	}
	test_record_first();
	test_absent_record();
	test_shared_parent();
	test_lock();
	test_old_record();
	test_audit_extra();
	test_unsafe_dir();
	test_stale_readers();
	test_mask_needed();
	test_relied_on();
	test_bad_record();
	ret = check_summary();
	umount2(top, MNT_DETACH);
	rmdir(top);
	snprintf(pins, sizeof(pins), "rm -rf -- '%s'", run);
	if (system(pins))
		ret = 1;
	return ret;
}
