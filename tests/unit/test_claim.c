// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the pin directories' claims (src/claim.c) and what a plan
 * does with them (src/plan_claims.c), on a bpffs of its own in a mount
 * namespace of this process, with a manifest directory of its own. The
 * pins are real iterator links, of the task target this kernel has,
 * whose program bears a view's name, so that they are fsiter-pin's pins
 * to pin_foreign(). Checked: which manifests are trusted (hostile ones:
 * a pin_dir not on bpffs or reached through a link, a link, a name that
 * is not its pin_dir's, a
 * group-writable file, a pin_dir a policy could not name); what a
 * claim's policy says now; apply refusing a pin directory another policy
 * still claims, and --force taking it over; apply revoking the pins its
 * policy made in its earlier pin directory, as remove does (root's, mode
 * 0000, also through an fd taken before; the readers of grant-traverse's
 * record and the manifest go once it is empty); a failure there; the same
 * on a second bpffs, outside /sys/fs/bpf; audit's orphaned pins; and
 * audit of a policy file that was deleted; and a refused new pin-dir
 * that still revokes the old one. Needs root and bpffs; skipped (77) otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include "claim.h"
#include "diag.h"
#include "manifest.h"
#include "plan.h"
#include "check.h"
#include "private_bpffs.h"

#define OWNER	2001

static char top[] = "/tmp/fsiter-test-claim.XXXXXX";
static char run[] = "/tmp/fsiter-test-claim-run.XXXXXX";
static char etc[] = "/tmp/fsiter-test-claim-etc.XXXXXX";
static char bpf2[] = "/tmp/fsiter-test-claim-bpf2.XXXXXX";
static int iter_btf_id;
static char *msgs;
static size_t msgs_len;

/* An iterator link of the task target whose program is named as the
 * inode view's, pinned at PATH, owned by OWNER, mode 0440.
 */
static bool fake_pin(const char *path)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_ITER,
		    .attach_btf_id = iter_btf_id);
	int prog, link, ret;

	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "fsiter_inode", "GPL", insns, 2, &o);
	if (prog < 0)
		return false;
	link = bpf_link_create(prog, 0, BPF_TRACE_ITER, NULL);
	close(prog);
	if (link < 0)
		return false;
	ret = bpf_obj_pin(link, path);
	close(link);
	return !ret && !chown(path, OWNER, OWNER) && !chmod(path, 0440);
}

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
	snprintf(stage, sizeof(stage), "%s/out", etc);
	mkdir(stage, 0711);
	manifest(stage, "/etc/fsiter/x.conf");
	/* A bpffs reached through a link. */
	snprintf(stage, sizeof(stage), "%s/bpflink", etc);
	CHECK(!symlink(bpf2, stage), "link to bpffs: %s", strerror(errno));
	snprintf(stage, sizeof(stage), "%s/bpflink/linked", etc);
	snprintf(name, sizeof(name), "%s/linked", bpf2);
	mkdir(name, 0711);
	manifest(stage, "/etc/fsiter/x.conf");
	/* Outside bpffs and not there: claims nothing, silently. */
	manifest("/var/tmp/fsiter-test-out-none", "/etc/fsiter/x.conf");
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
	CHECK(said("out.json: its pin_dir is not a directory on bpffs reached without a symbolic link"),
	      "the one outside bpffs is said");
	CHECK(said("linked.json: its pin_dir is not a directory on bpffs reached without"),
	      "the one reached through a link is said");
	CHECK(!said("out-none"), "the one not there is not");
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
	CHECK(!mkdir(p, 0755), "a directory where it was");
	CHECK(claim_owner(&c, now) == CLAIM_GONE, "a directory in its place: gone");
	rmdir(p);
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

/* A plan of the policy at PATH (as plan_build() starts one). */
static void plan_of(struct plan *pl, const char *path, enum plan_mode mode, bool force)
{
	memset(pl, 0, sizeof(*pl));
	pl->mode = mode;
	pl->force = force;
	pl->policy_path = path;
	policy_init(&pl->policy);
	pindir_init(&pl->dir);
	CHECK(!policy_load(&pl->policy, path), "load %s", path);
	pl->pin_dir = pl->policy.pin_dir;
	claim_policy_name(path, pl->policy_abs);
}

