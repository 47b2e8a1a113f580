// SPDX-License-Identifier: GPL-2.0
/*
 * bare_pin: the baseline for apply. The bare system calls that apply makes
 * per entry, in a minimal loop: attach the cache view to a file (link
 * create), pin it, chown, chmod, set an ACL. The view is loaded once,
 * outside the timing. Used by bench/guest.sh.
 *
 *   bare_pin OBJ DIR FILE...     prints "ns TOTAL entries N"
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "fsiter_uapi.h"

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	acl_t acl;
	long long t0;
	int n = argc - 3;

	if (argc < 4) {
		fprintf(stderr, "usage: bare_pin OBJ DIR FILE...\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj))
		return 1;
	prog = bpf_object__find_program_by_name(obj, "fsiter_cache");
	acl = acl_from_text("u::r,g::r,o::-,u:fsb:r,m::r");
	if (!prog || !acl)
		return 1;
	t0 = now_ns();
	for (int i = 0; i < n; i++) {
		DECLARE_LIBBPF_OPTS(bpf_iter_attach_opts, opts);
		struct fsiter_iter_link_info linfo = {};
		struct bpf_link *link;
		char pin[4096];
		int fd;

		fd = open(argv[3 + i], O_PATH | O_CLOEXEC);
		linfo.fs.type = FSITER_FS_ITER_INODE;
		linfo.fs.fd = fd;
		opts.link_info = (union bpf_iter_link_info *)&linfo;
		opts.link_info_len = sizeof(linfo);
		link = bpf_program__attach_iter(prog, &opts);
		snprintf(pin, sizeof(pin), "%s/p%d", argv[2], i);
		if (fd < 0 || !link || bpf_link__pin(link, pin) ||
		    chown(pin, 0, 2100) || chmod(pin, 0440) ||
		    acl_set_file(pin, ACL_TYPE_ACCESS, acl)) {
			fprintf(stderr, "bare_pin: %s: %s\n", argv[3 + i], strerror(errno));
			return 1;
		}
		bpf_link__destroy(link);
		close(fd);
	}
	printf("ns %lld entries %d\n", now_ns() - t0, n);
	acl_free(acl);
	bpf_object__close(obj);
	return 0;
}
