// SPDX-License-Identifier: GPL-2.0
/*
 * targets_open() (src/targets.c) against a FUSE daemon that never answers
 * (fuse-hang, the first argument): one bound for all the paths, not one
 * each, and nothing of the caller stuck in the kernel. A child process
 * opens six paths on the hung mount among good ones, twice (as watch
 * would); the test checks that the good ones open, the hung ones fail
 * with -ETIMEDOUT and a message naming the bound, that the first run
 * takes the bound and little more, that the next one does not ask for
 * the paths still hung again (-EINPROGRESS, at once: one stuck helper,
 * not one a run), that the child has no thread left and EXITS
 * promptly, that a run of 5000 good paths opens them all, that paths on
 * a server that answers slowly (fuse-hang --slow) all get their answer,
 * though they take longer in all than the bound, but no more than four
 * times the bound in all (and 50 ms per answer) when each answers just in
 * time, that a long list answering steadily past four times the bound
 * all gets its answer, that a path a
 * stuck helper has answered since is asked for again, and that
 * the helper it leaves behind (this test is its subreaper) holds no fd but its socket, and ends once the daemon goes.
 * Needs root and /dev/fuse, in a mount namespace of its own; skipped (77)
 * otherwise.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <sched.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "targets.h"
#include "check.h"

#define BOUND_S		2
#define SLACK_MS	1500	/* fork, exec, a loaded two-core machine */
#define RUNS		2
#define NR_HUNG		6
#define NR_SLOW		24	/* paths on a server that answers slowly */
#define SLOW_MS		150	/* each; 24 take 3.6 s, more than BOUND_S */
#define NR_CEIL		8	/* paths on a server under the bound */
#define NR_STEADY	120	/* paths on a server that answers every STEADY_MS */
#define STEADY_MS	45	/* 120 take 5.4 s: past 4 s, within 4 s + 120 * 50 ms */
#define MANY		5000	/* paths in one run, all good */

static char base[] = "/tmp/fsiter-test-hung.XXXXXX";

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Entries in /proc/PID/task (the threads of PID), or -1. */
static int nr_threads(const char *dir)
{
	struct dirent *d;
	int n = 0;
	DIR *t = opendir(dir);

	if (!t)
		return -1;
	while ((d = readdir(t)))
		n += d->d_name[0] != '.';
	closedir(t);
	return n;
}

/*
 * MANY good paths, more than the socket holds requests or replies: the
 * replies must be read while the requests go out, or the helper stops
 * and every path left fails at the bound.
 */
static void many(void)
{
	static const char *paths[MANY];
	static struct target t[MANY], *ts[MANY];
	static int rets[MANY];
	struct rlimit rl = { MANY + 64, MANY + 64 };
	char path[300];
	size_t ok = 0;
	long start;

	snprintf(path, sizeof(path), "%s/g1", base);
	for (size_t i = 0; i < MANY; i++) {
		paths[i] = path;
		ts[i] = &t[i];
	}
	CHECK(!setrlimit(RLIMIT_NOFILE, &rl), "RLIMIT_NOFILE %d: %s", MANY + 64, strerror(errno));
	start = now_ms();
	CHECK(!targets_open(MANY, paths, ts, rets), "targets_open of %d paths", MANY);
	for (size_t i = 0; i < MANY; i++) {
		ok += !rets[i];
		if (!rets[i])
			target_close(&t[i]);
	}
	CHECK(ok == MANY, "%d paths: %zu opened (%s)", MANY, ok,
	      ok == MANY ? "" : target_strerror(rets[MANY - 1]));
	printf("%d paths: %ld ms\n", MANY, now_ms() - start);
}