/* apply refuses a pin directory whose pins another policy still claims. */
static void test_refused(void)
{
	char dir[PATH_MAX], a[PATH_MAX], b[PATH_MAX], pin[PATH_MAX + 8];
	struct plan pl;

	pin_dir(dir, "shared");
	policy(a, "a.conf", dir);
	policy(b, "b.conf", dir);
	snprintf(pin, sizeof(pin), "%s/x", dir);
	CHECK(fake_pin(pin), "a pin: %s", strerror(errno));
	manifest(dir, a);
	forget_msgs();
	plan_of(&pl, b, PLAN_APPLY, false);
	CHECK(plan_claim_check(&pl) == -EBUSY, "refused");
	CHECK(said("b.conf:2: pin-dir ") && said("shared belongs to ") && said("a.conf (its manifest)") &&
	      said("remove its pins first ('fsiter-pin remove --pin-dir "),
	      "naming both, and what to do");
	plan_free(&pl);
	plan_of(&pl, b, PLAN_DRY_RUN, false);
	CHECK(plan_claim_check(&pl) == -EBUSY, "--dry-run too");
	plan_free(&pl);
	plan_of(&pl, a, PLAN_APPLY, false);
	CHECK(!plan_claim_check(&pl), "its own policy is not refused");
	plan_free(&pl);
	forget_msgs();
	plan_of(&pl, b, PLAN_APPLY, true);
	CHECK(!plan_claim_check(&pl) && said("taken over (--force)"), "--force takes it over");
	plan_free(&pl);
	unlink(a);
	forget_msgs();
	plan_of(&pl, b, PLAN_APPLY, false);
	CHECK(!plan_claim_check(&pl) && said("which no longer exists"),
	      "a policy that is gone claims nothing");
	plan_free(&pl);
	policy(a, "a.conf", dir);
	unlink(pin);
	plan_of(&pl, b, PLAN_APPLY, false);
	CHECK(!plan_claim_check(&pl), "nor one whose pins were removed");
	plan_free(&pl);
}

/* The readers grant-traverse's record has for PIN_DIR. */
static int record_readers(const char *pin_dir)
{
	char path[PATH_MAX];
	json_object *root, *readers, *ar;
	int n = -1;

	snprintf(path, sizeof(path), "%s/.grant-traverse.json", run);
	root = json_object_from_file(path);
	if (root && json_object_object_get_ex(root, "readers", &readers))
		n = json_object_object_get_ex(readers, pin_dir, &ar) ?
		    (int)json_object_array_length(ar) : 0;
	json_object_put(root);
	return n;
}

static long owner_mode_fd(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : (long)st.st_uid << 16 | (st.st_mode & 07777);
}

/* apply revokes what its policy made in the pin-dir it named before. */
static void test_moved(void)
{
	char old[PATH_MAX], now[PATH_MAX], p[PATH_MAX], pin[PATH_MAX + 8], rec[3 * PATH_MAX];
	char file[PATH_MAX];
	struct plan pl;
	int fd;

	pin_dir(old, "old");
	pin_dir(now, "new");
	policy(p, "moving.conf", now);
	snprintf(pin, sizeof(pin), "%s/one", old);
	CHECK(fake_pin(pin), "a pin");
	fd = open(pin, O_PATH | O_CLOEXEC);
	snprintf(pin, sizeof(pin), "%s/two", old);
	CHECK(fake_pin(pin), "another");
	manifest(old, p);
	snprintf(rec, sizeof(rec), "{ \"added\": [], \"readers\": { \"%s\": [ { \"tag\": \"u\", \"id\": %d } ], \"%s\": [ { \"tag\": \"u\", \"id\": 0 } ] } }",
		 old, OWNER, now);
	raw_manifest(".grant-traverse.json", rec, 0600);

	plan_of(&pl, p, PLAN_DRY_RUN, false);
	CHECK(!plan_move_out(&pl) && pl.nr_moved == 1 && plan_moved_removed(&pl) == 2,
	      "--dry-run: two would go");
	CHECK(!access(pin, F_OK), "and they stay");
	plan_free(&pl);

	plan_of(&pl, p, PLAN_APPLY, false);
	CHECK(!plan_move_out(&pl) && pl.nr_moved == 1 && !strcmp(pl.moved[0].pin_dir, old),
	      "apply: the old pin directory");
	CHECK(plan_moved_removed(&pl) == 2 && !pl.moved[0].err, "both removed, no error");
	CHECK(access(pin, F_OK) && errno == ENOENT, "they are gone");
	CHECK(owner_mode_fd(fd) == 0, "revoked first: an fd taken before sees root's, 0000 (%lx)",
	      owner_mode_fd(fd));
	CHECK(record_readers(old) == 0 && record_readers(now) == 1,
	      "its readers left grant-traverse's record, not the new one's");
	manifest_path(old, ".json", file);
	CHECK(access(file, F_OK), "its manifest is gone");
	plan_free(&pl);
	close(fd);

	/* What is not a pin of fsiter-pin's stays, and fails it. */
	CHECK(fake_pin(pin), "a pin again");
	snprintf(rec, sizeof(rec), "%s/map", old);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);
	CHECK(fd >= 0 && !bpf_obj_pin(fd, rec), "a map");
	close(fd);
	manifest(old, p);
	forget_msgs();
	plan_of(&pl, p, PLAN_APPLY, false);
	CHECK(!plan_move_out(&pl) && pl.moved[0].err == -EEXIST && plan_moved_removed(&pl) == 1,
	      "the pin goes, the map fails it (%d)", pl.nr_moved ? pl.moved[0].err : 0);
	CHECK(said("/map: a BPF map") && !access(rec, F_OK), "the map is named and kept");
	CHECK(!access(file, F_OK), "the manifest stays: the next apply tries again");
	plan_free(&pl);
	unlink(rec);
	unlink(pin);
}

