// SPDX-License-Identifier: GPL-2.0
/* The helper process that looks up targets_open()'s paths; open_helper.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>
#include "dir_trust.h"
#include "open_helper.h"
#include "targets.h"

/*
 * PATH, one component at a time from "/", each opened under the fd of
 * the directory before it: no symlink followed (RESOLVE_NO_SYMLINKS also
 * refuses a trailing one: no O_NOFOLLOW, with which O_PATH would open the
 * link itself), nothing above it (RESOLVE_BENEATH). Notes in T the first
 * unsafe directory. The last fd, or -errno.
 */
static int walk(const char *path, struct target *t)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
	};
	const char *p = path, *end;
	char name[NAME_MAX + 1];
	struct stat dst, cst;
	int dir = -1, fd = -1, ret;

	dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || fstat(dir, &dst))
		goto fail;
	for (;;) {
		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		if (end == p)
			return dir;
		if (!S_ISDIR(dst.st_mode)) {
			errno = ENOTDIR;
			goto fail;
		}
		if (end - p > NAME_MAX) {
			errno = ENAMETOOLONG;
			goto fail;
		}
		memcpy(name, p, end - p);
		name[end - p] = '\0';
		fd = syscall(SYS_openat2, dir, name, &how, sizeof(how));
		if (fd < 0 || fstat(fd, &cst))
			goto fail;
		if (!t->unsafe_len && dir_unsafe(dir, &dst, cst.st_uid, &t->unsafe))
			t->unsafe_len = p - 1 > path ? (unsigned int)(p - 1 - path) : 1;
		close(dir);
		dir = fd;
		fd = -1;
		dst = cst;
		p = end;
	}
fail:
	ret = -errno;
	if (fd >= 0)
		close(fd);
	if (dir >= 0)
		close(dir);
	return ret;
}

/*
 * In the helper: walk PATH and statx what it leads to (either may block).
 * Fills T's fd, mode, nlink and unsafe transition; the parent fills the
 * rest (finish()). 0 or -errno.
 */
static int open_path(const char *path, struct target *t)
{
	struct statx stx;
	int fd, ret;

	t->fd = -1;
	t->unsafe_len = 0;
	fd = walk(path, t);
	if (fd < 0)
		return fd;
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		  STATX_TYPE | STATX_MODE | STATX_NLINK, &stx) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (S_ISLNK(stx.stx_mode)) {	/* cannot happen; never pin a link */
		close(fd);
		return -ELOOP;
	}
	t->fd = fd;
	t->mode = stx.stx_mode;
	t->nlink = stx.stx_nlink;
	return 0;
}

/* The helper's work, as the parent sent it. */
struct helper {
	char **paths;
	bool *hang;		/* FSITER_FAULT's open~ */
	size_t n;
	int sock;
	size_t next;		/* the next path to take, atomic */
};

static void send_reply(int sock, const struct open_reply *r, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)r, sizeof(*r) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	/* A parent that gave up has closed its end: nothing to do. */
	while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

static void *open_worker(void *arg)
{
	struct helper *h = arg;
	size_t k;

	while ((k = __atomic_fetch_add(&h->next, 1, __ATOMIC_RELAXED)) < h->n) {
		struct target t = { .fd = -1 };
		struct open_reply r = { .k = k };

		char name[16];

		/* The thread's name says which path it is on: once the
		 * helper is killed, the threads left are those stuck, and
		 * their names say on what (targets.c, stuck_paths()).
		 */
		/* (9 digits at most: the name is 15 bytes) */
		snprintf(name, sizeof(name), "%s%u", TARGET_HELPER_BUSY, (unsigned int)k % 1000000000);
		prctl(PR_SET_NAME, name);
		while (h->hang[k])
			pause();
		r.ret = open_path(h->paths[k], &t);
		prctl(PR_SET_NAME, TARGET_HELPER_BUSY "-");
		r.mode = t.mode;
		r.nlink = t.nlink;
		r.unsafe_len = t.unsafe_len;
		r.unsafe = t.unsafe;
		send_reply(h->sock, &r, t.fd);
		target_close(&t);
	}
	return NULL;
}

/*
 * The helper keeps nothing of the parent's but SOCK, as fd 3: not the
 * lock, not the pin directory, not a view, not stdout (a shell reading
 * the parent's output would wait for a stuck helper too). 0 or -1.
 */
