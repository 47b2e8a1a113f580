// SPDX-License-Identifier: GPL-2.0
/*
 * The policy parser. A line is a comment (#), a setting ("set KEY VALUE"),
 * or an entry of up to eight whitespace-separated fields:
 *
 *   view name path [mode [owner [group [acl [options]]]]]
 *
 * "-" or a missing trailing field means the default. A field may be
 * double-quoted. Paths (the path field, set pin-dir) take the escapes \\,
 * \", \n, \t and \xNN; no other field does. Nothing here touches the
 * system.
 */
#include <errno.h>
#include <limits.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include "policy.h"
#include "policy_fields.h"

#define MAX_FIELDS	8

enum { F_VIEW, F_NAME, F_PATH, F_MODE, F_OWNER, F_GROUP, F_ACL, F_OPTIONS };

void policy_init(struct policy *p)
{
	memset(p, 0, sizeof(*p));
}

static void entry_free(struct policy_entry *e)
{
	free(e->name);
	free(e->path);
	free(e->owner);
	free(e->group);
	free(e->acl);
	free(e->grants);
}

/*
 * A node of p->by_name: an entry's name and where the entry is. The name
 * is the entry's own string, so it changes when the entry is replaced.
 */
struct name_ref {
	const char *name;
	size_t idx;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct name_ref *)a)->name,
		      ((const struct name_ref *)b)->name);
}

void policy_free(struct policy *p)
{
	tdestroy(p->by_name, free);
	for (size_t i = 0; i < p->nr_entries; i++)
		entry_free(&p->entries[i]);
	free(p->entries);
	for (size_t i = 0; i < p->nr_files; i++)
		free(p->files[i]);
	free(p->files);
	free(p->pin_dir);
	free(p->source);
	policy_init(p);
}

const struct policy_entry *policy_find(const struct policy *p,
				       const char *name)
{
	struct name_ref key = { .name = name };
	struct name_ref **found;

	/* Entries put together without the parser (unit tests) have no tree. */
	if (!p->by_name) {
		for (size_t i = 0; i < p->nr_entries; i++)
			if (!strcmp(p->entries[i].name, name))
				return &p->entries[i];
		return NULL;
	}
	found = tfind(&key, &p->by_name, name_cmp);
	return found ? &p->entries[(*found)->idx] : NULL;
}

/*
 * Split LINE in place into at most MAX_FIELDS + 1 fields (one more, to
 * tell "too many"). A field in double quotes may hold blanks; the quotes
 * go, and a backslash keeps the next character from ending the field or
 * the quote. Escapes are left as written, for the fields that decode them
 * (policy_unescape()). Returns the count, or -1 with *why set.
 */
static int split_fields(char *line, char **fields, const char **why)
{
	int n = 0;
	char *s = line;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || (*s == '#' && n == 0))
			break;
		if (n == MAX_FIELDS + 1)
			break;
		if (*s != '"') {
			fields[n++] = s;
			while (*s && *s != ' ' && *s != '\t') {
				if (*s == '"') {
					*why = "a quote inside a field; quote the whole field";
					return -1;
				}
				if (*s == '\\' && s[1] && s[1] != ' ' && s[1] != '\t')
					s++;
				s++;
			}
			if (*s)
				*s++ = '\0';
			continue;
		}
		fields[n++] = ++s;
		for (;;) {
			if (!*s) {
				*why = "unterminated quote";
				return -1;
			}
			if (*s == '"')
				break;
			if (*s == '\\' && s[1])
				s++;
			s++;
		}
		*s++ = '\0';
		if (*s && *s != ' ' && *s != '\t') {
			*why = "text right after a closing quote";
			return -1;
		}
		if (*s)
			s++;
	}
	return n;
}

static bool is_default(const char *f)
{
	return !f || !strcmp(f, "-");
}

static int add_file(struct policy *p, const char *file, const char **name)
{
	char **files = realloc(p->files, (p->nr_files + 1) * sizeof(*files));

	if (!files)
		return -ENOMEM;
	p->files = files;
	files[p->nr_files] = strdup(file);
	if (!files[p->nr_files])
		return -ENOMEM;
	*name = files[p->nr_files++];
	return 0;
}

