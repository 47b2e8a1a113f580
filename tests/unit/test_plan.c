// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the plan's comparison (src/plan_compare.c), on the host:
 * how a pin's link info and program differ from its entry (pin_drift),
 * the word apply prints for it (drift_word), how the names in a pin
 * directory are matched to entries (plan_match), and what audit says of
 * it all (plan_findings; an unsafe path only if the manifest does not
 * say that apply accepted it as it is).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fsiter_uapi.h"
#include "manifest.h"
#include "pin_json.h"
#include "plan.h"
#include "target_kind.h"
#include "check.h"

#define TAG_A	"00112233445566aa"
#define TAG_B	"00112233445566bb"

static struct policy_entry entry(const char *view, const char *name,
				 unsigned int options)
{
	return (struct policy_entry){ .view = view_lookup(view),
				      .name = (char *)name, .options = options };
}

/* A link of VIEW's checked program on inode 12 of device 8:1. */
static struct pin_info link_of(const char *view)
{
	struct pin_info pi = { .is_link = true, .fs_type = FSITER_FS_ITER_INODE,
			       .ino = 12, .dev = 0x801, .mnt_id = 30 };

	snprintf(pi.prog_name, sizeof(pi.prog_name), "%s",
		 view_lookup(view)->prog);
	snprintf(pi.tag, sizeof(pi.tag), TAG_A);
	return pi;
}

static void test_drift_inode(void)
{
	struct policy_entry e = entry("inode", "a", 0);
	struct plan_item it = { .entry = &e,
				.target = { .fd = 0, .ino = 12, .dev = 0x801, .mnt_id = 30 } };
	struct view_prog v = { 0 };
	struct pin_info pi = link_of("inode");

	strcpy(v.tag, TAG_A);
	CHECK(pin_drift(&it, &pi, &v) == 0, "the same link: no drift");

	pi.is_link = false;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_FOREIGN, "not a link: foreign");
	pi = link_of("inode");
	strcpy(pi.prog_name, "somebody_else");
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_FOREIGN, "unknown program: foreign");
	pi = link_of("cache");
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_VIEW, "another view");
	pi = link_of("inode");
	pi.flags = FSITER_F_EXPOSE_CACHE;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_EXPOSE, "linked with expose-cache");
	e.options = POLICY_OPT_EXPOSE_CACHE;
	CHECK(pin_drift(&it, &pi, &v) == 0, "expose-cache asked for and linked");
	pi.flags = 0;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_EXPOSE, "asked for, linked without");
	e.options = 0;
	pi = link_of("inode");
	strcpy(pi.tag, TAG_B);
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_PROGRAM, "another version of the program");
	/* A build without the views (audit) has no program to compare. */
	CHECK(pin_drift(&it, &pi, NULL) == 0, "no view loaded: the program is not compared");
	pi.ino = 13;
	CHECK(pin_drift(&it, &pi, NULL) == DRIFT_TARGET, "no view loaded: the target still is");

	pi = link_of("inode");
	pi.ino = 13;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_TARGET, "another inode");
	pi = link_of("inode");
	pi.dev = 0x802;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_TARGET, "another device");
	pi = link_of("inode");
	pi.fs_type = FSITER_FS_ITER_MNT;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_TARGET, "a mount, not an inode");
	pi.gone = true;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_GONE, "gone, whatever the target");
	pi = link_of("inode");
	pi.ino = 13;
	it.target.fd = -1;
	CHECK(pin_drift(&it, &pi, &v) == 0, "a target that did not open is not compared");
}

static void test_drift_mount(void)
{
	struct policy_entry e = entry("mount", "m", 0);
	struct plan_item it = { .entry = &e, .target = { .fd = 0, .ino = 99, .mnt_id = 30 } };
	struct view_prog v = { 0 };
	struct pin_info pi = link_of("mount");

	strcpy(v.tag, TAG_A);
	pi.fs_type = FSITER_FS_ITER_MNT;
	CHECK(pin_drift(&it, &pi, &v) == 0, "the same mount, whatever the inode");
	pi.mnt_id = 31;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_TARGET, "another mount");
}

