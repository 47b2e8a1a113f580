// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the pin directories' claims (src/claim.c), on a bpffs of
 * its own in a mount namespace of this process, with a manifest directory
 * of its own. Checked: which manifests are trusted (hostile ones: a
 * pin_dir outside bpffs, a link, a name that is not its pin_dir's, a
 * group-writable file, a pin_dir a policy could not name); what a
 * claim's policy says now. Needs root and bpffs; skipped (77) otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "claim.h"
#include "diag.h"
#include "manifest.h"
#include "check.h"
#include "private_bpffs.h"

static char top[] = "/tmp/fsiter-test-claim.XXXXXX";
static char run[] = "/tmp/fsiter-test-claim-run.XXXXXX";
static char etc[] = "/tmp/fsiter-test-claim-etc.XXXXXX";
static char *msgs;
static size_t msgs_len;

/* TOP/DIR, made (0711, as a pin directory) with its work directory. */
static void pin_dir(char out[PATH_MAX], const char *dir)
{
	char work[PATH_MAX + 16];

	snprintf(out, PATH_MAX, "%s/%s", top, dir);
	snprintf(work, sizeof(work), "%s_staging", out);
	mkdir(out, 0711);
	mkdir(work, 0700);
}

/* ETC/NAME, a policy naming PIN_DIR (NULL: none) and no entry. */
static void policy(char out[PATH_MAX], const char *name, const char *pin_dir)
{
	FILE *f;

	snprintf(out, PATH_MAX, "%s/%s", etc, name);
	f = fopen(out, "w");
	if (!f)
		return;
	fprintf(f, "# a test policy\n");
	if (pin_dir)
		fprintf(f, "set pin-dir %s\n", pin_dir);
	fclose(f);
	chmod(out, 0644);
}

/* The manifest of PIN_DIR (as apply writes it), naming POLICY. */
static void manifest(const char *pin_dir, const char *policy)
{
	CHECK(!manifest_write(pin_dir, NULL, 0, policy), "manifest of %s", pin_dir);
}

/* A manifest file NAME in RUN with TEXT, mode MODE. */
static void raw_manifest(const char *name, const char *text, mode_t mode)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", run, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, mode);
}

static bool said(const char *what)
{
	fflush(diag_out);
	return msgs && strstr(msgs, what);
}

static void forget_msgs(void)
{
	fflush(diag_out);
	rewind(diag_out);
	if (msgs)
		msgs[0] = '\0';
}

static int count_each(const struct claim *c, void *arg)
{
	char *seen = arg;

	strncat(seen, c->pin_dir, 4000 - strlen(seen));
	strncat(seen, ";", 4000 - strlen(seen));
	return 0;
}

