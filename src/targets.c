// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/openat2.h>
#include "diag.h"
#include "dir_trust.h"
#include "fault.h"
#include "mounts.h"
#include "targets.h"

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

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

/*
 * In the parent, once the helper passed FD: the mount id and i_ino of the
 * open file from fdinfo (5.14+), and its superblock's device from
 * mountinfo. Neither asks the file's filesystem. 0 or -errno.
 */
static int finish(struct target *t)
{
	char fdinfo[64], line[128];
	FILE *f;

	t->ino = 0;
	t->mnt_id = -1;
	snprintf(fdinfo, sizeof(fdinfo), "/proc/self/fdinfo/%d", t->fd);
	f = fopen(fdinfo, "re");
	if (!f)		/* EMFILE too: say so, not EIO */
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "mnt_id: %d", &t->mnt_id);
		sscanf(line, "ino: %lu", &t->ino);
	}
	fclose(f);
	if (t->mnt_id < 0 || !t->ino || mounts_devno_of(t->mnt_id, &t->dev))
		return -EIO;
	return 0;
}

/* What the helper sends for the Kth path it was given, with the fd. */
struct open_reply {
	uint32_t k;
	int32_t ret;
	uint32_t mode;
	uint32_t nlink;
	uint32_t unsafe_len;
	struct dir_trust unsafe;
};

/* The helper's work, as the parent sent it. */
struct helper {
	char **paths;
	bool *hang;		/* FSITER_FAULT's open~ */
	size_t n;
	int sock;
	size_t next;		/* the next path to take, atomic */
};

/* What the parent sends for each path, the path following. */
struct open_request {
	uint32_t k;
	uint32_t hang;
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

		while (h->hang[k])
			pause();
		r.ret = open_path(h->paths[k], &t);
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

/* Start the helper with SOCK as its fd 3: its pid, or -errno. */
static pid_t spawn_helper(int sock)
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

/* Send the paths from *K on (HANG: make that one hang) while the socket
 * takes them, and shut writing after the last. 0 or -errno.
 */
static int send_requests(int sock, const char *const *paths, const bool *hang,
			 size_t m, size_t *k)
{
	while (*k < m) {
		struct open_request rq = { .k = *k, .hang = hang[*k] };
		struct iovec iov[2] = {
			{ &rq, sizeof(rq) },
			{ (void *)paths[*k], strlen(paths[*k]) },
		};
		struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };

		if (sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		(*k)++;
	}
	return shutdown(sock, SHUT_WR) ? -errno : 0;
}

/* 1 and the reply in *R (and its fd in *FD, or -1); 0 at the end; -errno. */
static int recv_reply(int sock, struct open_reply *r, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 4)];
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	ssize_t len;

	*fd = -1;
	len = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (len <= 0)
		return len < 0 ? -errno : 0;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		int nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int), got;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (int i = 0; i < nfds; i++) {
			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd < 0)
				*fd = got;
			else
				close(got);
		}
	}
	if (len != sizeof(*r)) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -EPROTO;
	}
	/* The kernel drops an fd this process has no room for. */
	if (!r->ret && *fd < 0)
		r->ret = (msg.msg_flags & MSG_CTRUNC) ? -EMFILE : -EPROTO;
	if (r->ret && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return 1;
}

/*
 * Helpers killed but not reaped yet: one stuck in the kernel (a FUSE
 * request its server read and never answers) cannot be until it wakes.
 * Reaped without waiting, at the next run (watch) or by init once this
 * process exits. Each keeps the paths it had no answer for: while it is
 * stuck, a later run does not ask for them again, so that a path that
 * keeps hanging under watch leaves one stuck helper, not one a run.
 */
struct stuck_helper {
	pid_t pid;
	char **paths;
	size_t n;
};
static struct stuck_helper *unreaped;
static size_t nr_unreaped;

static void stuck_free(struct stuck_helper *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->paths[i]);
	free(s->paths);
}

