// SPDX-License-Identifier: GPL-2.0
/* Neuter the link of a pin that is revoked; see neuter.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "diag.h"
#include "fault.h"
#include "fsiter_uapi.h"
#include "neuter.h"
#include "target_kind.h"
#include "views.h"

/* Is FD a BPF link? Its anon inode says ("bpf-link" from BPF_OBJ_GET). */
static bool is_link(int fd)
{
	char proc[64], what[64];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, what, sizeof(what) - 1);
	if (n < 0)
		return false;
	what[n] = '\0';
	return !strcmp(what, "anon_inode:bpf-link") ||
	       !strcmp(what, "anon_inode:bpf_link");
}

/*
 * The target kind of iterator link LINK_FD into *KIND (NULL: not an fs
 * iterator link), and its id into *ID. 0 or -errno.
 */
static int link_kind(int link_fd, const struct target_kind **kind, __u32 *id)
{
	struct fsiter_link_info info = {};
	char target[64] = "";
	__u32 len = sizeof(info);

	*kind = NULL;
	/* The type first: other links read other members of the union. */
	if (bpf_obj_get_info_by_fd(link_fd, &info, &len))
		return -errno;
	*id = info.id;
	if (info.type != BPF_LINK_TYPE_ITER)
		return 0;
	memset(&info, 0, sizeof(info));
	len = sizeof(info);
	info.iter.target_name = (__u64)(unsigned long)target;
	info.iter.target_name_len = sizeof(target);
	if (bpf_obj_get_info_by_fd(link_fd, &info, &len))
		return errno == ENOSPC ? 0 : -errno;	/* no name of ours */
	*kind = target_kind_of_iter(target);
	return 0;
}

int link_neuter(int fd, const char *name)
{
	const struct target_kind *k = NULL;
	int link_fd = -1, prog_fd, ret;
	char proc[64];
	__u32 id = 0;

	ret = fault_at("neuter");
	if (ret)
		goto out;
	/* The pin's object; fsiter-pin may open any pin read and write. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	link_fd = bpf_obj_get(proc);
	if (link_fd < 0) {
		ret = -errno;
		goto out;
	}
	if (!is_link(link_fd))
		goto out;	/* a map or a program: nothing walks it */
	ret = link_kind(link_fd, &k, &id);
	if (ret || !k)
		goto out;	/* not an fs iterator: no stub of ours fits */
	ret = stub_prog_fd(k - target_kinds, &prog_fd);
	if (!ret && bpf_link_update(link_fd, prog_fd, NULL))
		ret = -errno;
	if (!ret)
		info_v("'%s': link %u now runs %s, which prints nothing", ESC(name),
		       id, k->stub);
out:
	if (ret)
		err("'%s': cannot neuter its link: %s", ESC(name), strerror(-ret));
	if (link_fd >= 0)
		close(link_fd);
	return ret;
}