/* Only a manifest that passes every check is read. */
static void test_hostile(void)
{
	char good[PATH_MAX], stage[PATH_MAX], seen[4096] = "", name[PATH_MAX], text[2 * PATH_MAX];
	char file[PATH_MAX];

	pin_dir(good, "good");
	manifest(good, "/etc/fsiter/x.conf");
	/* Outside bpffs: named as its pin_dir's, but not to be followed. */
	manifest("/var/tmp/fsiter-test-out", "/etc/fsiter/x.conf");
	/* A manifest whose name is another pin directory's. */
	manifest_path(good, ".json", file);
	snprintf(text, sizeof(text), "{ \"pin_dir\": \"%s/other\", \"policy\": \"/x.conf\" }", top);
	manifest_path(good, "x.json", name);
	raw_manifest(strrchr(name, '/') + 1, text, 0600);
	/* A link to a good manifest. */
	snprintf(name, sizeof(name), "%s/zz-link.json", run);
	CHECK(!symlink(file, name), "link: %s", strerror(errno));
	/* Group-writable. */
	pin_dir(stage, "gw");
	manifest(stage, "/etc/fsiter/x.conf");
	manifest_path(stage, ".json", name);
	chmod(name, 0620);
	/* A pin_dir that a policy could not name. */
	snprintf(stage, sizeof(stage), "%s/a_staging/b", top);
	manifest(stage, "/etc/fsiter/x.conf");
	/* A NUL in the policy. */
	snprintf(stage, sizeof(stage), "%s/nul", top);
	snprintf(text, sizeof(text), "{ \"pin_dir\": \"%s\", \"policy\": \"/a\\u0000b\" }", stage);
	manifest_path(stage, ".json", name);
	raw_manifest(strrchr(name, '/') + 1, text, 0600);

	forget_msgs();
	CHECK(!claim_each(count_each, seen), "claim_each");
	snprintf(text, sizeof(text), "%s;", good);
	CHECK(!strcmp(seen, text), "only the good manifest is read: %s", seen);
	CHECK(said("out.json: its pin_dir is no pin-dir a policy could name in bpffs"),
	      "the one outside bpffs is said");
	CHECK(said("zz-link.json: a symbolic link"), "the link is said");
	CHECK(said("another user may change it"), "the group-writable one is said");
	CHECK(said("its name is not its pin_dir's"), "the misnamed one is said");
	CHECK(said("its policy is not a string"), "the NUL is said");
	CHECK(said("a_staging-b.json: its pin_dir is no pin-dir"), "the _staging one is said");
	/* Leave only the good one. */
	snprintf(text, sizeof(text), "cd '%s' && rm -f -- *.json", run);
	CHECK(!system(text), "clean");
}

/* What a claim's policy says now. */
static void test_owner(void)
{
	char dir[PATH_MAX], other[PATH_MAX], p[PATH_MAX], now[PATH_MAX] = "";
	struct claim c;

	pin_dir(dir, "own");
	pin_dir(other, "own2");
	policy(p, "own.conf", dir);
	manifest(dir, p);
	CHECK(!claim_read(dir, &c) && !strcmp(c.policy, p), "claim_read");
	CHECK(claim_owner(&c, now) == CLAIM_LIVE, "a policy that names it: live");
	policy(p, "own.conf", other);
	CHECK(claim_owner(&c, now) == CLAIM_MOVED && !strcmp(now, other),
	      "one that names another: moved to %s", now);
	chmod(p, 0664);
	CHECK(claim_owner(&c, now) == CLAIM_GONE, "one its group may write: no policy");
	unlink(p);
	CHECK(claim_owner(&c, now) == CLAIM_GONE, "one that is gone: gone");
	policy(p, "own.conf", dir);
	{
		FILE *f = fopen(p, "a");

		fputs("bogus line\n", f);
		fclose(f);
	}
	CHECK(claim_owner(&c, now) == CLAIM_UNKNOWN, "one that does not parse: unknown");
	manifest(dir, "own.conf");
	CHECK(!claim_read(dir, &c) && claim_owner(&c, now) == CLAIM_UNKNOWN,
	      "a relative name (an older fsiter-pin): unknown");
	CHECK(claim_is(&c, "/elsewhere/own.conf", "own.conf"), "but the same name given is it");
}

int main(void)
{
	char cmd[256];
	int ret;

	ret = private_bpffs(top);
	if (ret)
		return ret;
	if (!mkdtemp(run) || !mkdtemp(etc)) {
		perror("mkdtemp");
		return 2;
	}
	chmod(etc, 0755);
	manifest_dir = run;
	claim_bpffs_root = top;
	diag_out = open_memstream(&msgs, &msgs_len);
	test_hostile();
	test_owner();
	fclose(diag_out);
	diag_out = NULL;
	ret = check_summary();
	if (ret && msgs)
		printf("messages:\n%s", msgs);
	free(msgs);
	umount2(top, MNT_DETACH);
	rmdir(top);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s' '%s'", run, etc);
	if (system(cmd))
		ret = 1;
	return ret;
}
