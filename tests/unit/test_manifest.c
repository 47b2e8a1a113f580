// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the names of the records under /run/fsiter-pin
 * (src/manifest.c): one name per pin directory, as systemd-escape --path
 * gives it, so that /a-b and /a/b keep their own manifests; and a
 * manifest an older fsiter-pin wrote is still read, when it is the pin
 * directory's own; and the directory of the records is refused if it is
 * a symbolic link or others may change it. In a temporary directory, not
 * /run.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "manifest.h"
#include "check.h"

static char dir[] = "/tmp/fsiter-test-manifest.XXXXXX";

/* The name, in manifest_dir, of PIN_DIR's manifest. */
static const char *name_of(const char *pin_dir, char buf[PATH_MAX])
{
	if (manifest_path(pin_dir, ".json", buf))
		return "(too long)";
	return buf + strlen(manifest_dir) + 1;
}

static void test_names(void)
{
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];

	CHECK(!strcmp(name_of("/sys/fs/bpf/fsiter", a), "sys-fs-bpf-fsiter.json"),
	      "the default keeps its name: %s", a);
	name_of("/sys/fs/bpf/a-b", a);
	name_of("/sys/fs/bpf/a/b", b);
	CHECK(strcmp(a, b), "/a-b and /a/b: two names, not %s", a);
	CHECK(!strcmp(name_of("/sys/fs/bpf/a-b", a), "sys-fs-bpf-a\\x2db.json"),
	      "'-' is \\x2d, as systemd-escape writes it: %s", a);
	name_of("/sys/fs/bpf/a\\x2db", c);
	CHECK(strcmp(a, c), "a backslash is escaped too: %s, %s", a, c);
	CHECK(!strcmp(name_of("/sys/fs/bpf/a b\x1b", a), "sys-fs-bpf-a\\x20b\\x1b.json"),
	      "a space and a control byte: %s", a);
	CHECK(!strcmp(name_of("/.x/y.z", a), "\\x2ex-y.z.json"), "a leading '.': %s", a);
}

static int write_one(const char *pin_dir, const char *name)
{
	struct manifest_record r = { .name = name, .view = "inode", .path = "/etc/passwd",
				     .loc = { "t.conf", 1 }, .link_id = 7, .tag = "00",
				     .entry = "inode x /etc/passwd" };

	return manifest_write(pin_dir, &r, 1, "t.conf");
}

/* The pin directory a manifest says it is of, or "". */
static const char *owner_of(json_object *m)
{
	json_object *v;

	return m && json_object_object_get_ex(m, "pin_dir", &v) ?
		json_object_get_string(v) : "";
}

static void test_apart(void)
{
	json_object *m1, *m2;
	struct manifest_entry e;

	CHECK(!write_one("/sys/fs/bpf/a-b", "one") && !write_one("/sys/fs/bpf/a/b", "two"),
	      "two manifests written");
	m1 = manifest_load("/sys/fs/bpf/a-b");
	m2 = manifest_load("/sys/fs/bpf/a/b");
	CHECK(!strcmp(owner_of(m1), "/sys/fs/bpf/a-b") && !manifest_lookup(m1, "one", 7, &e),
	      "/a-b's manifest is its own: %s", owner_of(m1));
	CHECK(!strcmp(owner_of(m2), "/sys/fs/bpf/a/b") && !manifest_lookup(m2, "two", 7, &e),
	      "/a/b's manifest is its own: %s", owner_of(m2));
	json_object_put(m1);
	json_object_put(m2);
}

/* What an older fsiter-pin wrote, under the name /a-b and /a/b shared. */
static void test_legacy(void)
{
	char path[PATH_MAX];
	json_object *m;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys-fs-bpf-c-d.json", manifest_dir);
	f = fopen(path, "w");
	if (!f || fputs("{ \"pin_dir\": \"/sys/fs/bpf/c-d\", \"pins\": {} }\n", f) < 0 ||
	    fclose(f)) {
		printf("cannot write %s\n", path);
		exit(2);
	}
	m = manifest_load("/sys/fs/bpf/c-d");
	CHECK(!strcmp(owner_of(m), "/sys/fs/bpf/c-d"), "an old manifest of /c-d is read");
	json_object_put(m);
	m = manifest_load("/sys/fs/bpf/c/d");
	CHECK(!strcmp(owner_of(m), ""), "and not taken for /c/d's: %s", owner_of(m));
	json_object_put(m);
}

/* The records' directory must be a 0700 directory of ours, not a link. */
static void test_dir_checked(void)
{
	char link[PATH_MAX], sub[PATH_MAX];
	const char *saved = manifest_dir;

	CHECK(!mkdir_manifest_dir(), "%s: 0700, ours", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	CHECK(!mkdir(sub, 0700) && !symlink(sub, link), "a link to a directory");
	manifest_dir = link;
	CHECK(mkdir_manifest_dir() == -EPERM, "a symbolic link: refused");
	manifest_dir = sub;
	CHECK(!chmod(sub, 0755) && mkdir_manifest_dir() == -EPERM, "mode 0755: refused");
	CHECK(!chmod(sub, 0700) && !mkdir_manifest_dir(), "0700: taken");
	manifest_dir = saved;
}

int main(void)
{
	char cmd[128];
	int ret;

	if (!mkdtemp(dir)) {
		perror(dir);
		return 2;
	}
	manifest_dir = dir;
	test_names();
	test_apart();
	test_legacy();
	test_dir_checked();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ret = check_summary();
	if (system(cmd))
		printf("cannot remove %s\n", dir);
	return ret;
}
