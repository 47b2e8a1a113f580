// SPDX-License-Identifier: GPL-2.0
/*
 * check: what apply would make of a policy, without a capability, bpffs
 * or our kernel; see engine.h. The parser, the validator and the checks
 * of a path are apply's own (policy_load(), policy_validate(),
 * targets_open(), plan_target_check()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "claim.h"
#include "diag.h"
#include "engine.h"
#include "plan.h"
#include "targets.h"

/* E's path, opened (RET, T): 0 if apply's checks pass here, 1 if E would
 * fail alone.
 */
static int check_path(const struct policy_entry *e, int ret, struct target *t)
{
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
	ret = plan_target_check(e, t);
	target_close(t);
	return !!ret;
}

/* The paths of P's resolved entries, opened as apply opens them: all at
 * once, within one bound (targets_open()), so hung paths do not add up.
 * (Slow ones do, up to TARGET_OPEN_TOTAL_TIMES the bound.)
 */
static int check_paths(const struct policy *p, size_t *nr_failing)
{
	const char **paths = calloc(p->nr_entries ?: 1, sizeof(*paths));
	struct target *t = calloc(p->nr_entries ?: 1, sizeof(*t));
	struct target **ts = calloc(p->nr_entries ?: 1, sizeof(*ts));
	size_t *which = calloc(p->nr_entries ?: 1, sizeof(*which));
	int *rets = calloc(p->nr_entries ?: 1, sizeof(*rets));
	size_t n = 0;
	int ret = -ENOMEM;

	if (!paths || !t || !ts || !which || !rets)
		goto out;
	for (size_t i = 0; i < p->nr_entries; i++) {
		if (p->entries[i].unresolved)
			continue;
		paths[n] = p->entries[i].path;
		t[n].fd = -1;
		ts[n] = &t[n];
		which[n++] = i;
	}
	ret = targets_open(n, paths, ts, rets);
	if (ret)
		goto out;
	for (size_t k = 0; k < n; k++)
		*nr_failing += check_path(&p->entries[which[k]], rets[k], &t[k]);
out:
	free(rets);
	free(which);
	free(ts);
	free(t);
	free(paths);
	return ret;
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
	policy_pin_dir_mine = claim_pin_dir_mine;	/* as apply judges it */
	ret = policy_validate(&p);
	/* Users that do not resolve fail their entries, not the policy. */
	if (ret && ret != -ENOENT)
		goto out;
	for (size_t i = 0; i < p.nr_entries; i++)
		*nr_failing += p.entries[i].unresolved;
	ret = resolve ? check_paths(&p, nr_failing) : 0;
	if (!ret)
		ret = p.nr_entries;
out:
	policy_free(&p);
	return ret;
}