/* A cache-top link: the filesystem, and the N its program was loaded with. */
static void test_drift_sb(void)
{
	struct policy_entry e = entry("cache-top", "t", 0);
	struct plan_item it = { .entry = &e, .target = { .fd = 0, .dev = 0x801, .mnt_id = 30 } };
	struct view_prog v = { 0 };
	struct pin_info pi = link_of("cache-top");

	strcpy(v.tag, TAG_A);
	pi.fs_type = FSITER_FS_ITER_SB;
	pi.ino = 0;
	pi.top = POLICY_TOP_DEFAULT;
	CHECK(pin_drift(&it, &pi, &v) == 0, "the default top, the same filesystem");
	e.top = 50;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_TOP, "top=50 asked, 20 loaded");
	CHECK(pin_drift(&it, &pi, NULL) == DRIFT_TOP, "no view loaded: top=N still compared");
	CHECK(!strcmp(drift_word(DRIFT_TOP), "top"), "drift word top");
	pi.top = 50;
	CHECK(pin_drift(&it, &pi, &v) == 0, "top=50 both");
	strcpy(pi.tag, TAG_B);
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_PROGRAM, "another program, whatever its N");
	strcpy(pi.tag, TAG_A);
	pi.mnt_id = 31;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_TARGET, "another mount of the filesystem");
	pi.mnt_id = 30;
	pi.fs_type = FSITER_FS_ITER_INODE;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_TARGET, "an inode link");
	pi = link_of("cache-summary");
	pi.fs_type = FSITER_FS_ITER_SB;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_VIEW, "cache-summary, not cache-top");
}

/* expose-totals: the link's FSITER_F_WITHHELD_SUMS, a drift of its own. */
static void test_drift_totals(void)
{
	struct policy_entry e = entry("cache-summary", "s", POLICY_OPT_EXPOSE_TOTALS);
	struct plan_item it = { .entry = &e, .target = { .fd = 0, .dev = 0x801, .mnt_id = 30 } };
	struct view_prog v = { 0 };
	struct pin_info pi = link_of("cache-summary");

	strcpy(v.tag, TAG_A);
	pi.fs_type = FSITER_FS_ITER_SB;
	pi.ino = 0;
	CHECK(plan_link_flags(&e) == FSITER_F_WITHHELD_SUMS, "attached with the flag");
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_EXPOSE_TOTALS, "asked for, linked without");
	pi.flags = FSITER_F_WITHHELD_SUMS;
	CHECK(pin_drift(&it, &pi, &v) == 0, "asked for and linked");
	e.options = 0;
	CHECK(plan_link_flags(&e) == 0, "no option, no flag");
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_EXPOSE_TOTALS, "linked with it, not asked for");
	pi.flags = FSITER_F_EXPOSE_CACHE;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_EXPOSE, "expose-cache is the other drift");
	e.options = POLICY_OPT_EXPOSE_TOTALS;
	CHECK(pin_drift(&it, &pi, &v) == (DRIFT_EXPOSE | DRIFT_EXPOSE_TOTALS),
	      "expose-cache linked, expose-totals asked: both");
	pi.flags = FSITER_F_WITHHELD_SUMS | 0x80;
	CHECK(pin_drift(&it, &pi, &v) == DRIFT_EXPOSE,
	      "a flag fsiter-pin does not know: expose-cache's drift, as before");
	CHECK(!strcmp(drift_word(DRIFT_EXPOSE_TOTALS), "expose-totals"), "drift word");
	CHECK(!strcmp(drift_word(DRIFT_EXPOSE_TOTALS | DRIFT_MODE), "expose-totals"),
	      "expose-totals before the perms");
}

