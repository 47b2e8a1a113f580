// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/printbuf.h>
#include "view_json.h"
#include "diag.h"
#include "view_keys.h"

#define DELETED	" (deleted)"

#define MEMBER_FLAGS	(JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

int view_json_init(struct view_json *vj, FILE *out)
{
	*vj = (struct view_json){ .out = out, .views = (1U << VIEW_COUNT) - 1 };
	vj->root = json_object_new_object();
	return vj->root ? 0 : -ENOMEM;
}

/* The next member's start: "{" before the first, "," after the others. */
static void member(struct view_json *vj, const char *name)
{
	fprintf(vj->out, "%s\n  \"%s\": ", vj->started ? "," : "{", name);
	vj->started = true;
}

static void end_list(struct view_json *vj)
{
	if (!vj->list)
		return;
	fprintf(vj->out, "\n  ]");
	vj->done_lists |= 1ULL << (vj->list - view_keys);
	vj->list = NULL;
}

void view_json_end(struct view_json *vj, const char *pin)
{
	const struct view_desc *v = view_json_view(vj);

	end_list(vj);
	json_object_object_add(vj->root, "pin", view_json_text(pin, strlen(pin)));
	json_object_object_add(vj->root, "view", v ? json_object_new_string(v->name) : NULL);
	json_object_object_foreach(vj->root, key, val) {
		member(vj, key);
		fputs(json_object_to_json_string_ext(val, MEMBER_FLAGS), vj->out);
	}
	fprintf(vj->out, "\n}\n");
}

void view_json_free(struct view_json *vj)
{
	json_object_put(vj->root);
	vj->root = NULL;
}

const struct view_desc *view_json_view(const struct view_json *vj)
{
	unsigned int v = vj->views;

	if (!vj->lines || !v || (v & (v - 1)))
		return NULL;
	return &view_table[__builtin_ctz(v)];
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/*
 * Code points a terminal or a log acts on (C1 controls, the line and
 * paragraph separators, bidi marks and overrides, a BOM): what the views
 * escape every byte from 0x80 for (bpf/escape.h). JSON may hold them raw;
 * show writes them as \uXXXX, as it does C0 controls and DEL.
 */
static bool unsafe_cp(unsigned int cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0xfeff;
}

/* json-c's serializer for the strings of view_json_text(): valid UTF-8. */
static int text_to_json(json_object *o, struct printbuf *pb, int level, int flags)
{
	const unsigned char *s = (const unsigned char *)json_object_get_string(o);
	size_t len = json_object_get_string_len(o), i = 0;
	char u[8];

	(void)level;
	(void)flags;
	printbuf_strappend(pb, "\"");
	while (i < len) {
		size_t n = utf8_len(s + i);
		unsigned int cp = s[i];

		if (n > 1) {	/* the code point, for unsafe_cp() */
			cp = s[i] & (0x7f >> n);
			for (size_t k = 1; k < n; k++)
				cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (s[i] == '"' || s[i] == '\\') {
			printbuf_memappend(pb, s[i] == '"' ? "\\\"" : "\\\\", 2);
		} else if (unsafe_cp(cp)) {
			snprintf(u, sizeof(u), "\\u%04x", cp);
			printbuf_memappend(pb, u, 6);
		} else {
			printbuf_memappend(pb, (const char *)s + i, n ? n : 1);
		}
		i += n ? n : 1;
	}
	printbuf_strappend(pb, "\"");
	return 0;
}

/* True if the LEN bytes at S (followed by a NUL) are UTF-8 without a NUL. */
static bool valid_utf8(const unsigned char *s, size_t len)
{
	for (size_t i = 0, n; i < len; i += n)
		if (!s[i] || !(n = utf8_len(s + i)))
			return false;
	return true;
}

json_object *view_json_text(const char *s, size_t len)
{
	json_object *o;
	char *esc, *p;

	if (valid_utf8((const unsigned char *)s, len)) {
		o = json_object_new_string_len(s, len);
		if (o)
			json_object_set_serializer(o, text_to_json, NULL, NULL);
		return o;
	}
	/* Not UTF-8: as the views escape it, every byte from 0x80, and a NUL,
	 * as \ooo, a backslash as \134.
	 */
	esc = malloc(4 * len + 1);
	if (!esc)
		return NULL;
	p = esc;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c >= 0x80 || c == '\\' || !c)
			p += sprintf(p, "\\%03o", c);
		else
			*p++ = c;
	}
	o = view_json_text(esc, p - esc);
	free(esc);
	return o;
}

/*
 * The escaped name S (LEN bytes) decoded: "\ooo" is the byte ooo. If the
 * bytes are not valid UTF-8, the name as escaped, and *ESCAPED set.
 */
