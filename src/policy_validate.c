// SPDX-License-Identifier: GPL-2.0
/*
 * Validation: the parts of a policy that depend on the system, users and
 * groups through NSS, ACL text through libacl; and the rules that span
 * entries.
 */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <search.h>
#include <stdint.h>
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

/*
 * What NSS and libacl answered for one text, asked once per validation:
 * a policy of many entries names few users, and each getpwnam() may read
 * /etc/passwd again.
 */
struct lookup {
	char kind;		/* 'u' user, 'g' group, 'a' one ACL entry */
	char *text;
	int ret;		/* 'u', 'g': 0 or -ENOENT */
	unsigned int id;
	const char *why;	/* 'a': NULL, or why the entry is bad */
	struct policy_grant grant;
};

/* The ids that names get without NSS (no_resolve), counted from here: far
 * from any real one, and never root's.
 */
#define UNRESOLVED_ID_BASE	0x40000000u
static unsigned int unresolved_ids;

/* NAME's id without asking NSS: "root" is 0, digits are that id, any
 * other name an id of its own (one per lookup() of it: the cache keeps it).
 */
static unsigned int unresolved_id(const char *name)
{
	char *end;
	unsigned long v;

	if (!strcmp(name, "root"))
		return 0;
	v = strtoul(name, &end, 10);
	if (name[0] >= '0' && name[0] <= '9' && !*end && v < UNRESOLVED_ID_BASE)
		return v;
	return UNRESOLVED_ID_BASE + unresolved_ids++;
}

static int lookup_cmp(const void *a, const void *b)
{
	const struct lookup *x = a, *y = b;

	return x->kind != y->kind ? x->kind - y->kind : strcmp(x->text, y->text);
}

static void lookup_free(void *l)
{
	free(((struct lookup *)l)->text);
	free(l);
}

static bool grant_text_ok(const char *tok);

/* The answer for KIND and TEXT from CACHE, asked now if it is not there;
 * without NSS if NO_RESOLVE.
 */
static const struct lookup *lookup(void **cache, char kind, const char *text,
				   bool no_resolve)
{
	struct lookup key = { .kind = kind, .text = (char *)text }, *l, **found;

	found = tfind(&key, cache, lookup_cmp);
	if (found)
		return *found;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->kind = kind;
	l->text = strdup(text);
	if (!l->text || !(found = tsearch(l, cache, lookup_cmp))) {
		lookup_free(l);
		return NULL;
	}
	if (no_resolve && (kind == 'u' || kind == 'g')) {
		l->id = unresolved_id(text);
	} else if (no_resolve && grant_text_ok(text)) {
		/* "u:NAME:r": the name's own lookup gives its id. */
		char *name = strndup(text + 2, strlen(text) - 4);
		const struct lookup *n = name ? lookup(cache, text[0], name, true) : NULL;

		free(name);
		if (!n)
			return NULL;
		l->grant = (struct policy_grant){ text[0] == 'g', n->id,
						  text[strlen(text) - 1] == 'r' };
	} else if (kind == 'u') {
		uid_t uid = 0;

		l->ret = resolve_user(text, &uid);
		l->id = uid;
	} else if (kind == 'g') {
		gid_t gid = 0;

		l->ret = resolve_group(text, &gid);
		l->id = gid;
	} else {
		l->why = parse_grant(text, &l->grant);
	}
	return l;
}

/* Is TOK "u:NAME:r", "g:NAME:r" or with "-", whatever NAME resolves to?
 * NAME as useradd(8) and NSS services write one: letters, digits, and
 * "_.-@$".
 */
static bool grant_text_ok(const char *tok)
{
	size_t n = strlen(tok);

	if (n <= 4 || (tok[0] != 'u' && tok[0] != 'g') || tok[1] != ':' ||
	    tok[n - 2] != ':' || (tok[n - 1] != 'r' && tok[n - 1] != '-'))
		return false;
	for (size_t i = 2; i < n - 2; i++)
		if (!isalnum((unsigned char)tok[i]) && !strchr("_.-@$", tok[i]))
			return false;
	return true;
}

