// SPDX-License-Identifier: GPL-2.0
/*
 * check: what apply would make of a policy, without a capability, bpffs
 * or our kernel; see engine.h. The parser, the validator and the checks
 * of a path are apply's own (policy_load(), policy_validate(),
 * target_open(), plan_target_check()).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "diag.h"
#include "engine.h"
#include "plan.h"
#include "targets.h"

/* Would E's path pass apply's checks here? 0; 1 if E would fail alone. */
static int check_path(const struct policy_entry *e)
{
	struct target t = { .fd = -1 };
	int ret;

	ret = target_open(e->path, &t);
	if (ret == -ENOENT && (e->options & POLICY_OPT_NOFAIL)) {
		info_v("%s:%u: '%s': %s does not exist here; apply skips it (nofail)",
		       e->loc.file, e->loc.line, e->name, ESC(e->path));
		return 0;
	}
	/* Not ours to see without a capability: apply, as root, will. */
	if (ret == -EACCES && geteuid()) {
		warn("%s:%u: path '%s': %s: not checked as uid %u", e->loc.file,
		     e->loc.line, ESC(e->path), target_strerror(ret), (unsigned int)geteuid());
		return 0;
	}
	if (ret) {
		err_at(&e->loc, "path '%s': %s", ESC(e->path), target_strerror(ret));
		return 1;
	}
	ret = plan_target_check(e, &t);
	target_close(&t);
	return !!ret;
}

int engine_check(const char *policy, bool resolve, size_t *nr_failing)
{
	struct policy p;
	int ret;

	*nr_failing = 0;
	policy_init(&p);
	p.no_resolve = !resolve;
	ret = policy_load(&p, policy);
	if (ret)
		goto out;
	ret = policy_validate(&p);
	/* Users that do not resolve fail their entries, not the policy. */
	if (ret && ret != -ENOENT)
		goto out;
	for (size_t i = 0; i < p.nr_entries; i++) {
		const struct policy_entry *e = &p.entries[i];

		if (e->unresolved)
			++*nr_failing;
		else if (resolve)
			*nr_failing += check_path(e);
	}
	ret = p.nr_entries;
out:
	policy_free(&p);
	return ret;
}
