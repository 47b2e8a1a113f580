// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of audit --format=prometheus (src/metrics.c), on the host: the
 * metrics of a made-up plan and pin directory, written to the file
 * argv[1] for metrics-check.sh, which runs promtool on it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fsiter_uapi.h"
#include "metrics.h"
#include "check.h"

static const char pins_json[] =
	"[ { \"name\": \"a\", \"view\": \"inode\","
	"    \"readers\": [ \"u:root\", \"!g:fs\\\"q\", \"u:root\", \"!g:fs\\\"q\" ],"
	"    \"target\": { \"type\": \"inode\", \"gone\": false } },"
	"  { \"name\": \"b\\\\x\\n\", \"view\": \"cache\", \"readers\": [ \"o\" ],"
	"    \"target\": { \"type\": \"inode\", \"gone\": true } },"
	"  { \"name\": \"x\", \"view\": null, \"readers\": [] } ]";

static char *slurp(FILE *f)
{
	static char buf[16384];
	size_t n;

	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	return buf;
}

#define HAS(text, line)	CHECK(strstr(text, line "\n"), "no line '%s'", line)
#define P	"policy=\"/etc/p\\\"q.conf\""

int main(int argc, char **argv)
{
	struct policy_entry e[] = {
		{ .view = view_lookup("inode"), .name = "a", .path = "/a", .mode = 0400 },
		{ .view = view_lookup("cache"), .name = "gone", .path = "/gone" },
	};
	struct plan_item items[] = {
		{ .entry = &e[0], .pinned = true, .drift = DRIFT_MODE | DRIFT_GONE,
		  .pin = { .is_link = true, .mode = 0444 } },
		{ .entry = &e[1], .target_err = -ENOENT },
	};
	char *stale[] = { "x" };
	struct plan pl = { .items = items, .nr_items = 2, .stale = stale, .nr_stale = 1,
			   .policy = { .entries = e, .nr_entries = 2 } };
	struct apply_state last = { true, 1733284800.5, -EINVAL }, never = { 0 };
	json_object *pins = json_tokener_parse(pins_json);
	FILE *f = argc > 1 ? fopen(argv[1], "w+") : tmpfile();
	char *text;
	size_t n;

	if (!f || !pins) {
		perror(argc > 1 ? argv[1] : "tmpfile");
		return 1;
	}
	n = metrics_print(f, "/etc/p\"q.conf", &pl, pins, &last);
	text = slurp(f);
	CHECK(n == 5, "5 findings, got %zu", n);
	HAS(text, "fsiter_pin_audit_success{" P "} 1");
	HAS(text, "fsiter_pin_drift{" P ",kind=\"mode\"} 1");
	HAS(text, "fsiter_pin_drift{" P ",kind=\"target-gone\"} 1");
	HAS(text, "fsiter_pin_drift{" P ",kind=\"target-missing\"} 1");
	HAS(text, "fsiter_pin_drift{" P ",kind=\"missing\"} 1");
	HAS(text, "fsiter_pin_drift{" P ",kind=\"extra\"} 1");
	HAS(text, "fsiter_pin_drift{" P ",kind=\"owner\"} 0");
	HAS(text, "fsiter_pin_pins{" P ",view=\"inode\"} 1");
	HAS(text, "fsiter_pin_pins{" P ",view=\"mount\"} 0");
	HAS(text, "fsiter_pin_pins{" P ",view=\"foreign\"} 1");
	HAS(text, "fsiter_pin_stale_targets{" P "} 1");
	HAS(text, "fsiter_pin_readers{" P ",pin=\"a\"} 1");
	HAS(text, "fsiter_pin_readers{" P ",pin=\"b\\\\x\\n\"} 1");
	HAS(text, "fsiter_pin_reader{" P ",pin=\"a\",reader=\"g:fs\\\"q\"} 0");
	HAS(text, "fsiter_pin_reader{" P ",pin=\"a\",reader=\"u:root\"} 1");
	CHECK(strstr(strstr(text, "reader=\"u:root\"} 1") + 1, "pin=\"a\",reader=\"u:root\"") == NULL,
	      "a reader named twice (group owner and ACL entry) has one series");
	HAS(text, "fsiter_pin_last_apply_timestamp_seconds{" P "} 1733284800.5");
	HAS(text, "fsiter_pin_last_apply_success{" P "} 0");

	/* A plan that could not be built: that, and the last apply. */
	rewind(f);
	CHECK(ftruncate(fileno(f), 0) == 0, "truncate");
	n = metrics_print(f, "/etc/p\"q.conf", NULL, NULL, &never);
	text = slurp(f);
	CHECK(n == 0, "no findings without a plan");
	HAS(text, "fsiter_pin_audit_success{" P "} 0");
	HAS(text, "fsiter_pin_last_apply_timestamp_seconds{" P "} 0");
	CHECK(!strstr(text, "fsiter_pin_drift"), "no drift without a plan");

	/* Invalid UTF-8 in a label becomes U+FFFD. */
	rewind(f);
	CHECK(ftruncate(fileno(f), 0) == 0, "truncate");
	metrics_escape(f, "a\xff\xc3\xa9");
	text = slurp(f);
	CHECK(!strcmp(text, "a\xef\xbf\xbd\xc3\xa9"), "escaped: '%s'", text);
	/* So do control characters: CR, ESC, DEL and C1 (U+009B). */
	rewind(f);
	CHECK(ftruncate(fileno(f), 0) == 0, "truncate");
	metrics_escape(f, "a\rb\x1b[2Jc\x7f\xc2\x9b" "d\xc2\xa0" "e\n");
	text = slurp(f);
	CHECK(!strcmp(text, "a\xef\xbf\xbd" "b\xef\xbf\xbd[2Jc\xef\xbf\xbd\xef\xbf\xbd" "d\xc2\xa0" "e\\n"),
	      "control characters: '%s'", text);

	/* The file for promtool: the first metrics again. */
	rewind(f);
	CHECK(ftruncate(fileno(f), 0) == 0, "truncate");
	metrics_print(f, "/etc/p\"q.conf", &pl, pins, &last);
	fclose(f);
	json_object_put(pins);
	return check_summary();
}