/* The child: RUNS runs of targets_open() over good and hung paths. */
static int opener(void)
{
	static const char *good[] = { "g1", "g2", "g3" };
	const char *paths[NR_HUNG + 3];
	struct target t[NR_HUNG + 3], *ts[NR_HUNG + 3];
	char names[NR_HUNG + 3][300];
	int rets[NR_HUNG + 3], lock, pins;
	/* One, or two under ThreadSanitizer, which has a thread of its own. */
	int threads = nr_threads("/proc/self/task");
	size_t n = 0;

	/* What apply may hold while it opens paths: the helper must not. */
	snprintf(names[0], sizeof(names[0]), "%s/lock", base);
	lock = open(names[0], O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	CHECK(lock >= 0 && !flock(lock, LOCK_EX), "lock %s", names[0]);
	snprintf(names[0], sizeof(names[0]), "%s/pins", base);
	pins = open(names[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(pins >= 0, "open %s", names[0]);

	many();		/* first: the next run reaps its helper */
	/* g1, h1, h2, g2, h3, h4, h5, h6, g3: good ones after hung ones. */
	for (int i = 0, g = 0, h = 0; i < NR_HUNG + 3; i++) {
		if (i == 0 || i == 3 || i == NR_HUNG + 2)
			snprintf(names[i], sizeof(names[i]), "%s/%s", base, good[g++]);
		else
			snprintf(names[i], sizeof(names[i]), "%s/mnt/%sh%d", base,
				 h % 2 ? "d/" : "", h + 1), h++;
		paths[n] = names[i];
		ts[n++] = &t[i];
	}
	for (int run = 1; run <= RUNS; run++) {
		long start = now_ms(), took;
		int ret = targets_open(n, paths, ts, rets);

		took = now_ms() - start;
		CHECK(ret == 0, "run %d: targets_open: %d", run, ret);
		for (size_t i = 0; i < n; i++) {
			struct stat st;

			if (!strstr(paths[i], "/mnt/")) {
				CHECK(rets[i] == 0 && t[i].fd >= 0 && !stat(paths[i], &st) &&
				      t[i].ino == st.st_ino && S_ISREG(t[i].mode),
				      "run %d: %s: %d, fd %d", run, paths[i], rets[i], t[i].fd);
			} else {
				/* Asked again only once the first helper is gone. */
				CHECK(rets[i] == (run == 1 ? -ETIMEDOUT : -EINPROGRESS) &&
				      t[i].fd < 0, "run %d: %s on the hung mount: %d, fd %d",
				      run, paths[i], rets[i], t[i].fd);
			}
			if (!rets[i])
				target_close(&t[i]);
		}
		CHECK(strstr(target_strerror(-ETIMEDOUT), "for 2 s"),
		      "the message names the bound: %s", target_strerror(-ETIMEDOUT));
		CHECK(run == 1 ? took >= BOUND_S * 1000 - 50 && took <= BOUND_S * 1000 + SLACK_MS :
				 took <= SLACK_MS,
		      "run %d: %s: took %ld ms", run, run == 1 ?
		      "one bound for all the paths" : "the paths still hung not asked again", took);
		CHECK(nr_threads("/proc/self/task") == threads,
		      "run %d: no thread left in the caller: %d, %d before", run,
		      nr_threads("/proc/self/task"), threads);
		printf("run %d: %ld ms\n", run, took);
	}
	close(pins);
	close(lock);	/* a helper with a copy would still hold it */
	return check_summary();
}

/* Start fuse-hang on BASE/DIR (with SLOW, "--slow" and that many ms);
 * its pid once it says "ready", or -1.
 */
static pid_t start_daemon(const char *bin, const char *dir, const char *slow, int *skip)
{
	char mnt[300], line[16] = "";
	int p[2];
	pid_t pid;
	struct pollfd pf;

	snprintf(mnt, sizeof(mnt), "%s/%s", base, dir);
	mkdir(mnt, 0755);
	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(p[1], 1);
		if (slow)
			execl(bin, bin, "--slow", slow, mnt, (char *)NULL);
		else
			execl(bin, bin, mnt, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	pf = (struct pollfd){ .fd = p[0], .events = POLLIN };
	if (pid > 0 && poll(&pf, 1, 10000) == 1 && read(p[0], line, sizeof(line) - 1) > 0 &&
	    !strncmp(line, "ready", 5)) {
		close(p[0]);
		return pid;
	}
	close(p[0]);
	if (pid > 0) {
		int status = 0;

		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		*skip = WIFEXITED(status) && WEXITSTATUS(status) == 77;
	}
	return -1;
}

/* May a helper hold LINK (an fd's /proc link)? Its socket, /dev/null,
 * and the directories on the way to the hung mount it is stuck on.
 */
static bool helper_may_hold(const char *link)
{
	char mnt[300];

	snprintf(mnt, sizeof(mnt), "%s/mnt", base);
	return !strncmp(link, "socket:", 7) || !strcmp(link, "/dev/null") ||
	       !strcmp(link, "/") || !strcmp(link, "/tmp") || !strcmp(link, base) ||
	       !strcmp(link, mnt);
}

/* Count in *FDS the fds of thread TID of PID, in *OTHERS those it may
 * not hold, naming them.
 */
static void count_fds(int pid, const char *tid, int *fds, int *others)
{
	char dir[512], fdpath[800], link[300];
	struct dirent *d;
	ssize_t len;
	DIR *fdd;

	snprintf(dir, sizeof(dir), "/proc/%d/task/%s/fd", pid, tid);
	fdd = opendir(dir);
	while (fdd && (d = readdir(fdd))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(fdpath, sizeof(fdpath), "%s/%s", dir, d->d_name);
		len = readlink(fdpath, link, sizeof(link) - 1);
		link[len > 0 ? len : 0] = '\0';
		(*fds)++;
		if (!helper_may_hold(link)) {
			(*others)++;
			printf("helper %d holds fd %s: %s\n", pid, d->d_name, link);
		}
	}
	if (fdd)
		closedir(fdd);
}

/*
 * The helpers the child left, now this process's children: each named,
 * holding nothing of the child's (not its lock, not its pin directory).
 * Their pids in HELPERS; how many.
 */
static bool reap_within(pid_t pid, long ms, int *status);

static int check_helpers(pid_t daemon, pid_t *helpers, int max)
{
	char path[512], comm[32], states[64];
	int n = 0;
	FILE *f, *c;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	f = fopen(path, "re");
	if (!f)
		return 0;
	for (int pid; n < max && fscanf(f, "%d", &pid) == 1;) {
		int fds = 0, others = 0, ns = 0;
		struct dirent *t;
		DIR *tasks;

		/* One that ends (it had nothing stuck: killed, it goes at
		 * once, if slowly under TSan) is no matter.
		 */
		if (pid == daemon || reap_within(pid, 2000, NULL))
			continue;
		helpers[n++] = pid;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		c = fopen(path, "re");
		if (!c || !fgets(comm, sizeof(comm), c))
			comm[0] = '\0';
		if (c)
			fclose(c);
		CHECK(!strcmp(comm, "fsiter-pin-open\n"), "a child left behind: %d (%s)",
		      pid, comm);
		/* The threads share one fd table, which a dead leader no longer
		 * shows: count it once, at the first thread that does.
		 */
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		tasks = opendir(path);
		while (tasks && (t = readdir(tasks))) {
			char stat[128] = "", *st;

			if (t->d_name[0] == '.')
				continue;
			if (!fds)
				count_fds(pid, t->d_name, &fds, &others);
			snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid, t->d_name);
			c = fopen(path, "re");
			if (c && fgets(stat, sizeof(stat), c) && (st = strrchr(stat, ')')) &&
			    ns < (int)sizeof(states) - 2) {
				states[ns++] = st[2];
				states[ns++] = ' ';
			}
			if (c)
				fclose(c);
		}
		if (tasks)
			closedir(tasks);
		states[ns] = '\0';
		printf("helper %d left behind: threads %s(stuck in the kernel), %d fds\n",
		       pid, states, fds);
		CHECK(fds && !others, "helper %d: %d fds, %d of them not its own", pid,
		      fds, others);
	}
	fclose(f);
	return n;
}

static int rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* Wait for PID at most MS; true if it was reaped. */
static bool reap_within(pid_t pid, long ms, int *status)
{
	long end = now_ms() + ms;

	do {
		if (waitpid(pid, status, WNOHANG) == pid)
			return true;
		usleep(20 * 1000);
	} while (now_ms() < end);
	return false;
}

/*
 * Open N paths BASE/DIR/s0, s1, ... on a fuse-hang --slow MS mounted on
 * BASE/DIR, the bound BOUND seconds for that call (NULL: as it is), into
 * RETS[N] and *TOOK (ms in targets_open()); then stop the daemon and
 * unmount. False if the daemon did not start (a failure already said).
 */
static bool open_on_slow(const char *bin, const char *dir, int ms, const char *bound,
			 int n, int *rets, long *took)
{
	const char **paths = calloc(n, sizeof(*paths));
	struct target *t = calloc(n, sizeof(*t));
	struct target **ts = calloc(n, sizeof(*ts));
	char (*names)[300] = calloc(n, sizeof(*names));
	char arg[16], mnt[300], *old = NULL;
	int status, skip = 0;
	bool ok = false;
	pid_t daemon;
	long start;

	CHECK(paths && t && ts && names, "out of memory for %d paths", n);
	if (!paths || !t || !ts || !names)
		goto out;
	snprintf(arg, sizeof(arg), "%d", ms);
	daemon = start_daemon(bin, dir, arg, &skip);
	CHECK(daemon > 0, "fuse-hang --slow %s did not start", arg);
	if (daemon < 0)
		goto out;
	for (int i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "%s/%s/s%d", base, dir, i);
		paths[i] = names[i];
		ts[i] = &t[i];
	}
	if (bound) {
		old = getenv("FSITER_OPEN_TIMEOUT") ? strdup(getenv("FSITER_OPEN_TIMEOUT")) : NULL;
		setenv("FSITER_OPEN_TIMEOUT", bound, 1);
	}
	start = now_ms();
	CHECK(!targets_open(n, paths, ts, rets), "targets_open on fuse-hang --slow %s", arg);
	*took = now_ms() - start;
	if (bound) {
		if (old)
			setenv("FSITER_OPEN_TIMEOUT", old, 1);
		else
			unsetenv("FSITER_OPEN_TIMEOUT");
	}
	kill(daemon, SIGTERM);
	CHECK(reap_within(daemon, 10000, &status), "fuse-hang --slow %s did not stop", arg);
	snprintf(mnt, sizeof(mnt), "%s/%s", base, dir);
	umount2(mnt, MNT_DETACH);
	ok = true;
out:
	free(old);
	free(names);
	free(ts);
	free(t);
	free(paths);
	return ok;
}

/*
 * A server that answers each request, one at a time, after SLOW_MS: the
 * NR_SLOW paths on it take longer in all than the bound, but none waits
 * the bound for an answer, so each gets its answer (ENOENT), none
 * -ETIMEDOUT: the bound is for a filesystem that does not answer, not
 * for a long list on a slow machine.
 */
static void slow(const char *bin)
{
	int rets[NR_SLOW], answered = 0;
	long took;

	if (!open_on_slow(bin, "slow", SLOW_MS, NULL, NR_SLOW, rets, &took))
		return;
	for (int i = 0; i < NR_SLOW; i++)
		answered += rets[i] == -ENOENT;
	CHECK(answered == NR_SLOW, "%d paths, %d answered: %s", NR_SLOW, answered,
	      target_strerror(rets[NR_SLOW - 1]));
	CHECK(took > BOUND_S * 1000, "longer than the bound in all: %ld ms", took);
	printf("%d paths on a server answering every %d ms: %ld ms\n", NR_SLOW, SLOW_MS, took);
}

/*
 * A server that answers every STEADY_MS, with a bound of 1 s: NR_STEADY
 * paths take longer in all than four times the bound, but each answer
 * moves that ceiling by TARGET_OPEN_PER_ANSWER_MS, so a long list that
 * keeps answering, as on a loaded machine, all gets its answer.
 */
static void steady(const char *bin)
{
	int rets[NR_STEADY], answered = 0;
	long took;

	if (!open_on_slow(bin, "steady", STEADY_MS, "1", NR_STEADY, rets, &took))
		return;
	for (int i = 0; i < NR_STEADY; i++)
		answered += rets[i] == -ENOENT;
	CHECK(answered == NR_STEADY, "%d paths, %d answered: %s", NR_STEADY, answered,
	      target_strerror(rets[NR_STEADY - 1]));
	CHECK(took > 4000, "past four times the bound of 1 s: %ld ms", took);
	printf("%d paths at %d ms each, a bound of 1 s: %ld ms, %d answered\n", NR_STEADY,
	       STEADY_MS, took, answered);
}

/*
 * A server that answers each request under the bound (700 ms, with a
 * bound of 1 s; 900 ms left too little for a helper started under ASan
 * beside two VMs): NR_CEIL paths would take 5.6 s; the wait stops at four
 * times the bound in all, plus 50 ms for each answer, the paths left
 * failing with -ETIMEDOUT.
 */
static void slow_ceiling(const char *bin)
{
	int rets[NR_CEIL], answered = 0, timed_out = 0;
	long took;

	if (!open_on_slow(bin, "slow2", 700, "1", NR_CEIL, rets, &took))
		return;
	for (int i = 0; i < NR_CEIL; i++) {
		answered += rets[i] == -ENOENT;
		timed_out += rets[i] == -ETIMEDOUT;
	}
	CHECK(took >= 4000 - 50 && took <= 4000 + SLACK_MS,
	      "four times the bound of 1 s in all: took %ld ms", took);
	CHECK(answered >= 3 && timed_out >= 1 && answered + timed_out == NR_CEIL,
	      "%d answered in that time, %d cut off", answered, timed_out);
	printf("%d paths at 700 ms each, a bound of 1 s: %ld ms, %d answered\n", NR_CEIL,
	       took, answered);
}

/*
 * One helper stuck on a hung path, and another path of the same run that
 * was slow but has answered since: the next run fails the hung one at
 * once (-EINPROGRESS) and asks for the slow one again (it gets ENOENT):
 * only what a thread is still stuck on counts as stuck.
 */
static void stuck_per_path(const char *bin)
{
	char hung[300], slow[300], dir[300];
	const char *paths[2] = { hung, slow };
	struct target t[2], *ts[2] = { &t[0], &t[1] };
	int rets[2], status, skip = 0;
	pid_t dh, ds;

	dh = start_daemon(bin, "mnt2", NULL, &skip);
	ds = start_daemon(bin, "slow3", "1500", &skip);
	CHECK(dh > 0 && ds > 0, "fuse-hang and fuse-hang --slow 1500 did not start");
	if (dh < 0 || ds < 0)
		goto out;
	snprintf(hung, sizeof(hung), "%s/mnt2/h", base);
	snprintf(slow, sizeof(slow), "%s/slow3/s", base);
	setenv("FSITER_OPEN_TIMEOUT", "1", 1);
	CHECK(!targets_open(2, paths, ts, rets) && rets[0] == -ETIMEDOUT && rets[1] == -ETIMEDOUT,
	      "a bound of 1 s: both fail (%d, %d)", rets[0], rets[1]);
	sleep(2);	/* the slow one has answered the stuck helper */
	setenv("FSITER_OPEN_TIMEOUT", "2", 1);
	CHECK(!targets_open(2, paths, ts, rets), "again, a bound of 2 s");
	CHECK(rets[0] == -EINPROGRESS, "the hung path: not asked again (%d)", rets[0]);
	CHECK(rets[1] == -ENOENT, "the slow one: asked again, answered (%d: %s)", rets[1],
	      target_strerror(rets[1]));
out:
	for (int i = 0; i < 2; i++) {
		pid_t d = i ? ds : dh;

		if (d <= 0)
			continue;
		kill(d, SIGTERM);
		CHECK(reap_within(d, 10000, &status), "fuse-hang %d did not stop", i);
		snprintf(dir, sizeof(dir), "%s/%s", base, i ? "slow3" : "mnt2");
		umount2(dir, MNT_DETACH);
	}
}

int main(int argc, char **argv)
{
	pid_t daemon, child, helpers[RUNS + 1];
	int skip = 0, status = 0, nh;
	char path[300];
	long start, took;
	bool exited;

	if (argc != 2) {
		fprintf(stderr, "usage: test_open_deadline FUSE-HANG\n");
		return 2;
	}
	if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK)) {
		printf("skipped: needs root and /dev/fuse\n");
		return 77;
	}
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		printf("skipped: no mount namespace: %s\n", strerror(errno));
		return 77;
	}
	if (!mkdtemp(base)) {
		perror(base);
		return 2;
	}
	for (const char *f = "g1\0g2\0g3\0"; *f; f += 3) {
		snprintf(path, sizeof(path), "%s/%s", base, f);
		close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
	}
	snprintf(path, sizeof(path), "%s/pins", base);
	mkdir(path, 0700);
	daemon = start_daemon(argv[1], "mnt", NULL, &skip);
	if (daemon < 0) {
		nftw(base, rm, 16, FTW_DEPTH | FTW_PHYS);
		if (skip) {
			printf("skipped: cannot mount FUSE here\n");
			return 77;
		}
		printf("FAIL: fuse-hang did not start\n");
		return 1;
	}
	setenv("FSITER_OPEN_TIMEOUT", "2", 1);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	fflush(stdout);
	start = now_ms();
	child = fork();
	if (!child)
		exit(opener());
	/* The first run takes the bound, the next do not; the process must
	 * then exit at once.
	 */
	exited = reap_within(child, BOUND_S * 1000L + RUNS * SLACK_MS + 1000, &status);
	took = now_ms() - start;
	CHECK(exited, "the process that opened the paths has not exited after %ld ms: a thread stuck in the kernel keeps it",
	      took);
	if (exited) {
		printf("the process exited after %ld ms\n", took);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "its checks failed (status %#x)", status);
	}
	nh = exited ? check_helpers(daemon, helpers, RUNS + 1) : 0;
	CHECK(!exited || nh == 1, "helpers left behind: %d, want one for %d runs", nh, RUNS);
	if (exited) {
		int fd;

		snprintf(path, sizeof(path), "%s/lock", base);
		fd = open(path, O_RDWR | O_CLOEXEC);
		CHECK(fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB),
		      "the lock the process held is free once it exited: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	/* The daemon goes: the connection is aborted, every waiter wakes. */
	kill(daemon, SIGTERM);
	CHECK(reap_within(daemon, 10000, &status), "fuse-hang did not stop");
	snprintf(path, sizeof(path), "%s/mnt", base);
	umount2(path, MNT_DETACH);
	if (!exited)
		waitpid(child, &status, 0);
	for (int i = 0; i < nh; i++)
		CHECK(reap_within(helpers[i], 10000, &status),
		      "helper %d still there once its filesystem is gone", helpers[i]);
	slow(argv[1]);
	slow_ceiling(argv[1]);
	steady(argv[1]);
	stuck_per_path(argv[1]);
	nftw(base, rm, 16, FTW_DEPTH | FTW_PHYS);
	return check_summary();
}
