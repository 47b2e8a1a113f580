// SPDX-License-Identifier: GPL-2.0
/*
 * fuse-hang [--slow MS | --file] DIR: a FUSE filesystem on DIR that answers
 * FUSE_INIT and then reads every request and never answers one, as a hung
 * FUSE daemon does; with --slow, answers each, one at a time, after MS
 * milliseconds, with ENOENT (a slow server that does answer). With
 * --file, it serves one file, DIR/f (0666, root's, one page of zeros),
 * mounted with default_permissions and allow_other and with attributes
 * that are never cached, so that every permission check of another user
 * asks the server; on SIGUSR1 it stops answering anything (a server that
 * hangs once a file is open or pinned).
 * A process whose request it read waits for the answer uninterruptibly,
 * even once killed: the case where no thread can be given up on. It
 * prints "ready" once mounted and initialised. On SIGTERM or SIGINT it
 * detaches the mount and exits; its exit aborts the connection, and each
 * waiter then gets ENOTCONN. Straight on /dev/fuse (<linux/fuse.h>), no
 * libfuse. Exits 77 where FUSE cannot be mounted (not root, no /dev/fuse,
 * a kernel without FUSE).
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/fuse.h>

static volatile sig_atomic_t stop, hang;

static void on_signal(int sig)
{
	stop = 1;
}

static void on_usr1(int sig)
{
	hang = 1;
}

/* Answer FUSE_INIT (the request in BUF) with what a 7.31 server says. */
static int init_reply(int fd, const struct fuse_in_header *in)
{
	const struct fuse_init_in *ii = (const void *)(in + 1);
	struct fuse_out_header out = {
		.len = sizeof(out) + sizeof(struct fuse_init_out),
		.unique = in->unique,
	};
	struct fuse_init_out io = {
		.major = FUSE_KERNEL_VERSION,
		.minor = 31,
		.max_readahead = ii->max_readahead,
		.max_write = 4096,
		.max_background = 16,
		.congestion_threshold = 12,
	};
	struct iovec iov[2] = { { &out, sizeof(out) }, { &io, sizeof(io) } };

	return writev(fd, iov, 2) == (ssize_t)out.len ? 0 : -1;
}

/* Answer IN with ENOENT, after SLOW_MS. */
static int slow_reply(int fd, const struct fuse_in_header *in, long slow_ms)
{
	struct timespec ts = { slow_ms / 1000, (slow_ms % 1000) * 1000000L };
	struct fuse_out_header out = {
		.len = sizeof(out), .error = -ENOENT, .unique = in->unique,
	};

	nanosleep(&ts, NULL);
	return write(fd, &out, sizeof(out)) == sizeof(out) ? 0 : -1;
}

/* Answer IN with ERROR and LEN bytes of BODY. */
static int reply(int fd, const struct fuse_in_header *in, int error,
		 const void *body, size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + len, .error = error, .unique = in->unique,
	};
	struct iovec iov[2] = { { &out, sizeof(out) }, { (void *)body, len } };

	return writev(fd, iov, len ? 2 : 1) == (ssize_t)out.len ? 0 : -1;
}

/* The attributes of node 1 (the root) or 2 (f), valid for no time. */
static void file_attr(__u64 node, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->mode = node == 1 ? S_IFDIR | 0755 : S_IFREG | 0666;
	a->nlink = node == 1 ? 2 : 1;
	a->size = node == 1 ? 0 : 4096;
	a->blocks = a->size / 512;
	a->blksize = 4096;
}

/* --file: answer IN as a filesystem that holds one file, f. */
static int file_reply(int fd, const struct fuse_in_header *in)
{
	static char zeros[4096];
	const char *name = (const char *)(in + 1);
	struct fuse_entry_out e = { .entry_valid = 3600 };
	struct fuse_attr_out ao = { 0 };
	struct fuse_open_out oo = { .fh = 1 };
	struct fuse_statfs_out so = { .st = { .bsize = 4096, .namelen = 255 } };
	const struct fuse_read_in *ri = (const void *)(in + 1);

	switch (in->opcode) {
	case FUSE_LOOKUP:
		if (in->nodeid != 1 || strcmp(name, "f"))
			return reply(fd, in, -ENOENT, NULL, 0);
		e.nodeid = 2;
		e.generation = 1;
		file_attr(2, &e.attr);
		return reply(fd, in, 0, &e, sizeof(e));
	case FUSE_GETATTR:
		file_attr(in->nodeid, &ao.attr);
		return reply(fd, in, 0, &ao, sizeof(ao));
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		return reply(fd, in, 0, &oo, sizeof(oo));
	case FUSE_READ:
		return reply(fd, in, 0, zeros, ri->offset >= sizeof(zeros) ? 0 :
			     ri->size < sizeof(zeros) - ri->offset ?
			     ri->size : sizeof(zeros) - ri->offset);
	case FUSE_STATFS:
		return reply(fd, in, 0, &so, sizeof(so));
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FLUSH:
	case FUSE_ACCESS:
		return reply(fd, in, 0, NULL, 0);
	default:
		return reply(fd, in, -ENOSYS, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	static char buf[1 << 17];	/* FUSE_MIN_READ_BUFFER at least */
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	unsigned long requests = 0;
	long slow_ms = 0;
	bool file = false;
	char opts[160];
	int fd;

	if (argc == 4 && !strcmp(argv[1], "--slow")) {
		slow_ms = atol(argv[2]);
		argv += 2;
		argc -= 2;
	} else if (argc == 3 && !strcmp(argv[1], "--file")) {
		file = true;
		argv++;
		argc--;
	}
	if (argc != 2 || slow_ms < 0) {
		fprintf(stderr, "usage: fuse-hang [--slow MS | --file] DIR\n");
		return 2;
	}
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "fuse-hang: /dev/fuse: %s\n", strerror(errno));
		return 77;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0%s", fd,
		 file ? ",default_permissions,allow_other" : "");
	if (mount("fuse-hang", argv[1], "fuse", MS_NOSUID | MS_NODEV, opts)) {
		fprintf(stderr, "fuse-hang: mount %s: %s\n", argv[1], strerror(errno));
		return errno == EPERM || errno == ENODEV ? 77 : 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	while (!stop) {
		ssize_t len = read(fd, buf, sizeof(buf));
		const struct fuse_in_header *in = (const void *)buf;

		if (len < 0 && errno == EINTR)
			continue;
		if (len < (ssize_t)sizeof(*in)) {
			fprintf(stderr, "fuse-hang: read: %s\n", len < 0 ? strerror(errno) : "short");
			break;
		}
		if (in->opcode == FUSE_FORGET || in->opcode == FUSE_BATCH_FORGET)
			continue;	/* never answered, by any server */
		if (in->opcode != FUSE_INIT && file && !hang) {
			if (file_reply(fd, in))
				fprintf(stderr, "fuse-hang: reply: %s\n", strerror(errno));
			continue;
		}
		if (in->opcode != FUSE_INIT && slow_ms) {
			if (slow_reply(fd, in, slow_ms) && errno != ENOENT)
				fprintf(stderr, "fuse-hang: reply: %s\n", strerror(errno));
			continue;
		}
		if (in->opcode != FUSE_INIT) {
			requests++;	/* and never answered */
			continue;
		}
		if (init_reply(fd, in)) {
			fprintf(stderr, "fuse-hang: FUSE_INIT: %s\n", strerror(errno));
			break;
		}
		printf("ready\n");
		fflush(stdout);
	}
	umount2(argv[1], MNT_DETACH);
	fprintf(stderr, "fuse-hang: %lu requests left unanswered\n", requests);
	return 0;
}