/* The sb kind's row: the superblock and the mount, its words for people. */
static void test_kind_sb(void)
{
	const struct target_kind *k = target_kind_of_type(FSITER_FS_ITER_SB);
	struct target t = { .fd = 0, .dev = 0x801, .mnt_id = 30 };
	struct pin_info pi = { .is_link = true, .fs_type = FSITER_FS_ITER_SB,
			       .dev = 0x801, .mnt_id = 30, .magic = 0xef53 };
	json_object *o = json_object_new_object();
	char buf[128];

	CHECK(k == &target_kinds[TARGET_SB] && !strcmp(k->name, "sb"), "type 2 is sb");
	CHECK(target_kind_named("sb") == k, "named sb");
	CHECK(k->feature == FEAT_FS_SB, "its feature");
	CHECK(k->same(&t, &pi), "same superblock, same mount");
	pi.mnt_id = 31;
	CHECK(!k->same(&t, &pi), "another mount of the superblock: paths differ");
	pi.mnt_id = 30;
	pi.dev = 0x802;
	CHECK(!k->same(&t, &pi), "another superblock");
	pi.dev = 0x801;
	k->describe_pin(buf, sizeof(buf), &pi);
	CHECK(!strcmp(buf, "filesystem 8:1 (ext4) through mount 30"), "describe_pin: %s", buf);
	k->describe_target(buf, sizeof(buf), &t);
	CHECK(!strcmp(buf, "is on filesystem 8:1 through mount 30"), "describe_target: %s", buf);
	k->to_json(o, &pi);
	CHECK(!strcmp(pin_json_get(o, "dev"), "8:1") && !strcmp(pin_json_get(o, "magic"), "0xef53") &&
	      !strcmp(pin_json_get(o, "fs_type"), "ext4"), "to_json: %s",
	      json_object_to_json_string(o));
	k->brief(buf, sizeof(buf), o);
	CHECK(!strcmp(buf, "sb 8:1 ext4"), "brief: %s", buf);
	json_object_put(o);

	o = json_object_new_object();
	pi.magic = 0x1234abcd;
	k->to_json(o, &pi);
	CHECK(!strcmp(pin_json_get(o, "fs_type"), "0x1234abcd"), "an unknown magic in hex");
	json_object_put(o);
	o = json_object_new_object();
	pi.magic = 0x01021994;
	k->to_json(o, &pi);
	k->brief(buf, sizeof(buf), o);
	CHECK(!strcmp(buf, "sb 8:1 tmpfs"), "tmpfs: %s", buf);
	json_object_put(o);
	o = json_object_new_object();
	pi.magic = 0;
	k->to_json(o, &pi);
	CHECK(!strcmp(pin_json_get(o, "fs_type"), "-") && !strcmp(pin_json_get(o, "magic"), "-"),
	      "no magic in link info: null");
	json_object_put(o);
}

static void test_drift_word(void)
{
	CHECK(!drift_word(0), "nothing differs");
	CHECK(!strcmp(drift_word(DRIFT_FOREIGN | DRIFT_OWNER), "program"), "program first");
	CHECK(!strcmp(drift_word(DRIFT_VIEW | DRIFT_TARGET), "view"), "view before target");
	CHECK(!strcmp(drift_word(DRIFT_EXPOSE), "expose-cache"), "expose-cache");
	CHECK(!strcmp(drift_word(DRIFT_GONE | DRIFT_MODE), "target"), "target before perms");
	CHECK(!strcmp(drift_word(DRIFT_PERMS_UNREADABLE), "owner, mode or ACL"),
	      "unreadable perms");
	CHECK(!strcmp(drift_word(DRIFT_MODE | DRIFT_ACL), "mode"), "mode before ACL");
	CHECK(!strcmp(drift_word(DRIFT_ACL), "ACL"), "ACL");
}

