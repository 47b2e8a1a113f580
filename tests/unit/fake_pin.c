// SPDX-License-Identifier: GPL-2.0
/*
 * fake-pin PATH [map]: pin at PATH what fsiter-pin takes for one of its
 * pins on a kernel without the series: an iterator link of the task
 * target whose program is named as the inode view's (pin_foreign()
 * goes by the program's name); owned by uid and gid 2001, mode 0440. With
 * "map", a BPF map instead: not a pin of fsiter-pin's. For the host tests
 * of claims-check.sh; exit 77 if the kernel has no task iterator.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static int link_fd(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_ITER);
	struct btf *btf = btf__load_vmlinux_btf();
	int prog, link, id;

	id = btf ? btf__find_by_name_kind(btf, "bpf_iter_task", BTF_KIND_FUNC) : -1;
	btf__free(btf);
	if (id < 0)
		return -ENOENT;
	o.attach_btf_id = id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "fsiter_inode", "GPL", insns, 2, &o);
	if (prog < 0)
		return -errno;
	link = bpf_link_create(prog, 0, BPF_TRACE_ITER, NULL);
	if (link < 0)
		link = -errno;
	close(prog);
	return link;
}

int main(int argc, char **argv)
{
	bool map = argc == 3 && !strcmp(argv[2], "map");
	int fd;

	if (argc != 2 && !map) {
		fprintf(stderr, "usage: fake-pin PATH [map]\n");
		return 2;
	}
	fd = map ? bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL) : link_fd();
	if (fd == -ENOENT) {
		fprintf(stderr, "fake-pin: no task iterator in this kernel's BTF\n");
		return 77;
	}
	if (fd < 0 || bpf_obj_pin(fd, argv[1]) || chown(argv[1], 2001, 2001) ||
	    chmod(argv[1], 0440)) {
		fprintf(stderr, "fake-pin: %s: %s\n", argv[1], strerror(fd < 0 ? -fd : errno));
		return 1;
	}
	return 0;
}
