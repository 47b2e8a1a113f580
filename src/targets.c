// SPDX-License-Identifier: GPL-2.0
/* The policy's paths, opened through the helper (open_helper.c); targets.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "diag.h"
#include "dir_trust.h"
#include "fault.h"
#include "mounts.h"
#include "open_helper.h"
#include "targets.h"

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
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
 * process exits. Each keeps the paths it had no answer for, with their
 * index in its requests; at each run, those its threads are still stuck
 * on (a thread's name says which: open_helper.c) are not asked for again,
 * so that a path that keeps hanging under watch leaves one stuck helper,
 * not one a run. Its other paths are asked for again.
 */
struct stuck_helper {
	pid_t pid;
	char **paths;
	size_t *k;	/* PATHS[I] was its K[I]th request */
	size_t n;
};
static struct stuck_helper *unreaped;
static size_t nr_unreaped;

static void stuck_free(struct stuck_helper *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->k);
}

/* Keep of S's paths only those a thread of it is still stuck on. */
static void stuck_paths(struct stuck_helper *s)
{
	char path[64], name[32];
	struct dirent *de;
	size_t kept = 0, k;
	bool *busy;
	DIR *d;

	busy = calloc(s->n + 1, sizeof(*busy));
	snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
	d = opendir(path);
	if (!busy || !d) {	/* as they were: not asked again */
		free(busy);
		if (d)
			closedir(d);
		return;
	}
	while ((de = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/comm", (int)s->pid,
			 de->d_name);
		f = de->d_name[0] == '.' ? NULL : fopen(path, "re");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) &&
		    sscanf(name, TARGET_HELPER_BUSY "%zu", &k) == 1)
			for (size_t i = 0; i < s->n; i++)
				busy[i] |= s->k[i] == k;
		fclose(f);
	}
	closedir(d);
	for (size_t i = 0; i < s->n; i++) {
		if (busy[i]) {
			s->paths[kept] = s->paths[i];
			s->k[kept++] = s->k[i];
		} else {
			free(s->paths[i]);
		}
	}
	s->n = kept;
	free(busy);
}

static void reap_helpers(void)
{
	size_t j = 0;

	for (size_t i = 0; i < nr_unreaped; i++) {
		if (!waitpid(unreaped[i].pid, NULL, WNOHANG)) {
			stuck_paths(&unreaped[i]);
			unreaped[j++] = unreaped[i];
		} else {
			stuck_free(&unreaped[i]);
		}
	}
	nr_unreaped = j;
}

/* Is a helper still stuck on PATH (as reap_helpers() last saw)? */
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
	s.k = calloc(m + 1, sizeof(*s.k));
	for (size_t k = 0; s.paths && s.k && k < m; k++) {
		if (!got[k] && (s.paths[s.n] = strdup(paths[k])))
			s.k[s.n++] = k;
	}
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
 * of paths, and a long list that keeps answering is not cut short; or at
 * TARGET_OPEN_TOTAL_TIMES the timeout in all, so that a server answering
 * each path just in time cannot hold a revocation past the unit's
 * timeout; each answer moves that by TARGET_OPEN_PER_ANSWER_MS, so that
 * thousands of paths that answer, slowly on a loaded machine, are not
 * cut short either, while such a server gains that little per path. 0, or
 * -ECHILD if the helper went away first.
 */
static int exchange(int sock, const char *const *paths, const bool *hang, size_t m,
		    const size_t *todo, struct target *const *ts, int *rets,
		    bool *got, size_t *left)
{
	long idle = targets_open_timeout() * 1000L, deadline = now_ms() + idle;
	long ceiling = now_ms() + TARGET_OPEN_TOTAL_TIMES * idle;
	struct pollfd p = { .fd = sock };
	struct open_reply r;
	struct target *t;
	size_t sent = 0;
	int ret, fd;

	while (*left) {
		long wait = (deadline < ceiling ? deadline : ceiling) - now_ms();

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
		ceiling += TARGET_OPEN_PER_ANSWER_MS;
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
	pid = open_helper_spawn(sv[1]);
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
	static char timed_out[200];

	switch (err) {
	case -ELOOP:
		return "a component is a symbolic link; write the path it points to";
	case -ENOENT:
		return "no such file or directory";
	case -ENOTDIR:
		return "a component is not a directory";
	case -ETIMEDOUT:
		snprintf(timed_out, sizeof(timed_out),
			 "no answer from its filesystem, and none from any other path for %u s, or %u s in all and %u ms more per answer (a dead NFS server? a FUSE daemon that does not answer?)",
			 open_timeout_s, TARGET_OPEN_TOTAL_TIMES * open_timeout_s,
			 TARGET_OPEN_PER_ANSWER_MS);
		return timed_out;
	case -EINPROGRESS:
		return "no answer from its filesystem yet: the lookup an earlier run started is still waiting for it (a dead NFS server? a FUSE daemon that does not answer?)";
	case -ECHILD:
		return "the process that opens the paths stopped before it";
	default:
		return strerror(-err);
	}
}
