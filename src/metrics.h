/* SPDX-License-Identifier: GPL-2.0 */
/*
 * audit --format=prometheus: an audit as metrics in Prometheus' text
 * exposition format, for node_exporter's textfile collector. The metrics
 * and their labels are in docs/output.md; every series has the label
 * policy="PATH", so the files of several policies can sit side by side.
 */
#ifndef FSITER_METRICS_H
#define FSITER_METRICS_H

#include <stdio.h>
#include <json-c/json.h>
#include "apply_state.h"
#include "plan.h"

/*
 * Print the metrics of POLICY to OUT: PL is its plan and PINS the pins of
 * its directory (pin_json_all()), or both NULL if the plan could not be
 * built; LAST is its last apply. Returns the number of findings
 * (plan_findings()).
 */
size_t metrics_print(FILE *out, const char *policy, const struct plan *pl,
		     json_object *pins, const struct apply_state *last);

/* S as a label value: \ " and newline escaped; invalid UTF-8 and other
 * control characters (C0, DEL, C1) as U+FFFD.
 */
void metrics_escape(FILE *out, const char *s);

#endif