bool policy_acl_names(const struct policy_entry *e, bool is_group,
		      const char *name, bool *read)
{
	char *text, *save = NULL, *tok;
	size_t n = strlen(name);
	bool found = false;

	/* Without memory, no name: the caller then keeps nothing for it. */
	if (!e->acl || !(text = strdup(e->acl)))
		return false;
	for (tok = strtok_r(text, ",", &save); tok && !found;
	     tok = strtok_r(NULL, ",", &save)) {
		found = grant_text_ok(tok) && tok[0] == (is_group ? 'g' : 'u') &&
			strlen(tok) == n + 4 && !strncmp(tok + 2, name, n);
		if (found && read)
			*read = tok[n + 3] == 'r';
	}
	free(text);
	return found;
}

/* E's ACL column into its grants. 0; -ENOENT if the only trouble is a
 * name that does not resolve; or -EINVAL (reported), -ENOMEM.
 */
static int validate_acl(struct policy_entry *e, void **cache, bool no_resolve)
{
	char *text, *save = NULL, *tok;
	int ret = 0;

	text = strdup(e->acl);
	if (!text)
		return -ENOMEM;
	for (tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct lookup *l = lookup(cache, 'a', tok, no_resolve);
		struct policy_grant g, *grants;
		size_t i;

		if (!l) {
			ret = -ENOMEM;
			break;
		}
		if (l->why && grant_text_ok(tok)) {
			/* Well formed: the name is what does not resolve. */
			err_at(&e->loc, "acl '%s': no such %s", ESC(tok),
			       tok[0] == 'u' ? "user" : "group");
			ret = ret ?: -ENOENT;
			continue;
		}
		if (l->why) {
			err_at(&e->loc, "acl '%s': %s", ESC(tok), l->why);
			ret = -EINVAL;
			continue;
		}
		g = l->grant;
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

/* The first expose-* option of OPTIONS, for messages. */
static const char *expose_name(unsigned int options)
{
	if (options & POLICY_OPT_EXPOSE_RAW)
		return "expose-raw";
	if (options & POLICY_OPT_EXPOSE_CACHE)
		return "expose-cache";
	return "expose-totals";
}

static int validate_entry(struct policy_entry *e, void **cache, bool no_resolve)
{
	const struct lookup *owner = NULL, *group = NULL;
	bool unresolved = false;
	int ret = 0, r;

	if ((e->owner && !(owner = lookup(cache, 'u', e->owner, no_resolve))) ||
	    (e->group && !(group = lookup(cache, 'g', e->group, no_resolve))))
		return -ENOMEM;
	e->uid = owner && !owner->ret ? owner->id : 0;
	e->gid = group && !group->ret ? group->id : 0;
	e->owner_unresolved = owner && owner->ret;
	e->group_unresolved = group && group->ret;
	if (e->owner_unresolved) {
		err_at(&e->loc, "owner '%s': no such user", ESC(e->owner));
		unresolved = true;
	}
	if (e->group_unresolved) {
		err_at(&e->loc, "group '%s': no such group", ESC(e->group));
		unresolved = true;
	}
	if (e->acl) {
		r = validate_acl(e, cache, no_resolve);
		if (r == -ENOMEM)
			return r;
		if (r == -ENOENT)
			unresolved = true;
		else
			ret = ret ?: r;
	}
	/* The rules below need the ids; an entry that lacks one fails. */
	if (unresolved && !ret) {
		e->unresolved = true;
		return -ENOENT;
	}
	if (!ret && (e->view->flags & VIEW_SHOWS_KADDR) &&
	    !(e->options & POLICY_OPT_EXPOSE_RAW) && grants_non_root(e)) {
		err_at(&e->loc, "view '%s' shows kernel addresses and is for root only; add the option 'expose-raw' to grant it to others",
		       e->view->name);
		ret = -EINVAL;
	}
	/* The owner of a pin may chmod it and set its ACL: with a non-root
	 * owner the policy would not bound who reads what expose-* lifts.
	 */
	if (owner && !owner->ret && e->uid != 0 && (e->options & POLICY_OPT_EXPOSE)) {
		const char *opt = expose_name(e->options);

		err_at(&e->loc, "owner '%s' with '%s': the owner of a pin can chmod it wider than the policy says; %s needs owner root",
		       ESC(e->owner), opt, opt);
		ret = -EINVAL;
	}
	if ((e->options & POLICY_OPT_EXPOSE_CACHE) &&
	    !(e->view->flags & VIEW_SHOWS_CACHE)) {
		err_at(&e->loc, "option 'expose-cache' is for the views that show page-cache state (%s), not '%s'",
		       view_names_showing_cache(), e->view->name);
		ret = -EINVAL;
	}
	if ((e->options & POLICY_OPT_EXPOSE_TOTALS) && e->view->target != TARGET_SB) {
		err_at(&e->loc, "option 'expose-totals' is for the views of a whole filesystem (%s), not '%s'",
		       view_names_whole_fs(), e->view->name);
		ret = -EINVAL;
	} else if ((e->options & POLICY_OPT_EXPOSE_TOTALS) &&
		   (e->options & POLICY_OPT_EXPOSE_CACHE)) {
		err_at(&e->loc, "options 'expose-cache' and 'expose-totals' together: with expose-cache nothing is withheld, so the totals are whole already; give one of them");
		ret = -EINVAL;
	}
	if (e->top && !(e->view->flags & VIEW_TAKES_TOP)) {
		err_at(&e->loc, "option 'top=%u' is for the views that list files (%s), not '%s'",
		       e->top, view_names_taking_top(), e->view->name);
		ret = -EINVAL;
	}
	return ret;
}

unsigned int policy_entry_top(const struct policy_entry *e)
{
	if (!(e->view->flags & VIEW_TAKES_TOP))
		return 0;
	return e->top ?: POLICY_TOP_DEFAULT;
}

/* Order of entries for finding repeats: view, options, path, then place. */
static int repeat_cmp(const void *a, const void *b, void *arg)
{
	const struct policy_entry *entries = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct policy_entry *x = &entries[i], *y = &entries[j];
	int c;

	if (x->view->id != y->view->id)
		return x->view->id < y->view->id ? -1 : 1;
	if (x->options != y->options)
		return x->options < y->options ? -1 : 1;
	if (policy_entry_top(x) != policy_entry_top(y))
		return policy_entry_top(x) < policy_entry_top(y) ? -1 : 1;
	c = strcmp(x->path, y->path);
	if (c)
		return c;
	return i < j ? -1 : i > j;
}

/*
 * For each entry, the first entry of the same view, options and path, or
 * SIZE_MAX: one sort, so n entries take O(n log n). Options may make two
 * views of one file differ (expose-cache); mode and ACL could be one entry.
 */
static size_t *find_repeats(const struct policy *p)
{
	size_t n = p->nr_entries, *order, *first;

	order = calloc(n ?: 1, sizeof(*order));
	first = calloc(n ?: 1, sizeof(*first));
	if (!order || !first) {
		free(order);
		free(first);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
		first[i] = SIZE_MAX;
	}
	qsort_r(order, n, sizeof(*order), repeat_cmp, p->entries);
	for (size_t k = 1, head = 0; k < n; k++) {
		const struct policy_entry *x = &p->entries[order[head]];
		const struct policy_entry *y = &p->entries[order[k]];

		if (x->view == y->view && x->options == y->options &&
		    policy_entry_top(x) == policy_entry_top(y) && !strcmp(x->path, y->path))
			first[order[k]] = order[head];
		else
			head = k;
	}
	free(order);
	return first;
}

int policy_validate(struct policy *p)
{
	size_t *first = find_repeats(p);
	bool unresolved = false;
	void *cache = NULL;
	int ret = 0, r;

	if (!first)
		return -ENOMEM;
	unresolved_ids = 0;
	for (size_t i = 0; i < p->nr_entries; i++) {
		struct policy_entry *e = &p->entries[i];
		const struct policy_entry *o;

		r = validate_entry(e, &cache, p->no_resolve);
		if (r == -ENOMEM) {
			ret = r;
			break;
		}
		if (r == -ENOENT)
			unresolved = true;
		else
			ret = ret ?: r;
		if (first[i] == SIZE_MAX)
			continue;
		o = &p->entries[first[i]];
		err_at(&e->loc, "'%s' repeats '%s' (%s:%u): the same view of the same path with the same options",
		       e->name, o->name, ESC(o->loc.file), o->loc.line);
		ret = -EINVAL;
	}
	free(first);
	tdestroy(cache, lookup_free);
	if (ret != -ENOMEM)
		ret = policy_validate_pin_dir(p) ?: ret;
	return ret ?: unresolved ? -ENOENT : 0;
}