static int helper_fds(int sock)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int s = fcntl(sock, F_DUPFD, 3);

	if (s < 0)
		return -1;
	for (int fd = 0; fd < 3; fd++)
		if (null < 0 ? close(fd) && errno != EBADF : dup2(null, fd) < 0)
			return -1;
	if (dup2(s, 3) < 0)
		return -1;
	if (close_range(4, ~0U, 0)) {
		long max = sysconf(_SC_OPEN_MAX);

		for (long fd = 4; fd < max; fd++)
			close(fd);
	}
	return 0;
}

/* The requests on SOCK, until the parent shuts its end: 0 or -1. */
static int read_requests(struct helper *h)
{
	static char buf[sizeof(struct open_request) + PATH_MAX + 1];
	struct open_request rq;
	size_t cap = 0;
	ssize_t len;

	for (;;) {
		len = recv(h->sock, buf, sizeof(buf) - 1, 0);
		if (len < 0 && errno == EINTR)
			continue;
		if (len <= 0)
			return len;
		if ((size_t)len <= sizeof(rq))
			return -1;
		memcpy(&rq, buf, sizeof(rq));
		buf[len] = '\0';
		if (rq.k != h->n)
			return -1;
		if (h->n == cap) {
			cap = cap ? 2 * cap : 64;
			h->paths = realloc(h->paths, cap * sizeof(*h->paths));
			h->hang = realloc(h->hang, cap * sizeof(*h->hang));
			if (!h->paths || !h->hang)
				return -1;
		}
		h->hang[h->n] = rq.hang;
		h->paths[h->n] = strdup(buf + sizeof(rq));
		if (!h->paths[h->n++])
			return -1;
	}
}

/*
 * The helper, a program of its own: fsiter-pin (or whatever links the
 * engine) executed again by targets_open() as TARGET_HELPER_NAME PPID,
 * with its socket as fd 3. Run before main(), from a constructor: it
 * shares no memory with its parent, not even copy-on-write pages (after
 * a bare fork, the parent misbehaved on them in the test VMs: design.md,
 * "No unbounded wait"). It reads the paths, looks them up, up to
 * TARGET_OPEN_THREADS at once, and sends each fd back. It ends only when
 * its parent kills it, closes its end of the socket or dies: so the
 * parent, which kills it before it closes the socket, never signals a
 * pid that is no longer its child's, even with SIGCHLD ignored (no
 * zombie then).
 */
__attribute__((constructor)) static void helper_main(int argc, char **argv)
{
	struct pollfd p = { .fd = 3 };
	struct helper h = { .sock = 3 };
	size_t started = 0;
	pthread_attr_t attr;
	pthread_t th;
	int type = 0;
	socklen_t tl = sizeof(type);
	char *end;
	long parent;

	if (argc != 2 || strcmp(argv[0], TARGET_HELPER_NAME) ||
	    getsockopt(3, SOL_SOCKET, SO_TYPE, &type, &tl) || type != SOCK_SEQPACKET)
		return;
	parent = strtol(argv[1], &end, 10);
	prctl(PR_SET_NAME, TARGET_HELPER_NAME);
	if (*end || prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent ||
	    helper_fds(3) || read_requests(&h) || chdir("/"))
		_exit(1);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, TARGET_OPEN_STACK);
	for (size_t i = 0; i < h.n && i < TARGET_OPEN_THREADS; i++)
		started += !pthread_create(&th, &attr, open_worker, &h);
	if (!started)
		open_worker(&h);
	/* POLLHUP once the parent closed its end (it shut writing before). */
	while (!(poll(&p, 1, -1) > 0 && (p.revents & (POLLHUP | POLLERR))))
		;
	_exit(0);
}

pid_t open_helper_spawn(int sock)
{
	posix_spawn_file_actions_t fa;
	char ppid[24], *argv[] = { TARGET_HELPER_NAME, ppid, NULL };
	posix_spawnattr_t attr;
	sigset_t none;
	pid_t pid = -1;
	int ret;

	snprintf(ppid, sizeof(ppid), "%d", (int)getpid());
	sigemptyset(&none);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_adddup2(&fa, sock, 3);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	ret = -posix_spawn(&pid, "/proc/self/exe", &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return ret ?: pid;
}