static void test_match(void)
{
	struct policy_entry e[] = { entry("inode", "a", 0), entry("inode", "b", 0),
				    entry("inode", "c", POLICY_OPT_NOFAIL) };
	struct plan_item items[3] = { { .entry = &e[0] }, { .entry = &e[1] },
				      { .entry = &e[2], .action = PLAN_SKIP } };
	struct plan pl = { .items = items, .nr_items = 3 };
	char *names[] = { strdup("a"), strdup("c"), strdup("x") };

	CHECK(plan_match(&pl, names, 3) == 0, "plan_match");
	CHECK(items[0].pinned && !items[1].pinned && items[2].pinned,
	      "pinned: a and c, not b");
	CHECK(pl.nr_stale == 2 && !strcmp(pl.stale[0], "c") && !strcmp(pl.stale[1], "x"),
	      "stale: the skipped entry's pin and the unknown one");
	CHECK(!names[0] && !names[1] && !names[2], "every name is taken");
	for (size_t i = 0; i < pl.nr_stale; i++)
		free(pl.stale[i]);
	free(pl.stale);
}

static char found[8][512];
static int nfound;

static void collect(void *arg, const char *kind, const char *pin,
		    const struct loc *loc, const char *detail)
{
	if (nfound < 8)
		snprintf(found[nfound++], sizeof(found[0]), "%s %s%s: %s", kind, pin,
			 loc ? "" : " (no entry)", detail);
}

/* What audit prints comes from the items' drift, in the policy's order. */
static void test_findings(void)
{
	struct policy_entry e[] = { entry("inode", "a", 0), entry("mount", "m", 0),
				    entry("cache", "n", POLICY_OPT_NOFAIL),
				    entry("cache", "gone", 0) };
	struct plan_item items[4] = {
		{ .entry = &e[0], .pinned = true, .drift = DRIFT_TARGET | DRIFT_MODE,
		  .target = { .fd = 0, .ino = 13, .dev = 0x801 } },
		{ .entry = &e[1], .pinned = true, .drift = DRIFT_TARGET,
		  .target = { .fd = 0, .mnt_id = 31 } },
		{ .entry = &e[2], .pinned = true, .action = PLAN_SKIP },
		{ .entry = &e[3], .target_err = -ENOENT },
	};
	char *stale[] = { "n", "x" };
	struct plan pl = { .items = items, .nr_items = 4, .stale = stale, .nr_stale = 2,
			   .policy = { .entries = e, .nr_entries = 4 } };
	size_t n;

	e[0].path = "/a";
	e[0].mode = 0400;
	e[1].path = "/m";
	e[2].path = "/n";
	e[3].path = "/gone";
	items[0].pin = link_of("inode");
	items[0].pin.mode = 0444;
	items[1].pin = link_of("mount");
	items[1].pin.fs_type = FSITER_FS_ITER_MNT;
	n = plan_findings(&pl, collect, NULL);
	CHECK(n == 7 && nfound == 7, "7 findings, got %zu", n);
	CHECK(!strcmp(found[0], "target-replaced a: pinned on inode 12 of device 8:1, /a is inode 13 of 8:1 now"),
	      "%s", found[0]);
	CHECK(!strcmp(found[1], "mode a: mode 0444, the policy says 0400"), "%s", found[1]);
	CHECK(!strcmp(found[2], "target-replaced m: pinned on mount 30, /m is on mount 31 now"),
	      "%s", found[2]);
	CHECK(!strcmp(found[3], "extra n: /n does not exist (nofail): apply would remove the pin"),
	      "%s", found[3]);
	CHECK(!strcmp(found[4], "target-missing gone: path '/gone': no such file or directory"),
	      "%s", found[4]);
	CHECK(!strcmp(found[5], "missing gone: not pinned"), "%s", found[5]);
	CHECK(!strcmp(found[6], "extra x (no entry): not in the policy"),
	      "the stale pin no entry names, not the skipped one's: %s", found[6]);
}