/* A pin-dir on a second bpffs, outside claim_bpffs_root (M1). */
static void test_second_bpffs(void)
{
	char old[PATH_MAX], now[PATH_MAX], p[PATH_MAX], me[PATH_MAX], pin[PATH_MAX + 8];
	char work[PATH_MAX + 16];
	struct claim c;
	struct plan pl;

	snprintf(old, sizeof(old), "%s/second", bpf2);
	snprintf(work, sizeof(work), "%s_staging", old);
	mkdir(old, 0711);
	mkdir(work, 0700);
	pin_dir(now, "from-second");
	policy(p, "second.conf", now);
	policy(me, "me2.conf", NULL);
	snprintf(pin, sizeof(pin), "%s/s1", old);
	CHECK(fake_pin(pin), "a pin on the second bpffs");
	manifest(old, p);
	forget_msgs();
	CHECK(!claim_read(old, &c) && !strcmp(c.policy, p), "its manifest is trusted");
	CHECK(!said("not trusted"), "and not refused");

	plan_of(&pl, me, PLAN_AUDIT, false);
	pl.pin_dir = POLICY_DEFAULT_PIN_DIR;
	CHECK(!plan_orphans(&pl) && pl.nr_orphans == 1 && !strcmp(pl.orphans[0].dir, pin),
	      "audit: its pin is orphaned (%zu)", pl.nr_orphans);
	plan_free(&pl);

	plan_of(&pl, p, PLAN_APPLY, false);
	CHECK(!plan_move_out(&pl) && pl.nr_moved == 1 && !strcmp(pl.moved[0].pin_dir, old) &&
	      plan_moved_removed(&pl) == 1 && !pl.moved[0].err,
	      "apply: the pin on the second bpffs is revoked (%zu)", pl.nr_moved);
	CHECK(access(pin, F_OK) && errno == ENOENT, "and gone");
	plan_free(&pl);
}

static int kinds;

static void count_orphaned(void *arg, const char *kind, const char *pin,
			   const struct loc *loc, const char *detail)
{
	if (!strcmp(kind, "orphaned") && !loc && strstr(detail, "remove --pin-dir"))
		kinds++;
}

/* audit: the pins whose policy is gone or names another pin-dir. */
static void test_orphans(void)
{
	char dir[PATH_MAX], gone[PATH_MAX], me[PATH_MAX], pin[PATH_MAX + 8];
	struct plan pl;

	pin_dir(dir, "orphan");
	policy(gone, "gone.conf", dir);
	policy(me, "me.conf", NULL);
	snprintf(pin, sizeof(pin), "%s/o1", dir);
	CHECK(fake_pin(pin), "a pin");
	manifest(dir, gone);
	plan_of(&pl, me, PLAN_AUDIT, false);
	pl.pin_dir = POLICY_DEFAULT_PIN_DIR;
	CHECK(!plan_orphans(&pl) && pl.nr_orphans == 0, "its policy names it: none");
	plan_free(&pl);
	unlink(gone);
	plan_of(&pl, me, PLAN_AUDIT, false);
	pl.pin_dir = POLICY_DEFAULT_PIN_DIR;
	CHECK(!plan_orphans(&pl) && pl.nr_orphans == 1 && !strcmp(pl.orphans[0].dir, pin) &&
	      strstr(pl.orphans[0].detail, "which no longer exists"),
	      "its policy is gone: orphaned (%zu)", pl.nr_orphans);
	kinds = 0;
	CHECK(plan_findings(&pl, count_orphaned, NULL) == 1 && kinds == 1,
	      "audit's finding 'orphaned'");
	plan_free(&pl);
	policy(gone, "gone.conf", top);
	plan_of(&pl, me, PLAN_AUDIT, false);
	pl.pin_dir = POLICY_DEFAULT_PIN_DIR;
	CHECK(!plan_orphans(&pl) && pl.nr_orphans == 1 &&
	      strstr(pl.orphans[0].detail, "which now names pin-dir"),
	      "its policy names another pin-dir: orphaned");
	plan_free(&pl);
	unlink(pin);
	plan_of(&pl, me, PLAN_AUDIT, false);
	pl.pin_dir = POLICY_DEFAULT_PIN_DIR;
	CHECK(!plan_orphans(&pl) && pl.nr_orphans == 0, "removed: none");
	plan_free(&pl);
}

