// SPDX-License-Identifier: GPL-2.0
/*
 * Validation: the parts of a policy that depend on the system, users and
 * groups through NSS, ACL text through libacl; and the rules that span
 * entries.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/acl.h>
#include <acl/libacl.h>
#include "policy.h"

static int resolve_user(const char *s, uid_t *uid)
{
	struct passwd *pw;
	char *end;

	errno = 0;
	pw = getpwnam(s);
	if (!pw && s[0] >= '0' && s[0] <= '9') {
		unsigned long v = strtoul(s, &end, 10);

		if (!*end && v < (uid_t)-1)
			pw = getpwuid(v);
	}
	if (!pw)
		return -ENOENT;
	*uid = pw->pw_uid;
	return 0;
}

static int resolve_group(const char *s, gid_t *gid)
{
	struct group *gr;
	char *end;

	gr = getgrnam(s);
	if (!gr && s[0] >= '0' && s[0] <= '9') {
		unsigned long v = strtoul(s, &end, 10);

		if (!*end && v < (gid_t)-1)
			gr = getgrgid(v);
	}
	if (!gr)
		return -ENOENT;
	*gid = gr->gr_gid;
	return 0;
}

/* One "u:NAME:r" or "g:NAME:r", parsed by libacl, into G. */
static const char *parse_grant(const char *text, struct policy_grant *g)
{
	acl_entry_t ent;
	acl_permset_t ps;
	acl_tag_t tag;
	const char *why = NULL;
	void *q;
	acl_t acl;

	acl = acl_from_text(text);
	if (!acl)
		return "not an ACL entry, or an unknown user or group";
	if (acl_entries(acl) != 1 || acl_get_entry(acl, ACL_FIRST_ENTRY, &ent) != 1 ||
	    acl_get_tag_type(ent, &tag) < 0 || acl_get_permset(ent, &ps) < 0) {
		why = "not a single ACL entry";
		goto out;
	}
	if (tag != ACL_USER && tag != ACL_GROUP) {
		why = "only named entries u:NAME:r and g:NAME:r (the mode column sets the others)";
		goto out;
	}
	if (acl_get_perm(ps, ACL_WRITE) == 1 || acl_get_perm(ps, ACL_EXECUTE) == 1) {
		why = "pins are only read: grant r or nothing";
		goto out;
	}
	q = acl_get_qualifier(ent);
	if (!q) {
		why = "no user or group in the entry";
		goto out;
	}
	g->is_group = tag == ACL_GROUP;
	g->id = g->is_group ? *(gid_t *)q : *(uid_t *)q;
	g->read = acl_get_perm(ps, ACL_READ) == 1;
	acl_free(q);
out:
	acl_free(acl);
	return why;
}

static int validate_acl(struct policy_entry *e)
{
	char *text, *save = NULL, *tok;
	int ret = 0;

	text = strdup(e->acl);
	if (!text)
		return -ENOMEM;
	for (tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct policy_grant g, *grants;
		const char *why = parse_grant(tok, &g);
		size_t i;

		if (why) {
			err_at(&e->loc, "acl '%s': %s", ESC(tok), why);
			ret = -EINVAL;
			continue;
		}
		for (i = 0; i < e->nr_grants; i++)
			if (e->grants[i].is_group == g.is_group && e->grants[i].id == g.id)
				break;
		if (i < e->nr_grants) {
			err_at(&e->loc, "acl '%s': a second entry for the same %s",
			       ESC(tok), g.is_group ? "group" : "user");
			ret = -EINVAL;
			continue;
		}
		grants = realloc(e->grants, (e->nr_grants + 1) * sizeof(*grants));
		if (!grants) {
			ret = -ENOMEM;
			break;
		}
		e->grants = grants;
		e->grants[e->nr_grants++] = g;
	}
	if (!ret && !e->nr_grants) {
		err_at(&e->loc, "acl '%s': no entries", ESC(e->acl));
		ret = -EINVAL;
	}
	free(text);
	return ret;
}

/* Does E let anyone but root read? */
static bool grants_non_root(const struct policy_entry *e)
{
	if (e->mode & 0044)
		return true;
	if ((e->mode & 0400) && e->uid != 0)
		return true;
	for (size_t i = 0; i < e->nr_grants; i++)
		if (e->grants[i].read)
			return true;
	return false;
}

static int validate_entry(struct policy_entry *e)
{
	int ret = 0, r;

	e->uid = 0;
	e->gid = 0;
	if (e->owner && resolve_user(e->owner, &e->uid)) {
		err_at(&e->loc, "owner '%s': no such user", ESC(e->owner));
		ret = -EINVAL;
	}
	if (e->group && resolve_group(e->group, &e->gid)) {
		err_at(&e->loc, "group '%s': no such group", ESC(e->group));
		ret = -EINVAL;
	}
	if (e->acl) {
		r = validate_acl(e);
		if (r == -ENOMEM)
			return r;
		ret = ret ?: r;
	}
	if (!ret && (e->view->flags & VIEW_SHOWS_KADDR) &&
	    !(e->options & POLICY_OPT_EXPOSE_RAW) && grants_non_root(e)) {
		err_at(&e->loc, "view '%s' shows kernel addresses and is for root only; add the option 'expose-raw' to grant it to others",
		       e->view->name);
		ret = -EINVAL;
	}
	if ((e->options & POLICY_OPT_EXPOSE_CACHE) &&
	    !(e->view->flags & VIEW_SHOWS_CACHE)) {
		err_at(&e->loc, "option 'expose-cache' is for the views that show page-cache state (inode, cache), not '%s'",
		       e->view->name);
		ret = -EINVAL;
	}
	return ret;
}

int policy_validate(struct policy *p)
{
	int ret = 0, r;

	for (size_t i = 0; i < p->nr_entries; i++) {
		struct policy_entry *e = &p->entries[i];

		r = validate_entry(e);
		if (r == -ENOMEM)
			return r;
		ret = ret ?: r;
		for (size_t j = 0; j < i; j++) {
			const struct policy_entry *o = &p->entries[j];

			/* Options may make two views of one file differ
			 * (expose-cache); mode and ACL could be one entry.
			 */
			if (o->view == e->view && o->options == e->options &&
			    !strcmp(o->path, e->path)) {
				err_at(&e->loc, "'%s' repeats '%s' (%s:%u): the same view of the same path with the same options",
				       e->name, o->name, ESC(o->loc.file), o->loc.line);
				ret = -EINVAL;
			}
		}
	}
	return ret;
}