/*
 * What audit finds of a path as it is now: a file that gained hard links
 * (not with 'hardlinks'), a directory on the way that a user may change;
 * and a search permission above the pins that no reader needs.
 */
static void test_path_findings(void)
{
	struct policy_entry e[] = { entry("cache", "h", 0),
				    entry("cache", "ok", POLICY_OPT_HARDLINKS),
				    entry("inode", "u", 0) };
	struct plan_item items[3] = {
		{ .entry = &e[0], .pinned = true,
		  .target = { .fd = 0, .mode = S_IFREG | 0644, .nlink = 2 } },
		{ .entry = &e[1], .pinned = true,
		  .target = { .fd = 0, .mode = S_IFREG | 0644, .nlink = 3 } },
		{ .entry = &e[2], .pinned = true,
		  .target = { .fd = 0, .mode = S_IFREG | 0644, .nlink = 1,
			      .unsafe_len = 8, .unsafe = { DIR_OTHER, 0 } } },
	};
	struct plan_dir_finding x = { "/sys/fs/bpf", "u:fsb has search permission (x), ..." };
	struct plan pl = { .items = items, .nr_items = 3, .pin_dir = "/sys/fs/bpf/fsiter",
			   .extra_search = &x, .nr_extra_search = 1,
			   .policy = { .entries = e, .nr_entries = 3 } };
	size_t n;

	for (int i = 0; i < 3; i++)
		items[i].pin = link_of(e[i].view->name);
	e[0].path = "/srv/h";
	e[1].path = "/srv/ok";
	e[2].path = "/srv/tmp/u";
	manifest_dir = "/nonexistent";	/* not this host's manifests */
	nfound = 0;
	n = plan_findings(&pl, collect, NULL);
	CHECK(n == 3 && nfound == 3, "3 findings, got %zu", n);
	CHECK(!strcmp(found[0], "hardlinks h: path '/srv/h': a file with 2 names (hard links), so this name may not be the one root chose; apply fails the entry without the option 'hardlinks'"),
	      "%s", found[0]);
	CHECK(!strcmp(found[1], "unsafe-path u: path '/srv/tmp/u': /srv/tmp may be changed by every user so what it names is not root's to decide (an unsafe path transition)"),
	      "not for 'hardlinks': %s", found[1]);
	CHECK(!strcmp(found[2], "extra-search /sys/fs/bpf (no entry): u:fsb has search permission (x), ..."),
	      "the directory, no entry: %s", found[2]);

	/* The manifest says apply accepted that unsafe path: not reported;
	 * unsafe in another way: reported again.
	 */
	char run[] = "/tmp/fsiter-test-plan.XXXXXX", cmd[64];
	struct manifest_record rec = { "u", "inode", "/srv/tmp/u", { "t.conf", 3 },
				       items[2].pin.link_id, TAG_A, "inode /srv/tmp/u",
				       "/srv/tmp: every user" };

	CHECK(mkdtemp(run), "%s", run);
	manifest_dir = run;
	CHECK(!manifest_write(pl.pin_dir, &rec, 1, "t.conf"), "a manifest");
	nfound = 0;
	n = plan_findings(&pl, collect, NULL);
	CHECK(n == 2 && !strncmp(found[1], "extra-search", 12),
	      "accepted at apply: no unsafe-path (%zu findings)", n);
	rec.unsafe = "/srv: every user";
	CHECK(!manifest_write(pl.pin_dir, &rec, 1, "t.conf"), "another manifest");
	nfound = 0;
	n = plan_findings(&pl, collect, NULL);
	CHECK(n == 3 && !strncmp(found[1], "unsafe-path u:", 14),
	      "unsafe in another way since: reported (%zu findings)", n);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", run);
	CHECK(!system(cmd), "%s", cmd);
	manifest_dir = MANIFEST_DIR;
}

/* audit's words for expose-totals: its own kind, either way, and on an
 * unsafe path, that apply fails the entry.
 */
