// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include "diag.h"
#include "privs.h"

/*
 * apply:
 *   CAP_BPF, CAP_PERFMON  load tracing programs (the views) and create links
 *   CAP_SYS_ADMIN         mount bpffs; bpf_obj_get on pins of other owners
 *   CAP_DAC_READ_SEARCH   open any policy path with O_PATH
 *   CAP_DAC_OVERRIDE      pins and directories in bpffs whatever their mode
 *   CAP_CHOWN, CAP_FOWNER set owner, mode and ACL of pins not owned by root;
 *                         give a revoked pin to root (revoke.c)
 * list and remove need the same: both may revoke pins (list, of a run
 * that was interrupted). audit needs the same minus CAP_CHOWN.
 */
static const cap_value_t caps_apply[] = {
	CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN, CAP_DAC_READ_SEARCH,
	CAP_DAC_OVERRIDE, CAP_CHOWN, CAP_FOWNER,
};
static const cap_value_t caps_read[] = {
	CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN, CAP_DAC_READ_SEARCH,
	CAP_DAC_OVERRIDE, CAP_FOWNER,
};

int privs_restrict(int set)
{
	const cap_value_t *caps = set == PRIVS_APPLY ? caps_apply : caps_read;
	int n = set == PRIVS_APPLY ? sizeof(caps_apply) / sizeof(caps_apply[0]) :
				     sizeof(caps_read) / sizeof(caps_read[0]);
	cap_t cur = NULL, want = NULL;
	int ret = 0;

	cur = cap_get_proc();
	if (!cur)
		return -errno;
	for (int i = 0; i < n; i++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (!CAP_IS_SUPPORTED(caps[i])) {
			char *name = cap_to_name(caps[i]);

			err("this kernel does not know %s", name ? name : "a capability");
			cap_free(name);
			ret = -EPERM;
			continue;
		}
		cap_get_flag(cur, caps[i], CAP_PERMITTED, &v);
		if (v != CAP_SET) {
			char *name = cap_to_name(caps[i]);

			err("missing capability %s (run as root)", name ? name : "?");
			cap_free(name);
			ret = -EPERM;
		}
	}
	if (ret)
		goto out;
	want = cap_init();
	if (!want || cap_set_flag(want, CAP_PERMITTED, n, caps, CAP_SET) ||
	    cap_set_flag(want, CAP_EFFECTIVE, n, caps, CAP_SET)) {
		ret = -errno;
		goto out;
	}
	if (cap_set_proc(want)) {
		ret = -errno;
		err("cannot drop capabilities: %s", strerror(-ret));
		goto out;
	}
	/* Nothing this process runs may gain privileges back. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		ret = -errno;
		goto out;
	}
out:
	cap_free(want);
	cap_free(cur);
	return ret;
}