static int parse_setting(struct policy *p, const struct loc *loc,
			 char **f, int n)
{
	const char *why;

	if (n != 3) {
		err_at(loc, "'set' takes a key and a value");
		return -EINVAL;
	}
	if (!strcmp(f[1], "pin-dir") || !strcmp(f[1], "pin-dir-mode") ||
	    !strcmp(f[1], "grant-traverse")) {
		const struct loc *first = !strcmp(f[1], "pin-dir") ? &p->pin_dir_loc :
					  f[1][0] == 'p' ? &p->pin_dir_mode_loc :
					  &p->grant_traverse_loc;

		if (first->file == loc->file) {
			err_at(loc, "'set %s' given twice (first at line %u)",
			       f[1], first->line);
			return -EINVAL;
		}
	}
	if (!strcmp(f[1], "pin-dir")) {
		char *dir = strdup(f[2]);

		if (!dir)
			return -ENOMEM;
		why = policy_unescape(dir);
		if (why) {
			err_at(loc, "pin-dir '%s': %s", ESC(f[2]), why);
			free(dir);
			return -EINVAL;
		}
		why = policy_pin_dir_error(dir);
		if (why) {
			err_at(loc, "pin-dir '%s': %s", ESC(dir), why);
			free(dir);
			return -EINVAL;
		}
		free(p->pin_dir);
		p->pin_dir = dir;
		p->pin_dir_loc = *loc;
		return 0;
	}
	if (!strcmp(f[1], "grant-traverse")) {
		if (!strcmp(f[2], "yes")) {
			p->grant_traverse = GRANT_TRAVERSE_YES;
		} else if (!strcmp(f[2], "others")) {
			p->grant_traverse = GRANT_TRAVERSE_OTHERS;
		} else if (!strcmp(f[2], "no")) {
			p->grant_traverse = GRANT_TRAVERSE_NO;
		} else {
			err_at(loc, "grant-traverse '%s': expected 'yes', 'others' or 'no'",
			       ESC(f[2]));
			return -EINVAL;
		}
		p->grant_traverse_loc = *loc;
		return 0;
	}
	if (!strcmp(f[1], "pin-dir-mode")) {
		if (strcmp(f[2], "0755") && strcmp(f[2], "0711")) {
			err_at(loc, "pin-dir-mode '%s': expected 0755 (users list the pin names) or 0711 (names hidden)",
			       ESC(f[2]));
			return -EINVAL;
		}
		p->pin_dir_mode = f[2][2] == '5' ? 0755 : 0711;
		p->pin_dir_mode_loc = *loc;
		return 0;
	}
	err_at(loc, "unknown setting '%s' (known: pin-dir, pin-dir-mode, grant-traverse)",
	       ESC(f[1]));
	return -EINVAL;
}

static int dup_field(char **dst, const char *f)
{
	if (is_default(f)) {
		*dst = NULL;
		return 0;
	}
	*dst = strdup(f);
	return *dst ? 0 : -ENOMEM;
}

/* Parse the fields of an entry into E. Reports each bad field. */
static int parse_entry(struct policy_entry *e, const struct loc *loc,
		       char **f, int n)
{
	const char *why;
	int bad = 0;

	e->loc = *loc;
	if (n < 3) {
		err_at(loc, "an entry needs at least a view, a name and a path");
		return -EINVAL;
	}
	e->view = view_lookup(f[F_VIEW]);
	if (!e->view) {
		err_at(loc, "unknown view '%s' (known: %s)", ESC(f[F_VIEW]), view_names());
		bad = 1;
	}
	why = policy_name_error(f[F_NAME]);
	if (why) {
		err_at(loc, "name '%s': %s", ESC(f[F_NAME]), why);
		bad = 1;
	}
	e->path = strdup(f[F_PATH]);
	if (!e->path)
		return -ENOMEM;
	why = policy_unescape(e->path);
	if (why) {
		err_at(loc, "path '%s': %s", ESC(f[F_PATH]), why);
		bad = 1;
	} else if ((why = policy_path_error(e->path))) {
		err_at(loc, "path '%s': %s", ESC(e->path), why);
		bad = 1;
	}
	e->mode = POLICY_DEFAULT_MODE;
	if (n > F_MODE && !is_default(f[F_MODE])) {
		why = policy_mode_parse(f[F_MODE], &e->mode);
		if (why) {
			err_at(loc, "mode '%s': %s", ESC(f[F_MODE]), why);
			bad = 1;
		}
	}
	if (n > F_OWNER && !is_default(f[F_OWNER]) &&
	    (why = policy_account_error(f[F_OWNER]))) {
		err_at(loc, "owner '%s': %s", ESC(f[F_OWNER]), why);
		bad = 1;
	}
	if (n > F_GROUP && !is_default(f[F_GROUP]) &&
	    (why = policy_account_error(f[F_GROUP]))) {
		err_at(loc, "group '%s': %s", ESC(f[F_GROUP]), why);
		bad = 1;
	}
	if (n > F_ACL && strchr(f[F_ACL], '\\')) {
		err_at(loc, "acl '%s': a backslash; only paths take escapes",
		       ESC(f[F_ACL]));
		bad = 1;
	}
	if (n > F_OPTIONS && !is_default(f[F_OPTIONS])) {
		const char *bad_opt;

		why = policy_options_parse(f[F_OPTIONS], &e->options, &e->top, &bad_opt);
		if (why) {
			err_at(loc, "option '%s': %s", ESC(bad_opt), why);
			bad = 1;
		}
	}
	if (bad)
		return -EINVAL;
	if (dup_field(&e->name, f[F_NAME]) ||
	    dup_field(&e->owner, n > F_OWNER ? f[F_OWNER] : NULL) ||
	    dup_field(&e->group, n > F_GROUP ? f[F_GROUP] : NULL) ||
	    dup_field(&e->acl, n > F_ACL ? f[F_ACL] : NULL))
		return -ENOMEM;
	return 0;
}

