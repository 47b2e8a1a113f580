// SPDX-License-Identifier: GPL-2.0
/*
 * fsiter-ktool race: the last unlink of a file races the umount of its
 * filesystem, while an fs_inode link holds the file.
 *
 *   fsiter-ktool race OBJ PROG DIR ROUNDS
 *
 * Each round mounts a tmpfs on DIR, creates a file, attaches PROG (an
 * iter/fs_inode program) to it (through an O_PATH fd in half the rounds),
 * removes its last link (unlink, or a rename over it), spins for a random
 * moment and unmounts DIR. The last link going makes a worker drop the
 * link's dentry; the umount must wait for it, or
 * shrink_dcache_for_umount() finds the dentry in use ("Dentry ... still
 * in use", "Busy inodes after unmount"), which the VM harness fails on.
 * The link goes before the unlink, between the unlink and the umount,
 * after the umount, or with an open iterator; in half the rounds the file
 * stays open past the unlink and is chmod'ed (another FS_ATTRIB, which
 * must not queue the worker again once the target let go). Two children
 * attach to files of their own, unlink them and destroy the links all
 * along, so that workers and the last put of a target race too.
 *
 * Exit status 0 if every round went as it must: the umount succeeded, and
 * a link that outlived its filesystem reads ESTALE.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fsiter_uapi.h"
#include "ktool.h"

enum { CHURNERS = 2 };

static int attach_fd(int prog_fd, int fd)
{
	DECLARE_LIBBPF_OPTS(bpf_link_create_opts, opts);
	struct fsiter_iter_link_info linfo = {};

	linfo.fs.type = FSITER_FS_ITER_INODE;
	linfo.fs.fd = fd;
	opts.iter_info = (union bpf_iter_link_info *)&linfo;
	opts.iter_info_len = sizeof(linfo);
	return bpf_link_create(prog_fd, 0, BPF_TRACE_ITER, &opts);
}

static int attach_path(int prog_fd, const char *path)
{
	int fd, link_fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	link_fd = attach_fd(prog_fd, fd);
	err = link_fd < 0 ? -errno : link_fd;
	close(fd);
	return err;
}

/* Read the iterator of LINK_FD to its end: 0 or a negative errno. */
static int read_link(int link_fd)
{
	char buf[4096];
	ssize_t nr;
	int iter_fd, err = 0;

	iter_fd = bpf_iter_create(link_fd);
	if (iter_fd < 0)
		return -errno;
	while ((nr = read(iter_fd, buf, sizeof(buf))) > 0)
		;
	if (nr < 0)
		err = -errno;
	close(iter_fd);
	return err;
}

/*
 * A child: create PATH, attach to it, unlink it, and destroy the link at
 * once or after a read, until killed.
 */
static void churn(int prog_fd, const char *path)
{
	for (;;) {
		int fd, link_fd;

		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			_exit(1);
		close(fd);
		link_fd = attach_path(prog_fd, path);
		if (link_fd < 0 || unlink(path))
			_exit(1);
		if (rand() % 2)
			read_link(link_fd);
		close(link_fd);
	}
}

static void spin_ns(long ns)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < ns);
}