static void reap_helpers(void)
{
	size_t j = 0;

	for (size_t i = 0; i < nr_unreaped; i++) {
		if (!waitpid(unreaped[i].pid, NULL, WNOHANG))
			unreaped[j++] = unreaped[i];
		else
			stuck_free(&unreaped[i]);
	}
	nr_unreaped = j;
}

/* Is a helper still stuck on PATH? */
static bool still_stuck(const char *path)
{
	for (size_t i = 0; i < nr_unreaped; i++)
		for (size_t k = 0; k < unreaped[i].n; k++)
			if (!strcmp(unreaped[i].paths[k], path))
				return true;
	return false;
}

/* Kill helper PID, and keep it with the M PATHS it had no answer for
 * (GOT[K] false) if it cannot be reaped yet.
 */
static void let_go(pid_t pid, const char *const *paths, const bool *got, size_t m)
{
	struct stuck_helper *u, s = { pid };

	kill(pid, SIGKILL);	/* our child, not reaped: the pid is its */
	if (waitpid(pid, NULL, WNOHANG))
		return;
	s.paths = calloc(m + 1, sizeof(*s.paths));
	for (size_t k = 0; s.paths && k < m; k++)
		if (!got[k] && (s.paths[s.n] = strdup(paths[k])))
			s.n++;
	u = realloc(unreaped, (nr_unreaped + 1) * sizeof(*u));
	if (!u) {
		stuck_free(&s);
		return;		/* a zombie until we exit */
	}
	unreaped = u;
	unreaped[nr_unreaped++] = s;
}

static unsigned int open_timeout_s = TARGET_OPEN_TIMEOUT_S;

unsigned int targets_open_timeout(void)
{
	const char *s = getenv("FSITER_OPEN_TIMEOUT");
	char *end;
	long v;

	open_timeout_s = TARGET_OPEN_TIMEOUT_S;
	if (!s || !*s)
		return open_timeout_s;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > 3600)
		warn("FSITER_OPEN_TIMEOUT '%s': expected seconds, 1 to 3600; using %u",
		     ESC(s), open_timeout_s);
	else
		open_timeout_s = v;
	return open_timeout_s;
}

/*
 * Send the helper the M paths PATHS and take its replies on SOCK, both
 * at once (replies it cannot send would stop it reading): each fills the
 * target of its path. The Kth path is TODO[K]'s; GOT[K] says it was
 * answered, *LEFT how many were not. The wait ends when no reply has come
 * for the open timeout: a hung path costs that once, whatever the number
 * of paths, and a long list that keeps answering is not cut short. 0, or
 * -ECHILD if the helper went away first.
 */
static int exchange(int sock, const char *const *paths, const bool *hang, size_t m,
		    const size_t *todo, struct target *const *ts, int *rets,
		    bool *got, size_t *left)
{
	long idle = targets_open_timeout() * 1000L, deadline = now_ms() + idle;
	struct pollfd p = { .fd = sock };
	struct open_reply r;
	struct target *t;
	size_t sent = 0;
	int ret, fd;

	while (*left) {
		long wait = deadline - now_ms();

		if (wait <= 0)
			return 0;
		p.events = POLLIN | (sent < m ? POLLOUT : 0);
		ret = poll(&p, 1, wait > INT_MAX ? INT_MAX : (int)wait);
		if (ret < 0 && errno != EINTR)
			return -ECHILD;
		if (ret <= 0)
			continue;
		if ((p.revents & POLLOUT) && send_requests(sock, paths, hang, m, &sent))
			sent = m;	/* a helper gone shows in the replies */
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		ret = recv_reply(sock, &r, &fd);
		if (ret == -EAGAIN || ret == -EINTR || ret == -EPROTO)
			continue;
		if (ret <= 0)
			return -ECHILD;
		if (r.k >= m || got[r.k]) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		got[r.k] = true;
		(*left)--;
		deadline = now_ms() + idle;
		t = ts[todo[r.k]];
		rets[todo[r.k]] = r.ret;
		if (r.ret)
			continue;
		t->fd = fd;
		t->mode = r.mode;
		t->nlink = r.nlink;
		t->unsafe_len = r.unsafe_len;
		t->unsafe = r.unsafe;
		rets[todo[r.k]] = finish(t);
		if (rets[todo[r.k]])
			target_close(t);
	}
	return 0;
}

