// SPDX-License-Identifier: GPL-2.0
/*
 * fsiter-ktool: a test helper for the kernel series, not an admin tool.
 *
 *   fsiter-ktool read [--opath] [--expose-cache] [--withheld-sums] OBJ PROG PATH
 *       print the iterator's output
 *   fsiter-ktool pin  [--opath] [--expose-cache] [--withheld-sums] OBJ PROG PATH PIN
 *       pin an iterator link
 *   fsiter-ktool race OBJ PROG DIR ROUNDS
 *       race the last unlink of a file against umount (ktool_race.c)
 *
 * --opath opens PATH with O_PATH; --expose-cache attaches with
 * BPF_F_FS_ITER_EXPOSE_CACHE, --withheld-sums with
 * BPF_F_FS_ITER_WITHHELD_SUMS.
 *
 * OBJ is a compiled BPF object (a view from bpf/ or a test program), PROG
 * the name of an iter/fs_inode or iter/fs_mnt program in it. The exit
 * status is 0, or 1 with a message naming what failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fsiter_uapi.h"
#include "ktool.h"

/* The fs iterator type of PROG's target, from its section. */
static __u32 iter_type(const struct bpf_program *prog)
{
	static const char *const sections[] = FSITER_FS_ITER_SECTIONS;
	const char *sec = bpf_program__section_name(prog);

	for (__u32 t = 0; t < sizeof(sections) / sizeof(sections[0]); t++)
		if (sections[t] && !strcmp(sec, sections[t]))
			return t;
	return FSITER_FS_ITER_INODE;	/* the RFC's programs */
}

struct bpf_object *ktool_load(const char *obj_path, const char *prog_name,
			      struct bpf_program **progp)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	int err;

	obj = bpf_object__open_file(obj_path, NULL);
	err = libbpf_get_error(obj);
	if (err) {
		fprintf(stderr, "fsiter-ktool: %s: %s\n", obj_path, strerror(-err));
		return NULL;
	}
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog), prog_name));
	prog = bpf_object__find_program_by_name(obj, prog_name);
	if (!prog) {
		fprintf(stderr, "fsiter-ktool: %s: no program '%s'\n", obj_path, prog_name);
		goto err;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "fsiter-ktool: %s: load: %s\n", obj_path, strerror(-err));
		goto err;
	}
	*progp = prog;
	return obj;
err:
	bpf_object__close(obj);
	return NULL;
}

static int attach_and_run(const char *obj_path, const char *prog_name,
			  const char *path, int open_flags, __u32 link_flags,
			  const char *pin)
{
	DECLARE_LIBBPF_OPTS(bpf_iter_attach_opts, opts);
	struct fsiter_iter_link_info linfo = {};
	struct bpf_link *link = NULL;
	struct bpf_object *obj;
	struct bpf_program *prog;
	int fd = -1, iter_fd = -1, err;
	char buf[65536];
	ssize_t nr;

	obj = ktool_load(obj_path, prog_name, &prog);
	if (!obj)
		return -EINVAL;
	fd = open(path, open_flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "fsiter-ktool: %s: %s\n", path, strerror(-err));
		goto out;
	}
	linfo.fs.type = iter_type(prog);
	linfo.fs.fd = fd;
	linfo.fs.flags = link_flags;
	opts.link_info = (union bpf_iter_link_info *)&linfo;
	opts.link_info_len = sizeof(linfo);
	link = bpf_program__attach_iter(prog, &opts);
	err = libbpf_get_error(link);
	if (err) {
		link = NULL;
		fprintf(stderr, "fsiter-ktool: %s: attach: %s\n", path, strerror(-err));
		goto out;
	}
	if (pin) {
		err = bpf_link__pin(link, pin);
		if (err)
			fprintf(stderr, "fsiter-ktool: %s: pin: %s\n", pin, strerror(-err));
		goto out;
	}
	iter_fd = bpf_iter_create(bpf_link__fd(link));
	if (iter_fd < 0) {
		err = -errno;
		fprintf(stderr, "fsiter-ktool: iter_create: %s\n", strerror(-err));
		goto out;
	}
	while ((nr = read(iter_fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, nr, stdout);
	if (nr < 0) {
		err = -errno;
		fprintf(stderr, "fsiter-ktool: %s: read: %s\n", path, strerror(-err));
	}
out:
	if (iter_fd >= 0)
		close(iter_fd);
	bpf_link__destroy(link);	/* a pinned link stays in bpffs */
	if (fd >= 0)
		close(fd);
	bpf_object__close(obj);
	return err;
}

int main(int argc, char **argv)
{
	int flags = O_RDONLY, i = 2;
	__u32 link_flags = 0;

	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--opath"))
			flags = O_PATH;
		else if (!strcmp(argv[i], "--expose-cache"))
			link_flags |= FSITER_F_EXPOSE_CACHE;
		else if (!strcmp(argv[i], "--withheld-sums"))
			link_flags |= FSITER_F_WITHHELD_SUMS;
		else
			break;
	}
	if (argc == i + 3 && !strcmp(argv[1], "read"))
		return attach_and_run(argv[i], argv[i + 1], argv[i + 2], flags,
				      link_flags, NULL) ? 1 : 0;
	if (argc == i + 4 && !strcmp(argv[1], "pin"))
		return attach_and_run(argv[i], argv[i + 1], argv[i + 2], flags,
				      link_flags, argv[i + 3]) ? 1 : 0;
	if (argc == 6 && !strcmp(argv[1], "race"))
		return ktool_race(argv[2], argv[3], argv[4], argv[5]);
	fprintf(stderr, "usage: fsiter-ktool read|pin [--opath] [--expose-cache] [--withheld-sums] OBJ PROG PATH [PIN]\n"
		"       fsiter-ktool race OBJ PROG DIR ROUNDS\n");
	return 2;
}