static void test_totals_findings(void)
{
	struct policy_entry e[] = { entry("cache-summary", "s", POLICY_OPT_EXPOSE_TOTALS),
				    entry("cache-top", "t", 0),
				    entry("cache-top", "u", POLICY_OPT_EXPOSE_TOTALS) };
	struct plan_item items[3] = {
		{ .entry = &e[0], .pinned = true, .drift = DRIFT_EXPOSE_TOTALS },
		{ .entry = &e[1], .pinned = true, .drift = DRIFT_EXPOSE_TOTALS },
		{ .entry = &e[2], .pinned = true,
		  .target = { .fd = 0, .mode = S_IFDIR | 0755, .nlink = 2,
			      .unsafe_len = 8, .unsafe = { DIR_OTHER, 0 } } },
	};
	struct plan pl = { .items = items, .nr_items = 3, .pin_dir = "/sys/fs/bpf/fsiter",
			   .policy = { .entries = e, .nr_entries = 3 } };
	size_t n;

	for (int i = 0; i < 3; i++) {
		items[i].pin = link_of(e[i].view->name);
		items[i].pin.fs_type = FSITER_FS_ITER_SB;
	}
	items[1].pin.flags = FSITER_F_WITHHELD_SUMS;
	items[2].pin.flags = FSITER_F_WITHHELD_SUMS;
	e[0].path = "/srv";
	e[1].path = "/var";
	e[2].path = "/srv/tmp/u";
	manifest_dir = "/nonexistent";
	nfound = 0;
	n = plan_findings(&pl, collect, NULL);
	CHECK(n == 3 && nfound == 3, "3 findings, got %zu", n);
	CHECK(!strcmp(found[0], "expose-totals s: withholds the page-cache sums of the files a reader may not observe"),
	      "%s", found[0]);
	CHECK(!strcmp(found[1], "expose-totals t: shows the page-cache sums of the files a reader may not observe"),
	      "%s", found[1]);
	CHECK(!strcmp(found[2], "unsafe-path u: path '/srv/tmp/u': /srv/tmp may be changed by every user so what it names is not root's to decide (an unsafe path transition); apply fails the entry, as it has expose-totals"),
	      "%s", found[2]);
	manifest_dir = MANIFEST_DIR;
}

/* What FN(ARG) prints on stdout, in OUT. */
static void stdout_of(void (*fn)(void *), void *arg, char *out, size_t size)
{
	FILE *tmp = tmpfile();
	int saved, n = 0;

	fflush(stdout);
	saved = dup(1);
	if (!tmp || saved < 0 || dup2(fileno(tmp), 1) < 0)
		abort();
	fn(arg);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, size - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
}