/*
 * Add E. A same-named entry of an earlier file is replaced (drop-ins
 * override by name); one of the same file is an error. The names are in a
 * tree, so n entries take O(n log n).
 */
static int add_entry(struct policy *p, struct policy_entry *e)
{
	struct name_ref *ref, **found;

	ref = malloc(sizeof(*ref));
	if (!ref) {
		entry_free(e);
		return -ENOMEM;
	}
	ref->name = e->name;
	ref->idx = p->nr_entries;
	found = tsearch(ref, &p->by_name, name_cmp);
	if (!found) {
		free(ref);
		entry_free(e);
		return -ENOMEM;
	}
	if (*found != ref) {
		struct policy_entry *old = &p->entries[(*found)->idx];

		free(ref);
		if (old->loc.file == e->loc.file) {
			err_at(&e->loc, "duplicate name '%s' (first at line %u)",
			       e->name, old->loc.line);
			entry_free(e);
			return -EINVAL;
		}
		info_v("%s:%u: '%s' overrides %s:%u", ESC(e->loc.file), e->loc.line,
		       e->name, ESC(old->loc.file), old->loc.line);
		entry_free(old);
		*old = *e;
		(*found)->name = old->name;
		return 0;
	}
	if (p->nr_entries == p->entries_cap) {
		size_t cap = p->entries_cap ? 2 * p->entries_cap : 16;
		struct policy_entry *entries;

		entries = reallocarray(p->entries, cap, sizeof(*entries));
		if (!entries) {
			tdelete(ref, &p->by_name, name_cmp);
			free(ref);
			entry_free(e);
			return -ENOMEM;
		}
		p->entries = entries;
		p->entries_cap = cap;
	}
	p->entries[p->nr_entries++] = *e;
	return 0;
}

int policy_parse_buf(struct policy *p, const char *file, const char *buf,
		     size_t len)
{
	size_t pos = 0;
	struct loc loc = { .line = 0 };
	char *line = NULL;
	int ret = 0, r;

	r = add_file(p, file, &loc.file);
	if (r)
		return r;
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - buf - pos) : len - pos;
		struct policy_entry e = { 0 };
		char *f[MAX_FIELDS + 1];
		const char *why = NULL;
		int nf;

		loc.line++;
		free(line);
		line = strndup(buf + pos, n);
		if (!line)
			return -ENOMEM;
		pos += n + 1;
		if (strlen(line) != n) {
			err_at(&loc, "a NUL byte in the line");
			ret = -EINVAL;
			continue;
		}
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		nf = split_fields(line, f, &why);
		if (nf < 0) {
			err_at(&loc, "%s", why);
			ret = -EINVAL;
			continue;
		}
		if (nf == 0)
			continue;
		if (nf > MAX_FIELDS) {
			err_at(&loc, "too many fields (at most %d: view name path mode owner group acl options)",
			       MAX_FIELDS);
			ret = -EINVAL;
			continue;
		}
		if (!strcmp(f[0], "set")) {
			r = parse_setting(p, &loc, f, nf);
		} else {
			r = parse_entry(&e, &loc, f, nf);
			if (!r)
				r = add_entry(p, &e);
			else
				entry_free(&e);
		}
		if (r == -ENOMEM) {
			free(line);
			return r;
		}
		if (r)
			ret = -EINVAL;
	}
	free(line);
	return ret;
}
