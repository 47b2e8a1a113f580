// SPDX-License-Identifier: GPL-2.0
/*
 * bench_read: time one operation in-process, REPS times, and print the
 * median in nanoseconds, so that process start-up does not drown what is
 * measured. Used by bench/guest.sh.
 *
 *   bench_read pin PATH REPS           open and read PATH to the end
 *   bench_read mincore FILE REPS       what fincore(1) does: mmap in 128 MiB
 *                                      windows, mincore(), count resident
 *   bench_read mountinfo MNTID REPS    read /proc/self/mountinfo, find the
 *                                      line of mount MNTID
 *   bench_read cachestat FILE REPS     open FILE, cachestat(2) over all of
 *                                      it, close (Linux 6.5 and later)
 *   bench_read statmount PATH REPS     statmount(2) of the mount PATH is on,
 *                                      with what the mount view prints; the
 *                                      mount's unique id is taken once, with
 *                                      statx(2), outside the timing (6.8+)
 *   bench_read statx-statmount PATH REPS
 *                                      the same starting from PATH, as the
 *                                      view does: statx(2) for the mount's
 *                                      unique id, then statmount(2)
 *   bench_read open PATH REPS          open PATH and close it, no read: the
 *                                      share of a pin's time that any file
 *                                      a reader opens by name costs
 *
 * Output: "ns MEDIAN bytes N lines N folios N resident N"
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Debian 12's UAPI headers are 6.1's: no cachestat(2) nor statmount(2). */
#define NR_cachestat		451
#define NR_statmount		457
#define STATX_MNT_ID_UNIQUE	0x00004000U
/* STATMOUNT_SB_BASIC | _MNT_BASIC | _PROPAGATE_FROM | _MNT_ROOT |
 * _MNT_POINT | _FS_TYPE: what the mount view shows.
 */
#define STATMOUNT_VIEW		0x3fULL

struct cachestat_range_v0 {
	unsigned long long off, len;
};

struct cachestat_v0 {
	unsigned long long nr_cache, nr_dirty, nr_writeback, nr_evicted,
			   nr_recently_evicted;
};

struct mnt_id_req_v0 {
	unsigned int size, spare;
	unsigned long long mnt_id, param;
};

#define WINDOW (128UL << 20)	/* util-linux fincore's window: 32768 pages */

struct result {
	size_t bytes, lines, folios, resident;
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int read_all(const char *path, struct result *r, const char *want_id)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int bol = 1, found = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	memset(r, 0, sizeof(*r));
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		r->bytes += n;
		for (ssize_t i = 0; i < n; i++) {
			if (bol && n - i > 6 && !memcmp(buf + i, "folio ", 6))
				r->folios++;
			if (bol && want_id && !found) {
				size_t l = strlen(want_id);

				if (n - i > (ssize_t)l && !memcmp(buf + i, want_id, l) &&
				    buf[i + l] == ' ')
					found = 1;
			}
			bol = buf[i] == '\n';
			r->lines += bol;
		}
	}
	close(fd);
	if (n < 0)
		return -errno;
	return want_id && !found ? -ENOENT : 0;
}

static int resident(const char *path, struct result *r)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec;
	struct stat st;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return -errno;
	vec = malloc(WINDOW / page);
	memset(r, 0, sizeof(*r));
	for (off_t off = 0; off < st.st_size && !ret; off += WINDOW) {
		size_t left = (size_t)(st.st_size - off);
		size_t len = left < WINDOW ? left : WINDOW;
		void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);

		if (p == MAP_FAILED) {
			ret = -errno;
			break;
		}
		if (mincore(p, len, vec))
			ret = -errno;
		for (size_t i = 0; !ret && i < (len + page - 1) / page; i++)
			r->resident += vec[i] & 1;
		munmap(p, len);
	}
	free(vec);
	close(fd);
	return ret;
}

static int open_close(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int cachestat_file(const char *path, struct result *r)
{
	struct cachestat_range_v0 range = { 0, 0 };	/* 0 length: to the end */
	struct cachestat_v0 cs;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(NR_cachestat, fd, &range, &cs, 0))
		ret = -errno;
	close(fd);
	memset(r, 0, sizeof(*r));
	r->resident = cs.nr_cache;
	return ret;
}

static int statmount_of(unsigned long long mnt_id, struct result *r)
{
	static char buf[1 << 14];
	struct mnt_id_req_v0 req = {
		.size = sizeof(req), .mnt_id = mnt_id, .param = STATMOUNT_VIEW,
	};
	long n;

	n = syscall(NR_statmount, &req, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	memset(r, 0, sizeof(*r));
	r->bytes = sizeof(buf);
	return 0;
}

static int unique_mnt_id(const char *path, unsigned long long *id)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID_UNIQUE, &stx))
		return -errno;
	if (!(stx.stx_mask & STATX_MNT_ID_UNIQUE))
		return -EOPNOTSUPP;
	*id = stx.stx_mnt_id;
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct result r = { 0 };
	unsigned long long mnt_id = 0;
	long long *t;
	int reps, ret = 0;

	if (argc != 4 || (reps = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: bench_read pin|open|mincore|mountinfo|cachestat|statmount|statx-statmount ARG REPS\n");
		return 2;
	}
	if (!strcmp(argv[1], "statmount"))
		ret = unique_mnt_id(argv[2], &mnt_id);
	t = calloc(reps, sizeof(*t));
	for (int i = 0; i < reps && !ret; i++) {
		long long t0 = now_ns();

		if (!strcmp(argv[1], "pin"))
			ret = read_all(argv[2], &r, NULL);
		else if (!strcmp(argv[1], "open"))
			ret = open_close(argv[2]);
		else if (!strcmp(argv[1], "mincore"))
			ret = resident(argv[2], &r);
		else if (!strcmp(argv[1], "mountinfo"))
			ret = read_all("/proc/self/mountinfo", &r, argv[2]);
		else if (!strcmp(argv[1], "cachestat"))
			ret = cachestat_file(argv[2], &r);
		else if (!strcmp(argv[1], "statmount"))
			ret = statmount_of(mnt_id, &r);
		else if (!strcmp(argv[1], "statx-statmount"))
			ret = unique_mnt_id(argv[2], &mnt_id) ?: statmount_of(mnt_id, &r);
		else
			ret = -EINVAL;
		t[i] = now_ns() - t0;
	}
	if (ret) {
		fprintf(stderr, "bench_read: %s %s: %s\n", argv[1], argv[2], strerror(-ret));
		return 1;
	}
	qsort(t, reps, sizeof(*t), cmp_ll);
	printf("ns %lld bytes %zu lines %zu folios %zu resident %zu\n", t[reps / 2],
	       r.bytes, r.lines, r.folios, r.resident);
	free(t);
	return 0;
}