static json_object *decode_name(const char *s, size_t len, bool *escaped)
{
	unsigned char *out = malloc(len + 1);
	json_object *o;
	size_t n = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    is_octal(s[i + 2]) && is_octal(s[i + 3])) {
			out[n++] = (s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 |
				   (s[i + 3] - '0');
			i += 3;
		} else {
			out[n++] = s[i];
		}
	}
	out[n] = '\0';
	*escaped = !valid_utf8(out, n);
	o = *escaped ? view_json_text(s, len) : view_json_text((char *)out, n);
	free(out);
	return o;
}

/*
 * The name S (LEN bytes, escaped) decoded, as member KEY of O; a name
 * that is not UTF-8 once decoded stays as printed, and a member
 * KEY_escaped says so. 0 or -ENOMEM.
 */
static int add_name(json_object *o, const char *key, const char *s, size_t len)
{
	json_object *v;
	char flag[64];
	bool escaped;

	v = decode_name(s, len, &escaped);
	if (!v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	if (!escaped)
		return 0;
	snprintf(flag, sizeof(flag), "%s_escaped", key);
	return json_object_object_add(o, flag, json_object_new_boolean(1)) ? -ENOMEM : 0;
}

/* A whole unsigned decimal of LEN bytes at S into *V. */
static bool parse_u64(const char *s, size_t len, unsigned long long *v)
{
	char buf[24], *end;

	if (!len || len >= sizeof(buf) || *s < '0' || *s > '9')
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return !errno && !*end;
}

static json_object *count(const char *s, size_t len, bool *ok)
{
	unsigned long long v;

	if (len == 1 && *s == '-')
		return NULL;
	*ok = parse_u64(s, len, &v);
	return *ok ? json_object_new_uint64(v) : NULL;
}

static json_object *integer(const char *s, size_t len, bool *ok)
{
	bool neg = len && *s == '-';
	unsigned long long v;

	*ok = parse_u64(s + neg, len - neg, &v) && v <= (neg ? 1ULL << 63 : INT64_MAX);
	if (!*ok)
		return NULL;
	return json_object_new_int64(neg ? (int64_t)(0 - v) : (int64_t)v);
}

static json_object *fraction(const char *s, size_t len, bool *ok)
{
	char buf[32];
	size_t i = 0;

	if (len == 1 && *s == '-')
		return NULL;
	/* D.DDDD, 0 to 1: a fraction the view printed, kept as printed. */
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	*ok = i == 1 && *s <= '1' && i + 1 < len && s[i] == '.' && len < sizeof(buf);
	for (i++; *ok && i < len; i++)
		*ok = s[i] >= '0' && s[i] <= '9';
	if (!*ok)
		return NULL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

/* The next word of [*s, end) into W, WL; false at the end. */
static bool next_word(const char **s, const char *end, const char **w, size_t *wl)
{
	const char *p = *s;

	while (p < end && *p == ' ')
		p++;
	if (p == end)
		return false;
	*w = p;
	while (p < end && *p != ' ')
		p++;
	*wl = p - *w;
	*s = p;
	return true;
}

/* VALUE as a record of the words FIELDS names (view_keys.def). */
static int record(const char *fields, const char *v, const char *end,
		  json_object **out, char *why, size_t why_size)
{
	json_object *o = json_object_new_object();
	const char *f = fields, *fw, *w;
	size_t fl, wl;
	char name[32];
	bool ok = true;

	if (!o)
		return -ENOMEM;
	while (next_word(&f, fields + strlen(fields), &fw, &fl)) {
		const char *p = v;
		json_object *val = NULL;

		if (*fw == '?') {
			snprintf(name, sizeof(name), "%.*s", (int)fl - 1, fw + 1);
			if (next_word(&p, end, &w, &wl) && wl == fl - 1 && !memcmp(w, fw + 1, wl)) {
				val = json_object_new_boolean(1);
				v = p;
			} else {
				val = json_object_new_boolean(0);
			}
		} else if (fw[fl - 1] == '$') {
			bool deleted;

			snprintf(name, sizeof(name), "%.*s", (int)fl - 1, fw);
			while (v < end && *v == ' ')
				v++;
			deleted = end - v > (long)strlen(DELETED) &&
				  !memcmp(end - strlen(DELETED), DELETED, strlen(DELETED));
			if (add_name(o, name, v, end - v - (deleted ? strlen(DELETED) : 0))) {
				json_object_put(o);
				return -ENOMEM;
			}
			val = json_object_new_boolean(deleted);
			snprintf(name, sizeof(name), "deleted");
			v = end;
		} else {
			snprintf(name, sizeof(name), "%.*s", (int)fl, fw);
			if (!next_word(&v, end, &w, &wl)) {
				snprintf(why, why_size, "no %s", name);
				goto bad;
			}
			val = count(w, wl, &ok);
			if (!ok) {
				snprintf(why, why_size, "%s '%.*s' is not a count", name, (int)wl, w);
				goto bad;
			}
		}
		json_object_object_add(o, name, val);
	}
	if (next_word(&v, end, &w, &wl)) {
		snprintf(why, why_size, "unexpected '%.*s'", (int)wl, w);
		goto bad;
	}
	*out = o;
	return 0;
bad:
	json_object_put(o);
	return -EINVAL;
}

static int value(const struct view_key *k, const char *v, const char *end,
		 json_object **out, char *why, size_t why_size)
{
	size_t len = end - v;
	bool ok = true;

	*out = NULL;
	switch (k->type) {
	case KEY_COUNT:
		*out = count(v, len, &ok);
		break;
	case KEY_INT:
	case KEY_ERRNO:
		*out = integer(v, len, &ok);
		break;
	case KEY_FRACTION:
		*out = fraction(v, len, &ok);
		break;
	case KEY_TEXT:
	case KEY_NAME:	/* not here: add_name() */
		*out = view_json_text(v, len);
		break;
	case KEY_RECORD:
	case KEY_LIST:
		return record(k->fields, v, end, out, why, why_size);
	}
	if (!ok) {
		snprintf(why, why_size, "'%s': value '%.*s' is not of its type",
			 k->name, (int)(len > 64 ? 64 : len), v);
		return -EINVAL;
	}
	return 0;
}

/* The object that holds the last part of NAME, made as needed. */
static json_object *parent_of(json_object *root, const char *name, const char **leaf)
{
	const char *dot;
	char part[64];

	while ((dot = strchr(name, '.'))) {
		json_object *next;

		snprintf(part, sizeof(part), "%.*s", (int)(dot - name), name);
		if (!json_object_object_get_ex(root, part, &next)) {
			next = json_object_new_object();
			if (!next || json_object_object_add(root, part, next))
				return NULL;
		}
		if (!json_object_is_type(next, json_type_object))
			return NULL;
		root = next;
		name = dot + 1;
	}
	*leaf = name;
	return root;
}

int view_json_line(struct view_json *vj, const char *line, size_t len,
		   char *why, size_t why_size)
{
	const char *sp = memchr(line, ' ', len), *end = line + len, *leaf;
	const char *v = sp ? sp + 1 : end;	/* the value */
	size_t klen = sp ? (size_t)(sp - line) : len;
	const struct view_key *k = view_key_lookup(line, klen);
	json_object *parent, *val;
	int ret;

	if (!k) {
		snprintf(why, why_size, "unknown key '%.*s'", (int)(klen > 64 ? 64 : klen), line);
		return -EINVAL;
	}
	if (!(vj->views & k->views)) {
		snprintf(why, why_size, "key '%s' belongs to no view that prints the keys before it",
			 k->name);
		return -EINVAL;
	}
	parent = parent_of(vj->root, k->name, &leaf);
	if (!parent)
		return -ENOMEM;
	if (k->type != KEY_LIST && json_object_object_get_ex(parent, leaf, NULL)) {
		/* One line a window: the first says the listing is not whole. */
		if (k->type == KEY_ERRNO)
			goto seen;
		snprintf(why, why_size, "key '%s' twice", k->name);
		return -EINVAL;
	}
	if (k->type == KEY_LIST && vj->list != k &&
	    (vj->done_lists & 1ULL << (k - view_keys))) {
		snprintf(why, why_size, "key '%s' again, after the list of another", k->name);
		return -EINVAL;
	}
	if (k->type == KEY_NAME) {
		ret = add_name(parent, leaf, v, end - v);
		if (ret)
			return ret;
		goto seen;
	}
	ret = value(k, v, end, &val, why, why_size);
	if (ret)
		return ret;
	if (!val && k->type != KEY_COUNT && k->type != KEY_FRACTION)
		return -ENOMEM;
	if (k->type == KEY_LIST) {
		if (vj->list != k) {
			end_list(vj);
			member(vj, k->name);
			fprintf(vj->out, "[");
			vj->list = k;
			vj->items = 0;
		}
		fprintf(vj->out, "%s\n    %s", vj->items++ ? "," : "",
			json_object_to_json_string_ext(val, MEMBER_FLAGS));
		json_object_put(val);
	} else if (json_object_object_add(parent, leaf, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
seen:
	vj->views &= k->views;
	vj->lines++;
	return 0;
}
