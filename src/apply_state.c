// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "apply_state.h"
#include "diag.h"
#include "manifest.h"

/* The policy's absolute path, as apply and audit both name it. */
static void absolute(const char *policy, char out[PATH_MAX])
{
	size_t len = strlen(policy), n;

	if (realpath(policy, out))
		return;
	if (*policy == '/' || !getcwd(out, PATH_MAX) ||
	    (n = strlen(out)) + len + 2 > PATH_MAX) {
		snprintf(out, PATH_MAX, "%s", policy);
		return;
	}
	out[n] = '/';
	memcpy(out + n + 1, policy, len + 1);
}

/* /run/fsiter-pin/etc-fsiter-policy.conf.last-apply */
static int state_path(const char *policy, char out[PATH_MAX])
{
	char abs[PATH_MAX];

	absolute(policy, abs);
	return manifest_file(abs, ".last-apply", out);
}

int apply_state_record(const char *policy, int result)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	struct timespec ts;
	json_object *o;
	int ret;

	ret = state_path(policy, path) ?: mkdir_manifest_dir();
	if (ret)
		goto out;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	o = json_object_new_object();
	json_object_object_add(o, "policy", json_object_new_string(policy));
	json_object_object_add(o, "time",
			       json_object_new_double(ts.tv_sec + ts.tv_nsec / 1e9));
	json_object_object_add(o, "result", json_object_new_int(result));
	if (json_object_to_file_ext(tmp, o, JSON_C_TO_STRING_PLAIN) ||
	    chmod(tmp, 0600) || rename(tmp, path)) {
		ret = -errno ?: -EIO;
		unlink(tmp);
	}
	json_object_put(o);
out:
	if (ret)
		warn("%s: cannot record the last apply: %s; the metrics will not show it",
		     manifest_dir, strerror(-ret));
	return ret;
}

void apply_state_read(const char *policy, struct apply_state *st)
{
	char path[PATH_MAX];
	json_object *o = NULL, *t, *r;

	*st = (struct apply_state){ 0 };
	if (state_path(policy, path) || access(path, R_OK))
		return;
	o = json_object_from_file(path);
	if (o && json_object_object_get_ex(o, "time", &t) &&
	    json_object_object_get_ex(o, "result", &r)) {
		st->known = true;
		st->time = json_object_get_double(t);
		st->result = json_object_get_int(r);
	}
	json_object_put(o);
}