/* No control byte but newlines, no byte outside printable ASCII. */
static bool clean(const char *s)
{
	for (; *s; s++)
		if ((*s < 0x20 && *s != '\n') || *s >= 0x7f || *s < 0)
			return false;
	return true;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void print_dry(void *pl)
{
	plan_print(pl, true);
}

static void print_text(void *text)
{
	outf("%s", (const char *)text);
}

/*
 * What apply and audit print on stdout holds no raw control byte, whatever
 * the paths and names: escaped as in messages, one line per pin.
 */
static void test_print_escapes(void)
{
	struct policy_entry e[] = { entry("inode", "c", 0), entry("cache", "r", 0) };
	struct plan_item items[2] = {
		{ .entry = &e[0], .action = PLAN_CREATE },
		{ .entry = &e[1], .action = PLAN_REPLACE, .pinned = true, .why = "view" },
	};
	char *stale[] = { "s\a" }, out[4096];
	struct plan pl = { .items = items, .nr_items = 2, .stale = stale, .nr_stale = 1,
			   .pin_dir = "/sys/fs/bpf/\x1b]0;title\a",
			   .dir_drift = "mode 0755" };

	e[0].path = "/srv/\x1b[2J\nfake line";
	e[1].path = "/srv/\xc2\x9b" "2J\xff";
	stdout_of(print_dry, &pl, out, sizeof(out));
	CHECK(clean(out), "plan_print: a raw control byte in '%s'", out);
	CHECK(lines(out) == 5, "plan_print: 5 lines, got %d: '%s'", lines(out), out);
	CHECK(strstr(out, "would create c: inode of /srv/\\x1b[2J\\nfake line\n"),
	      "the path as a policy writes it: '%s'", out);
	CHECK(strstr(out, "/srv/\\xc2\\x9b2J\\xff (view differs)"),
	      "a C1 control and a byte that is not UTF-8: '%s'", out);
	CHECK(strstr(out, "would remove s\\x07: not in the policy"), "the stale name: '%s'", out);
	CHECK(strstr(out, "would restore /sys/fs/bpf/\\x1b]0;title\\x07:"), "the pin dir: '%s'",
	      out);

	stdout_of(print_text, "a\x1b[2Jb\nc\n", out, sizeof(out));
	CHECK(!strcmp(out, "a\\x1b[2Jb\\x0ac\n"), "outf: the last guard, but the last newline: '%s'",
	      out);
	stdout_of(print_text, "caf\xc3\xa9 \xc3\n", out, sizeof(out));
	CHECK(!strcmp(out, "caf\xc3\xa9 \\xc3\n"), "outf: UTF-8 kept, a cut sequence escaped: '%s'",
	      out);
}

/*
 * The stubs a revoked link runs (neuter.h): one per kind, found from the
 * kernel's name of an iterator target, and a pin whose link runs one
 * (revoked, but left behind) is replaced.
 */
static void test_stubs(void)
{
	static const char *const targets[] = { "fs_inode", "fs_mnt", "fs_sb" };
	struct policy_entry e = entry("cache", "c", 0);
	struct plan_item it = { .entry = &e,
				.target = { .fd = 0, .ino = 12, .dev = 0x801 } };
	struct view_prog v = { .desc = e.view, .tag = TAG_A };
	struct pin_info pi = link_of("cache");

	for (int i = 0; i < TARGET_KINDS; i++) {
		const struct target_kind *k = &target_kinds[i];

		CHECK(target_kind_of_iter(targets[k->uapi_type]) == k, "%s: target %s",
		      k->name, targets[k->uapi_type]);
		CHECK(k->stub && strlen(k->stub) < BPF_OBJ_NAME_LEN, "%s: a stub", k->name);
		CHECK(target_kind_of_stub(k->stub) == k, "%s: its stub %s", k->name, k->stub);
		CHECK(!view_by_prog_name(k->stub), "%s: its stub is no view", k->name);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(target_kinds[j].stub, k->stub), "%s: a stub of its own",
			      k->name);
	}
	CHECK(!target_kind_of_iter("task") && !target_kind_of_iter("bpf_map") &&
	      !target_kind_of_iter("") && !target_kind_of_iter("iter/fs_inode") &&
	      !target_kind_of_iter("fs_inodes"), "other iterator targets: none of ours");
	CHECK(!target_kind_of_stub("fsiter_cache") && !target_kind_of_stub(""),
	      "a view's program is no stub");

	snprintf(pi.prog_name, sizeof(pi.prog_name), "%s", target_kinds[TARGET_INODE].stub);
	CHECK(pin_drift(&it, &pi, &v) & DRIFT_FOREIGN, "a neutered link is replaced");
	CHECK(!strcmp(drift_word(pin_drift(&it, &pi, &v)), "program"), "its program differs");
}

int main(void)
{
	test_drift_inode();
	test_drift_mount();
	test_kind_sb();
	test_drift_sb();
	test_drift_word();
	test_drift_totals();
	test_match();
	test_findings();
	test_path_findings();
	test_totals_findings();
	test_print_escapes();
	test_stubs();
	return check_summary();
}