/* audit of a policy file that is gone: what it left, and how to revoke it (M2). */
static void test_gone(void)
{
	char dir[PATH_MAX], gone[PATH_MAX], nope[PATH_MAX], pin[PATH_MAX + 8];
	struct plan pl;

	pin_dir(dir, "deleted");
	policy(gone, "deleted.conf", dir);
	snprintf(pin, sizeof(pin), "%s/d1", dir);
	CHECK(fake_pin(pin), "a pin");
	manifest(dir, gone);
	unlink(gone);
	forget_msgs();
	memset(&pl, 0, sizeof(pl));
	pl.mode = PLAN_AUDIT;
	pl.policy_path = gone;
	policy_init(&pl.policy);
	pindir_init(&pl.dir);
	claim_policy_name(gone, pl.policy_abs);
	CHECK(!plan_policy_gone(&pl) && pl.policy_gone && pl.nr_orphans == 1 &&
	      !strcmp(pl.orphans[0].dir, pin) && strstr(pl.orphans[0].detail, "which no longer exists"),
	      "its pin is orphaned (%zu)", pl.nr_orphans);
	CHECK(said("deleted.conf: the policy is gone, and deleting it revoked nothing: the 1 pin it made in ") &&
	      said("'fsiter-pin remove --pin-dir ") && said("deleted --all' revokes it"),
	      "said, with how to revoke");
	kinds = 0;
	CHECK(plan_findings(&pl, count_orphaned, NULL) == 1, "a finding: audit's drift");
	plan_free(&pl);
	unlink(pin);

	/* Never applied, nothing orphaned: still just missing. */
	snprintf(nope, sizeof(nope), "%s/nope.conf", etc);
	memset(&pl, 0, sizeof(pl));
	pl.mode = PLAN_AUDIT;
	pl.policy_path = nope;
	policy_init(&pl.policy);
	pindir_init(&pl.dir);
	claim_policy_name(nope, pl.policy_abs);
	CHECK(plan_policy_gone(&pl) == -ENOENT, "a policy no manifest names: -ENOENT");
	plan_free(&pl);
}

/*
 * A refused new pin-dir (another live policy's, or inside another pin
 * directory) still revokes what the policy made in its old one (M3).
 */
static void test_refused_moves_out(void)
{
	char a[PATH_MAX], b[PATH_MAX], n[PATH_MAX], p[PATH_MAX], q[PATH_MAX];
	char pa[PATH_MAX + 8], pb[PATH_MAX + 8], inner[PATH_MAX + 8];
	int ret;

	pin_dir(a, "m3-old");
	pin_dir(b, "m3-taken");
	policy(q, "m3-q.conf", b);
	policy(p, "m3-p.conf", b);
	snprintf(pa, sizeof(pa), "%s/ra", a);
	snprintf(pb, sizeof(pb), "%s/rb", b);
	CHECK(fake_pin(pa) && fake_pin(pb), "pins in A and B");
	manifest(a, p);
	manifest(b, q);

	forget_msgs();
	ret = plan_apply(p, true, false);
	CHECK(ret == -EBUSY && !access(pa, F_OK), "--dry-run: refused (%d), A kept", ret);

	forget_msgs();
	ret = plan_apply(p, false, false);
	CHECK(ret == PLAN_PARTIAL, "apply: B refused, but something was done: exit 3 (%d)", ret);
	CHECK(said("belongs to ") && said("m3-q.conf (its manifest)"), "the refusal is said");
	CHECK(access(pa, F_OK) && errno == ENOENT, "A's pin is revoked all the same");
	CHECK(!access(pb, F_OK), "B's, the other policy's, stays");
	CHECK(said("no pin of its pin-dir was changed, but 1 pin it had made in a pin-dir it no longer names was revoked and removed"),
	      "and the last line says what was done");
	unlink(pb);

	/* A pin-dir inside another pin directory: refused the same way. */
	CHECK(fake_pin(pa), "a pin in A again");
	manifest(a, p);
	pin_dir(n, "m3-nest");
	manifest(n, q);	/* Q's old one: not P's */
	snprintf(inner, sizeof(inner), "%s/inner", n);
	policy(p, "m3-p.conf", inner);
	forget_msgs();
	ret = plan_apply(p, false, false);
	CHECK(ret == PLAN_PARTIAL && said("inside ") && access(pa, F_OK) && errno == ENOENT,
	      "a nested pin-dir: refused, A revoked (%d)", ret);
}