/* One round; 0, or -1 with a message. */
static int round_once(int prog_fd, const char *dir, const char *file, int i)
{
	int fd = -1, link_fd = -1, iter_fd = -1, how = rand() % 4, err = -1;
	bool by_path = rand() % 2, rename_over = rand() % 2, keep_open = rand() % 2;
	char other[4200];

	if (mount("tmpfs", dir, "tmpfs", 0, "size=1m")) {
		fprintf(stderr, "fsiter-ktool: round %d: mount %s: %s\n", i, dir, strerror(errno));
		return -1;
	}
	fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "x", 1) != 1) {
		fprintf(stderr, "fsiter-ktool: round %d: %s: %s\n", i, file, strerror(errno));
		goto out;
	}
	if (by_path) {
		int pfd = open(file, O_PATH | O_CLOEXEC);

		link_fd = pfd < 0 ? -1 : attach_fd(prog_fd, pfd);
		if (pfd >= 0)
			close(pfd);
	} else {
		link_fd = attach_fd(prog_fd, fd);
	}
	if (link_fd < 0) {
		fprintf(stderr, "fsiter-ktool: round %d: attach: %s\n", i, strerror(errno));
		goto out;
	}
	if (!keep_open) {
		close(fd);
		fd = -1;
	}
	if (how == 0) {		/* the link goes first */
		close(link_fd);
		link_fd = -1;
	} else if (how == 1) {	/* an open iterator holds the target too */
		iter_fd = bpf_iter_create(link_fd);
	}
	snprintf(other, sizeof(other), "%s.new", file);
	if (rename_over && close(open(other, O_WRONLY | O_CREAT | O_CLOEXEC, 0644))) {
		fprintf(stderr, "fsiter-ktool: round %d: %s: %s\n", i, other, strerror(errno));
		goto out;
	}
	if (rename_over ? rename(other, file) : unlink(file)) {
		fprintf(stderr, "fsiter-ktool: round %d: %s: %s\n", i,
			rename_over ? "rename" : "unlink", strerror(errno));
		goto out;
	}
	if (fd >= 0) {		/* FS_ATTRIB again, on a file with no link */
		fchmod(fd, 0600);
		close(fd);
		fd = -1;
	}
	spin_ns(rand() % 200000);
	if (how == 2) {		/* the link goes while the worker may run */
		close(link_fd);
		link_fd = -1;
	}
	if (umount2(dir, 0)) {
		fprintf(stderr, "fsiter-ktool: round %d: umount %s: %s\n", i, dir, strerror(errno));
		return -1;	/* still mounted: the next mount would stack */
	}
	err = 0;
	if (link_fd >= 0) {
		int r = read_link(link_fd);

		/* Gone with the unlink or the umount: nothing to show. */
		if (r != -ESTALE) {
			fprintf(stderr, "fsiter-ktool: round %d: read after umount: %s, not ESTALE\n",
				i, strerror(-r));
			err = -1;
		}
	}
	if (iter_fd >= 0)
		close(iter_fd);
	if (link_fd >= 0)
		close(link_fd);
	return err;
out:
	if (fd >= 0)
		close(fd);
	if (iter_fd >= 0)
		close(iter_fd);
	if (link_fd >= 0)
		close(link_fd);
	umount2(dir, MNT_DETACH);
	return -1;
}

int ktool_race(const char *obj_path, const char *prog_name, const char *dir,
	       const char *rounds_arg)
{
	pid_t kids[CHURNERS] = {};
	struct bpf_object *obj = NULL;
	struct bpf_program *prog;
	char file[4096], other[4096];
	int rounds, prog_fd, i, bad = 0, err;
	char *end;

	rounds = strtol(rounds_arg, &end, 10);
	if (*end || rounds <= 0) {
		fprintf(stderr, "fsiter-ktool: race: ROUNDS '%s' is not a positive number\n",
			rounds_arg);
		return 2;
	}
	snprintf(file, sizeof(file), "%s/f", dir);
	snprintf(other, sizeof(other), "%s.churn", dir);
	obj = ktool_load(obj_path, prog_name, &prog);
	if (!obj)
		return 1;
	prog_fd = bpf_program__fd(prog);
	srand(getpid());
	for (i = 0; i < CHURNERS; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			char path[4200];

			srand(getpid());
			snprintf(path, sizeof(path), "%s%d", other, i);
			churn(prog_fd, path);
		}
	}
	for (i = 0; i < rounds; i++)
		if (round_once(prog_fd, dir, file, i) && ++bad >= 5)
			break;	/* say what is wrong, not the same line a thousand times */
	printf("race: %d rounds, %d failed\n", i < rounds ? i + 1 : rounds, bad);
	err = bad ? 1 : 0;
	for (i = 0; i < CHURNERS; i++) {
		if (kids[i] <= 0)
			continue;
		if (waitpid(kids[i], NULL, WNOHANG) == kids[i]) {
			fprintf(stderr, "fsiter-ktool: race: a child that attaches links to %s%d failed\n",
				other, i);
			err = 1;
			continue;
		}
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	for (i = 0; i < CHURNERS; i++) {
		char path[4200];

		snprintf(path, sizeof(path), "%s%d", other, i);
		unlink(path);
	}
	bpf_object__close(obj);
	return err;
}