int targets_open(size_t n, const char *const *paths, struct target *const *ts,
		 int *rets)
{
	const char **hpaths = NULL;
	size_t *todo = NULL, m = 0, left;
	bool *hang = NULL, *got = NULL;
	int sv[2] = { -1, -1 }, ret = -ENOMEM;
	pid_t pid;

	reap_helpers();
	todo = calloc(n ?: 1, sizeof(*todo));
	hpaths = calloc(n ?: 1, sizeof(*hpaths));
	hang = calloc(n ?: 1, sizeof(*hang));
	got = calloc(n ?: 1, sizeof(*got));
	if (!todo || !hpaths || !hang || !got)
		goto out;
	/* The faults in order, here: the helper's threads race. */
	for (size_t i = 0; i < n; i++) {
		int f = fault_due("open");

		ts[i]->fd = -1;
		rets[i] = f < 0 ? f : -ETIMEDOUT;	/* unless answered */
		if (f < 0)
			continue;
		if (still_stuck(paths[i])) {
			rets[i] = -EINPROGRESS;
			continue;
		}
		hang[m] = f > 0;
		hpaths[m] = paths[i];
		todo[m++] = i;
	}
	ret = 0;
	if (!m)
		goto out;
	/* Ignored, SIGCHLD would reap a helper that exits by itself, and
	 * let_go() could signal a pid reused since; fsiter-pin has no
	 * handler of its own.
	 */
	signal(SIGCHLD, SIG_DFL);
	left = m;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		ret = -errno;
		goto no_helper;
	}
	pid = spawn_helper(sv[1]);
	if (pid < 0) {
		ret = pid;
		goto no_helper;
	}
	close(sv[1]);
	sv[1] = -1;
	ret = exchange(sv[0], hpaths, hang, m, todo, ts, rets, got, &left);
	let_go(pid, hpaths, got, m);	/* then the socket: see helper_main() */
	close(sv[0]);
	sv[0] = -1;
	if (ret) {
		err("the process that opens the paths stopped before it answered for %zu of them",
		    left);
		for (size_t k = 0; k < m; k++)
			if (!got[k])
				rets[todo[k]] = ret;
	}
	ret = 0;
	goto out;
no_helper:
	err("cannot start a process to open the paths: %s", strerror(-ret));
	for (size_t k = 0; k < m; k++)
		rets[todo[k]] = ret;
	ret = 0;
out:
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	free(got);
	free(hang);
	free(hpaths);
	free(todo);
	return ret;
}

int target_open(const char *path, struct target *t)
{
	int ret, r;

	ret = targets_open(1, &path, &t, &r);
	return ret ?: r;
}

void target_close(struct target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

const char *target_strerror(int err)
{
	static char timed_out[160];

	switch (err) {
	case -ELOOP:
		return "a component is a symbolic link; write the path it points to";
	case -ENOENT:
		return "no such file or directory";
	case -ENOTDIR:
		return "a component is not a directory";
	case -ETIMEDOUT:
		snprintf(timed_out, sizeof(timed_out),
			 "no answer from its filesystem, and none from any other path for %u s (a dead NFS server? a FUSE daemon that does not answer?)",
			 open_timeout_s);
		return timed_out;
	case -EINPROGRESS:
		return "no answer from its filesystem yet: the lookup an earlier run started is still waiting for it (a dead NFS server? a FUSE daemon that does not answer?)";
	case -ECHILD:
		return "the process that opens the paths stopped before it";
	default:
		return strerror(-err);
	}
}