/*
 * Its own old pin directory is no other policy's: A to A/sub and back,
 * as policy_validate() judges the pin-dir and as the move-out leaves
 * the new one (this kernel may lack what a whole apply needs).
 */
static void test_nested_own(void)
{
	char a[PATH_MAX], sub[PATH_MAX + 8], p[PATH_MAX], q[PATH_MAX], pa[PATH_MAX + 8];
	char ps[PATH_MAX + 16], work[PATH_MAX + 32], file[PATH_MAX];
	struct plan pl;

	policy_pin_dir_mine = claim_pin_dir_mine;	/* as plan_build() sets it */
	pin_dir(a, "m3-own");
	snprintf(sub, sizeof(sub), "%s/sub", a);
	snprintf(work, sizeof(work), "%s_staging", sub);
	snprintf(pa, sizeof(pa), "%s/ra", a);
	snprintf(ps, sizeof(ps), "%s/rs", sub);
	CHECK(fake_pin(pa), "a pin in A");
	policy(p, "m3-own.conf", sub);
	policy(q, "m3-other.conf", a);

	/* A to A/sub: A another policy's is refused; its own is not. */
	manifest(a, q);
	plan_of(&pl, p, PLAN_APPLY, false);
	forget_msgs();
	CHECK(policy_validate_pin_dir(&pl.policy) == -EINVAL && said("inside "),
	      "inside another policy's A: refused");
	manifest(a, p);
	forget_msgs();
	CHECK(!policy_validate_pin_dir(&pl.policy), "inside its own A: not refused");
	/* The apply that made A/sub, then its move-out of A. */
	mkdir(sub, 0711);
	mkdir(work, 0700);
	CHECK(!plan_move_out(&pl) && pl.nr_moved == 1 && plan_moved_removed(&pl) == 1 &&
	      !pl.moved[0].err, "A's pin revoked, A/sub and its work directory left (%d)",
	      pl.nr_moved ? pl.moved[0].err : 0);
	CHECK(access(pa, F_OK) && errno == ENOENT && !access(sub, F_OK) && !access(work, F_OK),
	      "A's pin gone, A/sub kept");
	manifest_path(a, ".json", file);
	CHECK(access(file, F_OK) && errno == ENOENT, "A, empty but for A/sub, lost its manifest");
	plan_free(&pl);

	/* A/sub back to A: A/sub_staging, its own, is no other policy's. */
	CHECK(fake_pin(ps), "a pin in A/sub");
	manifest(sub, p);
	policy(p, "m3-own.conf", a);
	plan_of(&pl, p, PLAN_APPLY, false);
	forget_msgs();
	CHECK(!policy_validate_pin_dir(&pl.policy) && !said("holds "), "A holding its own A/sub: not refused");
	CHECK(!plan_move_out(&pl) && pl.nr_moved == 1 && plan_moved_removed(&pl) == 1 &&
	      !pl.moved[0].err, "A/sub's pin revoked");
	CHECK(access(ps, F_OK) && errno == ENOENT, "A/sub's pin gone");
	CHECK(access(sub, F_OK) && access(work, F_OK), "and A/sub and its work directory with it");
	plan_free(&pl);
	policy_pin_dir_mine = NULL;
}

