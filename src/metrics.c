// SPDX-License-Identifier: GPL-2.0
/* An audit as Prometheus metrics (metrics.h, docs/output.md). */
#include <stdarg.h>
#include <string.h>
#include "diag.h"
#include "metrics.h"
#include "pin_json.h"

/*
 * The finding kinds of plan_findings() (docs/output.md), so that each has
 * a series, 0 when clean: a series that comes and goes breaks rate() and
 * alerts. A kind not listed here still gets its series, after these.
 */
static const char *const known_kinds[] = {
	"missing", "extra", "foreign", "view", "expose-cache", "expose-totals",
	"program-changed", "target-missing", "target-gone", "target-replaced",
	"owner", "mode", "acl", "unreadable", "unreachable", "pin-dir",
	"extra-search", "unsafe-path", "hardlinks", "orphaned",
};
#define NR_KNOWN	(sizeof(known_kinds) / sizeof(known_kinds[0]))
#define MAX_KINDS	(NR_KNOWN + 16)

struct kinds {
	const char *name[MAX_KINDS];
	size_t count[MAX_KINDS];
	size_t n, total;
};

static void count_kind(void *arg, const char *kind, const char *pin,
		       const struct loc *loc, const char *detail)
{
	struct kinds *k = arg;
	size_t i;

	k->total++;
	for (i = 0; i < k->n && strcmp(k->name[i], kind); i++)
		;
	if (i == k->n) {
		if (k->n == MAX_KINDS)
			return;
		k->name[k->n++] = kind;	/* a literal of plan_findings.c */
	}
	k->count[i]++;
}

void metrics_escape(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t len = utf8_len(p);

		if (*p == '\\' || *p == '"')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (!len || *p < 0x20 || *p == 0x7f ||
			 (len == 2 && p[0] == 0xc2 && p[1] < 0xa0))
			/* U+FFFD for what is no UTF-8, and for a control
			 * character: a carriage return or an escape sequence
			 * from a name in NSS must not reach a terminal that
			 * shows the file.
			 */
			fputs("\xef\xbf\xbd", out);
		else
			fwrite(p, 1, len, out);
		p += len ? len : 1;
	}
}

static void header(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* NAME{policy="POLICY"[,KEY="VALUE"]...} VALUE; the labels in pairs, NULL-ended. */
static void series(FILE *out, const char *name, const char *policy, double value, ...)
{
	const char *key, *val;
	va_list ap;

	fprintf(out, "%s{policy=\"", name);
	metrics_escape(out, policy);
	fputc('"', out);
	va_start(ap, value);
	while ((key = va_arg(ap, const char *))) {
		val = va_arg(ap, const char *);
		fprintf(out, ",%s=\"", key);
		metrics_escape(out, val);
		fputc('"', out);
	}
	va_end(ap);
	fprintf(out, "} %.17g\n", value);
}

static bool is_true(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

static void print_pins(FILE *out, const char *policy, json_object *pins)
{
	size_t by_view[VIEW_COUNT + 1] = { 0 }, n = json_object_array_length(pins);
	size_t stale = 0;

	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(pins, i), *t;
		const struct view_desc *v = view_lookup(pin_json_get(o, "view"));

		by_view[v ? v->id : VIEW_COUNT]++;
		if (json_object_object_get_ex(o, "target", &t) && is_true(t, "gone"))
			stale++;
	}
	header(out, "fsiter_pin_pins", "gauge",
	       "Pins in the pin directory, by view (foreign: not one of the views).");
	for (size_t i = 0; i <= VIEW_COUNT; i++)
		series(out, "fsiter_pin_pins", policy, by_view[i], "view",
		       i < VIEW_COUNT ? view_table[i].name : "foreign", NULL);
	header(out, "fsiter_pin_stale_targets", "gauge",
	       "Pins whose target's filesystem was unmounted: reads fail with ESTALE.");
	series(out, "fsiter_pin_stale_targets", policy, stale, NULL);
}

/* The J-th reader of R, unless an earlier one is the same (the group
 * owner may also have a named entry): NULL then.
 */
static const char *reader_at(json_object *r, size_t j)
{
	const char *who = json_object_get_string(json_object_array_get_idx(r, j));

	for (size_t i = 0; i < j; i++) {
		const char *w = json_object_get_string(json_object_array_get_idx(r, i));

		if (!strcmp(w + (*w == '!'), who + (*who == '!')))
			return NULL;
	}
	return who;
}

/* Who may read each pin: its readers, and each one, 0 if it cannot reach it. */
static void print_readers(FILE *out, const char *policy, json_object *pins)
{
	size_t n = json_object_array_length(pins);

	header(out, "fsiter_pin_readers", "gauge",
	       "Readers (u:USER, g:GROUP, o) who can read each pin and reach it.");
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(pins, i), *r = NULL;
		const char *who;
		size_t can = 0;

		json_object_object_get_ex(o, "readers", &r);
		for (size_t j = 0; r && j < json_object_array_length(r); j++)
			can += (who = reader_at(r, j)) && *who != '!';
		series(out, "fsiter_pin_readers", policy, can, "pin",
		       pin_json_get(o, "name"), NULL);
	}
	header(out, "fsiter_pin_reader", "gauge",
	       "Each reader a pin's owner, mode and ACL allow: 1 if it reaches the pin, 0 if a directory above stops it.");
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(pins, i), *r = NULL;
		const char *who;

		json_object_object_get_ex(o, "readers", &r);
		for (size_t j = 0; r && j < json_object_array_length(r); j++)
			if ((who = reader_at(r, j)))
				series(out, "fsiter_pin_reader", policy, *who != '!', "pin",
				       pin_json_get(o, "name"), "reader", who + (*who == '!'),
				       NULL);
	}
}

static void print_last_apply(FILE *out, const char *policy, const struct apply_state *last)
{
	header(out, "fsiter_pin_last_apply_timestamp_seconds", "gauge",
	       "When apply or watch last applied the policy, since this boot (0: never).");
	series(out, "fsiter_pin_last_apply_timestamp_seconds", policy,
	       last->known ? last->time : 0, NULL);
	header(out, "fsiter_pin_last_apply_success", "gauge",
	       "Whether the last apply succeeded (0: it failed, or none ran since boot).");
	series(out, "fsiter_pin_last_apply_success", policy,
	       last->known && !last->result, NULL);
}

size_t metrics_print(FILE *out, const char *policy, const struct plan *pl,
		     json_object *pins, const struct apply_state *last)
{
	struct kinds k = { .n = NR_KNOWN };

	memcpy(k.name, known_kinds, sizeof(known_kinds));
	header(out, "fsiter_pin_audit_success", "gauge",
	       "Whether audit could compare the pins with the policy (0: see the journal).");
	series(out, "fsiter_pin_audit_success", policy, pl != NULL, NULL);
	print_last_apply(out, policy, last);
	if (!pl)
		return 0;
	plan_findings(pl, count_kind, &k);
	header(out, "fsiter_pin_drift", "gauge",
	       "Findings of audit, by kind (fsiter-pin(8)): how the pins differ from the policy.");
	for (size_t i = 0; i < k.n; i++)
		series(out, "fsiter_pin_drift", policy, k.count[i], "kind", k.name[i], NULL);
	print_pins(out, policy, pins);
	print_readers(out, policy, pins);
	return k.total;
}
