// SPDX-License-Identifier: GPL-2.0
/*
 * fsiter-pin audit [--json] [POLICY]
 *
 * Compare what is pinned with the policy, and report each drift:
 * missing and extra pins, owner, mode and ACL changed by hand, a target
 * replaced (the path names another inode or mount now) or gone, a program
 * that is not ours or not this version's, and granted readers who cannot
 * reach the pins. Changes nothing. Exit 0 clean, 1 drift, 2 error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <json-c/json.h>
#include "commands.h"
#include "diag.h"
#include "fsiter_uapi.h"
#include "kernel_support.h"
#include "mounts.h"
#include "perms.h"
#include "pin_json.h"
#include "plan.h"
#include "privs.h"

#define DEFAULT_POLICY	"/etc/fsiter/policy.conf"

struct audit {
	json_object *findings;
	size_t count;
	bool json;
};

static void finding(struct audit *a, const char *kind, const char *pin,
		    const struct loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void finding(struct audit *a, const char *kind, const char *pin,
		    const struct loc *loc, const char *fmt, ...)
{
	char detail[PATH_MAX + 256], source[PATH_MAX + 16] = "";
	json_object *o = json_object_new_object();
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (loc)
		snprintf(source, sizeof(source), "%s:%u", loc->file, loc->line);
	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "pin", json_object_new_string(pin));
	json_object_object_add(o, "detail", json_object_new_string(detail));
	json_object_object_add(o, "source", loc ? json_object_new_string(source) : NULL);
	json_object_array_add(a->findings, o);
	a->count++;
	if (a->json)
		return;
	printf("%-16s %s: %s", kind, pin, detail);
	if (loc)
		printf(" (%s)", source);
	printf("\n");
}

static void check_pin(struct audit *a, struct plan *pl, struct plan_item *it,
		      struct pin_dir *d)
{
	const struct policy_entry *e = it->entry;
	const struct view_prog *v = &pl->views[e->view->id];
	enum view_variant want = plan_variant(e), have;
	const struct view_desc *pv;
	unsigned int drift;
	char path[PATH_MAX];
	struct pin_info pi;
	int diff;

	if (pin_read(d, e->name, &pi)) {
		finding(a, "unreadable", e->name, &e->loc, "cannot read the pin");
		return;
	}
	if (!pi.is_link) {
		finding(a, "foreign", e->name, &e->loc, "not an fs iterator link");
		return;
	}
	drift = pin_drift(it, &pi, v);
	pv = view_by_prog_name(pi.prog_name, &have);
	if (drift & DRIFT_FOREIGN)
		finding(a, "foreign", e->name, &e->loc,
			"program '%s' (tag %s) is not one of fsiter-pin's views",
			pi.prog_name, pi.tag);
	if (drift & DRIFT_VIEW)
		finding(a, "view", e->name, &e->loc, "shows view '%s', the policy says '%s'",
			pv->name, e->view->name);
	if (drift & DRIFT_VARIANT)
		finding(a, "expose-cache", e->name, &e->loc, "%s page-cache state to every reader",
			have == VIEW_ALL ? "shows" : "withholds");
	if (drift & DRIFT_PROGRAM)
		finding(a, "program-changed", e->name, &e->loc,
			"program tag %s, this fsiter-pin's view has %s", pi.tag,
			v->tag[want]);
	if (drift & DRIFT_GONE)
		finding(a, "target-gone", e->name, &e->loc,
			"its filesystem was unmounted; reads fail with ESTALE");
	if ((drift & DRIFT_TARGET) && e->view->target == VIEW_TARGET_MNT)
		finding(a, "target-replaced", e->name, &e->loc,
			"pinned on mount %u, %s is on mount %d now",
			pi.mnt_id, e->path, it->target.mnt_id);
	if ((drift & DRIFT_TARGET) && e->view->target == VIEW_TARGET_INODE)
		finding(a, "target-replaced", e->name, &e->loc,
			"pinned on inode %llu of device %u:%u, %s is inode %lu of %u:%u now",
			(unsigned long long)pi.ino, major(pi.dev), minor(pi.dev),
			e->path, (unsigned long)it->target.ino,
			major(it->target.dev), minor(it->target.dev));
	if (path_join(path, d->path, e->name))
		return;
	diff = perms_diff(d->cur_fd, e->name, path, e);
	if (diff < 0)
		finding(a, "unreadable", e->name, &e->loc, "cannot read owner, mode or ACL");
	if (diff > 0 && (diff & PERMS_OWNER))
		finding(a, "owner", e->name, &e->loc, "owner %u:%u, the policy says %u:%u",
			pi.uid, pi.gid, e->uid, e->gid);
	if (diff > 0 && (diff & PERMS_MODE))
		finding(a, "mode", e->name, &e->loc, "mode %04o, the policy says %04o",
			pi.mode & 07777, e->mode);
	if (diff > 0 && (diff & PERMS_ACL))
		finding(a, "acl", e->name, &e->loc, "the ACL differs from the policy's '%s'",
			e->acl ?: "-");
}

static void note_unreachable(const struct reach_block *b, void *arg)
{
	finding(arg, "unreachable", b->entry->name, &b->entry->loc,
		"grants %s read access, but %s (mode %04o) does not let %s through; '%s' would",
		b->who, b->dir, b->mode, b->other ? "them" : "it", b->fix);
}

static int audit(const char *policy_path, bool json)
{
	struct audit a = { json_object_new_array(), 0, json };
	const struct policy_entry **granted = NULL;
	struct policy p;
	struct plan pl = { 0 };
	struct pin_dir d;
	const char *pin_dir;
	json_object *root = NULL;
	char **names = NULL;
	size_t n = 0, ng = 0;
	bool used[VIEW_COUNT] = { false };
	int ret;

	policy_init(&p);
	pindir_init(&d);
	ret = policy_load(&p, policy_path);
	if (!ret)
		ret = policy_validate(&p);
	if (!ret)
		ret = privs_restrict(PRIVS_READ);
	if (ret)
		goto out;
	pin_dir = p.pin_dir ?: POLICY_DEFAULT_PIN_DIR;
	for (size_t i = 0; i < p.nr_entries; i++)
		used[p.entries[i].view->id] = true;
	ret = kernel_check_views(used);
	if (ret)
		goto out;
	ret = pindir_open(&d, pin_dir, PINDIR_LOOK);
	if (ret && ret != -ENOENT)
		goto out;
	ret = pindir_names(&d, &names, &n);
	pl.items = calloc(p.nr_entries + 1, sizeof(*pl.items));
	granted = calloc(p.nr_entries + 1, sizeof(*granted));
	if (ret || !pl.items || !granted) {
		ret = ret ?: -ENOMEM;
		goto out;
	}
	pl.nr_items = p.nr_entries;
	for (size_t i = 0; i < p.nr_entries; i++) {
		struct plan_item *it = &pl.items[i];
		const struct policy_entry *e = &p.entries[i];
		bool pinned = false;

		it->entry = &p.entries[i];
		ret = view_load(&pl.views[e->view->id], e->view->id);
		if (ret)
			goto out;
		for (size_t j = 0; j < n; j++)
			if (names[j] && !strcmp(names[j], e->name)) {
				free(names[j]);
				names[j] = NULL;
				pinned = true;
			}
		ret = target_open(e->path, &it->target);
		if (ret == -ENOENT && (e->options & POLICY_OPT_NOFAIL)) {
			it->action = PLAN_SKIP;
			if (pinned)
				finding(&a, "extra", e->name, &e->loc,
					"%s does not exist (nofail): apply would remove the pin",
					e->path);
			continue;
		}
		if (ret)
			finding(&a, "target-missing", e->name, &e->loc, "path '%s': %s",
				e->path, target_strerror(ret));
		ret = 0;
		granted[ng++] = e;
		if (!pinned)
			finding(&a, "missing", e->name, &e->loc, "not pinned");
		else
			check_pin(&a, &pl, it, &d);
	}
	for (size_t j = 0; j < n; j++)
		if (names[j])
			finding(&a, "extra", names[j], NULL, "not in the policy");
	ret = perms_check_reach(granted, ng, false, pin_dir, true,
				note_unreachable, &a);
	if (ret == -EACCES)
		ret = 0;
	if (ret)
		goto out;

	if (json) {
		root = json_object_new_object();
		json_object_object_add(root, "version", json_object_new_int(1));
		json_object_object_add(root, "policy", json_object_new_string(policy_path));
		json_object_object_add(root, "pin_dir", json_object_new_string(pin_dir));
		json_object_object_add(root, "clean", json_object_new_boolean(a.count == 0));
		json_object_object_add(root, "findings", json_object_get(a.findings));
		json_object_object_add(root, "pins", pin_json_all(&d));
		printf("%s\n", json_object_to_json_string_ext(root,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	} else if (!a.count) {
		printf("clean: %zu pin%s match%s %s\n", ng, ng == 1 ? "" : "s",
		       ng == 1 ? "es" : "", policy_path);
	} else {
		printf("%zu finding%s: the pins differ from %s\n", a.count,
		       a.count == 1 ? "" : "s", policy_path);
	}
out:
	json_object_put(root);
	json_object_put(a.findings);
	pindir_free_names(names, n);
	free(granted);
	plan_free(&pl);
	pindir_close(&d);
	policy_free(&p);
	mounts_forget();
	if (ret)
		return EXIT_USAGE;	/* 2: could not audit */
	return a.count ? EXIT_FAIL : EXIT_OK;
}

int cmd_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	bool json = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			printf("Usage: fsiter-pin audit [--json] [POLICY]\n");
			return EXIT_OK;
		default:
			return usage_error("audit", NULL);
		}
	}
	if (argc - optind > 1)
		return usage_error("audit", "expected at most one POLICY file");
	return audit(optind < argc ? argv[optind] : DEFAULT_POLICY, json);
}