/* The policy changed after it was read: nothing goes, it is read again (L1). */
static void test_changed_under_lock(void)
{
	char a[PATH_MAX], b[PATH_MAX], p[PATH_MAX], pa[PATH_MAX + 8];
	struct plan pl;

	pin_dir(a, "l1-old");
	pin_dir(b, "l1-new");
	snprintf(pa, sizeof(pa), "%s/r", a);
	CHECK(fake_pin(pa), "a pin in A");
	policy(p, "l1.conf", b);
	manifest(a, p);
	plan_of(&pl, p, PLAN_APPLY, false);
	policy(p, "l1.conf", a);	/* the edit taken back, after the read */
	CHECK(plan_move_out(&pl) == -ESTALE && pl.policy_changed && !plan_moved_removed(&pl),
	      "-ESTALE, policy_changed, nothing removed");
	CHECK(!access(pa, F_OK), "A's pin stays");
	plan_free(&pl);
	unlink(pa);
}

/* Claimed by another policy between the check and the lock: refused (L2). */
static void test_claimed_before_lock(void)
{
	char dir[PATH_MAX], p[PATH_MAX], q[PATH_MAX], pin[PATH_MAX + 8];
	struct plan pl;

	pin_dir(dir, "l2");
	policy(p, "l2-p.conf", dir);
	policy(q, "l2-q.conf", dir);
	snprintf(pin, sizeof(pin), "%s/x", dir);
	CHECK(fake_pin(pin), "a pin");
	plan_of(&pl, p, PLAN_APPLY, false);
	CHECK(!plan_claim_check(&pl), "no claim yet: not refused");
	manifest(dir, q);	/* Q's apply, in between */
	CHECK(!pindir_open(&pl.dir, dir, 0), "the lock");
	forget_msgs();
	CHECK(plan_claim_locked(&pl) == -EBUSY && said("l2-q.conf (its manifest)"),
	      "under the lock: refused");
	pl.force = true;
	CHECK(!plan_claim_locked(&pl), "--force: not asked again");
	plan_free(&pl);
	unlink(pin);
}

/* An old pin directory without its work directory: made, and locked (L4). */
static void test_no_work_dir(void)
{
	char a[PATH_MAX], b[PATH_MAX], p[PATH_MAX], pa[PATH_MAX + 8], work[PATH_MAX + 16];
	struct plan pl;

	pin_dir(a, "l4-old");
	pin_dir(b, "l4-new");
	snprintf(work, sizeof(work), "%s_staging", a);
	CHECK(!rmdir(work), "no work directory");
	snprintf(pa, sizeof(pa), "%s/r", a);
	CHECK(fake_pin(pa), "a pin in A");
	policy(p, "l4.conf", b);
	manifest(a, p);
	plan_of(&pl, p, PLAN_APPLY, false);
	CHECK(!plan_move_out(&pl) && plan_moved_removed(&pl) == 1 && !pl.moved[0].err,
	      "A's pin revoked");
	CHECK(access(pa, F_OK) && errno == ENOENT, "and gone");
	CHECK(!access(work, F_OK), "under the lock of a work directory it made");
	plan_free(&pl);
}

int main(void)
{
	struct btf *btf;
	char cmd[256];
	int ret;

	ret = private_bpffs(top);
	if (ret)
		return ret;
	btf = btf__load_vmlinux_btf();
	iter_btf_id = btf ? btf__find_by_name_kind(btf, "bpf_iter_task", BTF_KIND_FUNC) : -1;
	btf__free(btf);
	if (iter_btf_id < 0) {
		printf("skipped: no BTF of bpf_iter_task\n");
		return 77;
	}
	if (!mkdtemp(run) || !mkdtemp(etc) || !mkdtemp(bpf2)) {
		perror("mkdtemp");
		return 2;
	}
	if (mount("bpf", bpf2, "bpf", 0, "mode=0700")) {
		printf("cannot mount a second bpffs: %s\n", strerror(errno));
		return 2;
	}
	chmod(etc, 0755);
	manifest_dir = run;
	claim_bpffs_root = top;
	diag_out = open_memstream(&msgs, &msgs_len);
	test_hostile();
	test_owner();
	test_refused();
	test_moved();
	test_second_bpffs();
	test_orphans();
	test_refused_moves_out();
	test_nested_own();
	test_changed_under_lock();
	test_claimed_before_lock();
	test_no_work_dir();
	test_gone();	/* last: audit drops the capabilities to chown a pin */
	fclose(diag_out);
	diag_out = NULL;
	ret = check_summary();
	if (ret && msgs)
		printf("messages:\n%s", msgs);
	free(msgs);
	umount2(top, MNT_DETACH);
	rmdir(top);
	umount2(bpf2, MNT_DETACH);
	rmdir(bpf2);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s' '%s'", run, etc);
	if (system(cmd))
		ret = 1;
	return ret;
}
