// SPDX-License-Identifier: GPL-2.0
/*
 * fsiter-pin apply [--dry-run] POLICY
 *
 * parse -> validate -> check privileges, bpffs and the kernel -> open the
 * targets -> load the views -> check readers can reach the pins -> plan
 * against what is pinned -> build the next generation -> switch to it.
 * Readers see the old pins until the switch, one rename; a failure before
 * it removes the new generation.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>
#include "commands.h"
#include "diag.h"
#include "kernel_support.h"
#include "manifest.h"
#include "mounts.h"
#include "perms.h"
#include "plan.h"
#include "privs.h"

static int open_targets(struct plan *pl)
{
	int ret = 0;

	for (size_t i = 0; i < pl->nr_items; i++) {
		struct plan_item *it = &pl->items[i];
		const struct policy_entry *e = it->entry;
		int r = target_open(e->path, &it->target);

		if (r == -ENOENT && (e->options & POLICY_OPT_NOFAIL)) {
			info("%s:%u: '%s': %s does not exist; skipped (nofail)",
			     e->loc.file, e->loc.line, e->name, e->path);
			it->action = PLAN_SKIP;
			continue;
		}
		if (r) {
			err_at(&e->loc, "path '%s': %s", e->path, target_strerror(r));
			ret = -EINVAL;
		}
	}
	return ret;
}

static int load_views(struct plan *pl)
{
	for (size_t i = 0; i < pl->nr_items; i++) {
		const struct policy_entry *e = pl->items[i].entry;
		int ret;

		if (pl->items[i].action == PLAN_SKIP)
			continue;
		ret = view_load(&pl->views[e->view->id], e->view->id);
		if (ret)
			return ret;
	}
	return 0;
}

/* Reachability, for the entries that will be pinned. */
static int check_reach(const struct plan *pl, bool grant_traverse,
		       const char *pin_dir, bool dry_run)
{
	const struct policy_entry **entries;
	size_t n = 0;
	int ret;

	entries = calloc(pl->nr_items + 1, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	for (size_t i = 0; i < pl->nr_items; i++)
		if (pl->items[i].action != PLAN_SKIP)
			entries[n++] = pl->items[i].entry;
	ret = perms_check_reach(entries, n, grant_traverse, pin_dir, dry_run,
				NULL, NULL);
	free(entries);
	return ret;
}

static bool needs_acls(const struct policy *p)
{
	if (p->grant_traverse)
		return true;
	for (size_t i = 0; i < p->nr_entries; i++)
		if (p->entries[i].nr_grants)
			return true;
	return false;
}

/* The kernel checks: fs targets for the views in use; ACLs in bpffs. */
static int check_kernel(const struct policy *p, const char *pin_dir)
{
	bool used[VIEW_COUNT] = { false };
	char dir[PATH_MAX];
	struct statfs sf;
	int ret, fd;

	for (size_t i = 0; i < p->nr_entries; i++)
		used[p->entries[i].view->id] = true;
	/* Both checks run, so one message lists all that is missing. */
	ret = kernel_check_views(used);
	if (!needs_acls(p))
		return ret;
	/* The deepest directory of pin-dir that exists, on bpffs. */
	snprintf(dir, sizeof(dir), "%s", pin_dir);
	while ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		char *slash = strrchr(dir, '/');

		if (errno != ENOENT || !slash || slash == dir)
			return ret;	/* dry run without bpffs */
		*slash = '\0';
	}
	if (!fstatfs(fd, &sf) && (unsigned long)sf.f_type == BPF_FS_MAGIC)
		ret = kernel_check_bpffs_acl(fd, dir) ?: ret;
	close(fd);
	return ret;
}

int apply_policy(const char *policy_path, bool dry_run)
{
	struct policy p;
	struct plan pl = { 0 };
	struct pin_dir d;
	const char *pin_dir;
	bool no_bpffs;
	int ret;

	policy_init(&p);
	pindir_init(&d);
	ret = policy_load(&p, policy_path);
	if (!ret)
		ret = policy_validate(&p);
	if (ret)
		goto out;
	pin_dir = p.pin_dir ?: POLICY_DEFAULT_PIN_DIR;

	ret = privs_restrict(PRIVS_APPLY);
	if (ret)
		goto out;
	umask(077);
	ret = mounts_ensure_bpffs(pin_dir, dry_run);
	if (ret < 0)
		goto out;
	no_bpffs = ret == 1;
	ret = check_kernel(&p, pin_dir);
	if (ret)
		goto out;

	pl.items = calloc(p.nr_entries ?: 1, sizeof(*pl.items));
	if (!pl.items) {
		ret = -ENOMEM;
		goto out;
	}
	pl.nr_items = p.nr_entries;
	for (size_t i = 0; i < p.nr_entries; i++) {
		pl.items[i].entry = &p.entries[i];
		pl.items[i].target.fd = -1;
	}
	ret = open_targets(&pl);
	if (ret)
		goto out;
	ret = load_views(&pl);
	if (ret)
		goto out;
	ret = check_reach(&pl, p.grant_traverse, pin_dir, dry_run);
	if (ret)
		goto out;

	ret = no_bpffs ? 0 : pindir_open(&d, pin_dir,
					 dry_run ? PINDIR_LOOK : PINDIR_CREATE);
	if (ret && !(dry_run && ret == -ENOENT))
		goto out;
	ret = plan_compare(&pl, &d);
	if (ret)
		goto out;
	if (dry_run || !plan_has_changes(&pl)) {
		plan_print(&pl, dry_run);
		/* /run may have been emptied: record what is there anyway */
		if (!dry_run)
			manifest_write(&d, &pl, policy_path);
		goto out;
	}
	ret = gen_begin(&d);
	if (ret)
		goto out;
	ret = plan_stage(&pl, &d);
	if (ret) {
		gen_abort(&d);
		goto out;
	}
	ret = gen_commit(&d);
	if (!ret) {
		manifest_write(&d, &pl, policy_path);
		plan_print(&pl, false);
	}
out:
	if (ret)
		err("%s: nothing was changed", policy_path);
	plan_free(&pl);
	pindir_close(&d);
	policy_free(&p);
	mounts_forget();	/* watch applies again after mounts change */
	return ret;
}

int cmd_apply(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	bool dry_run = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "nh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			dry_run = true;
			break;
		case 'h':
			printf("Usage: fsiter-pin apply [--dry-run] POLICY\n");
			return EXIT_OK;
		default:
			return usage_error("apply", NULL);
		}
	}
	if (optind != argc - 1)
		return usage_error("apply", "expected one POLICY file");
	return apply_policy(argv[optind], dry_run) ? EXIT_FAIL : EXIT_OK;
}
