// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: policy_load() of a policy file and its drop-in
 * directory, written from the input into a temporary directory (under
 * $TMPDIR; run.sh points it at tmpfs), then policy_validate(), with the checks of
 * fuzz_check.h. Build and run with tests/fuzz/run.sh.
 *
 * The input is the main file, p.conf, then any number of drop-ins, each
 * after a line
 *
 *   @@ NAME [MODE] [-> TARGET]
 *
 * NAME is the drop-in's name in p.d (a '/' or a NUL in it becomes '_',
 * "." and ".." become "_."), MODE its octal mode (default 0644), and
 * "-> TARGET" makes it a symbolic link to TARGET instead, where
 * "/dev/null" masks it and any other target is taken as a name in p.d. A
 * NAME of "p.d" sets the mode of the drop-in directory itself (no file).
 *
 * Beyond fuzz_check.h, it checks that a load never succeeds when a
 * drop-in or the drop-in directory was writable by group or others, and
 * that no entry comes from a masked drop-in.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz_check.h"

#define MAX_DROPINS	16
#define NAME_LEN	48

static char top[4096], main_conf[4200], dropin_dir[4200];

static void remove_top(void)
{
	char cmd[4200];

	if (top[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		if (system(cmd))
			fprintf(stderr, "fuzz: cannot remove %s\n", top);
	}
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(top, sizeof(top), "%s/fuzz_policy_dir.XXXXXX", tmp);
	if (!mkdtemp(top)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	chmod(top, 0755);
	atexit(remove_top);
	snprintf(main_conf, sizeof(main_conf), "%s/p.conf", top);
	snprintf(dropin_dir, sizeof(dropin_dir), "%s/p.d", top);
	sink_open();
}

/* Empty the drop-in directory and remove the main file. */
static void clear(void)
{
	DIR *d = opendir(dropin_dir);
	struct dirent *de;

	if (d) {
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	unlink(main_conf);
	chmod(dropin_dir, 0755);
}

static void write_file(int dfd, const char *name, const uint8_t *data,
		       size_t len, mode_t mode)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
			O_NOFOLLOW, 0600);

	if (fd < 0)
		return;		/* e.g. a name given twice, now a link */
	if (write(fd, data, len) != (ssize_t)len)
		abort();
	fchmod(fd, mode);
	close(fd);
}

struct dropin {
	char name[NAME_LEN + 1];
	mode_t mode;
	bool link, masked;
};

/* Parse "@@ NAME [MODE] [-> TARGET]" of LEN bytes at H into D; TARGET out. */
static void parse_header(const char *h, size_t len, struct dropin *d,
			 char *target)
{
	size_t i = 0, n = 0;

	d->mode = 0644;
	while (i < len && h[i] == ' ')
		i++;
	while (i < len && h[i] != ' ' && n < NAME_LEN) {
		d->name[n++] = h[i] == '/' || h[i] == '\0' ? '_' : h[i];
		i++;
	}
	d->name[n] = '\0';
	if (!n || !strcmp(d->name, ".") || !strcmp(d->name, ".."))
		snprintf(d->name, sizeof(d->name), "_.");
	while (i < len && h[i] == ' ')
		i++;
	if (i < len && h[i] >= '0' && h[i] <= '7') {
		unsigned int m = 0;

		while (i < len && h[i] >= '0' && h[i] <= '7')
			m = (m << 3 | (h[i++] - '0')) & 07777;
		d->mode = m;
		while (i < len && h[i] == ' ')
			i++;
	}
	if (len - i >= 3 && !memcmp(h + i, "-> ", 3)) {
		size_t t = len - i - 3;

		if (t > NAME_LEN)
			t = NAME_LEN;
		memcpy(target, h + i + 3, t);
		target[t] = '\0';
		for (size_t k = 0; k < t; k++)
			if (!target[k])
				target[k] = '_';
		d->link = true;
		d->masked = !strcmp(target, "/dev/null");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dropin dropins[MAX_DROPINS];
	const uint8_t *end = data + size, *body = data, *next;
	mode_t dir_mode = 0755;
	bool writable = false;
	struct policy p;
	int nd = 0, dfd, ret;

	if (!top[0])
		setup();
	clear();
	mkdir(dropin_dir, 0755);
	dfd = open(dropin_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		abort();

	/* The main file runs to the first header line. */
	next = body;
	for (;;) {
		const uint8_t *h = memmem(next, end - next, "@@ ", 3);

		if (h && h != data && h[-1] != '\n') {
			next = h + 1;
			continue;
		}
		next = h ? h : end;
		break;
	}
	write_file(AT_FDCWD, main_conf, body, next - body, 0644);
	while (next < end && nd < MAX_DROPINS) {
		const uint8_t *h = next + 3, *nl = memchr(h, '\n', end - h);
		struct dropin *d = &dropins[nd];
		char target[NAME_LEN + 1];

		memset(d, 0, sizeof(*d));
		parse_header((const char *)h, (nl ? nl : end) - h, d, target);
		body = nl ? nl + 1 : end;
		next = body;
		{
			const uint8_t *x = memmem(next, end - next, "\n@@ ", 4);

			next = x ? x + 1 : end;
		}
		if (!strcmp(d->name, "p.d")) {
			dir_mode = d->mode;
			continue;
		}
		/* A name given again replaces what it was. */
		for (int k = 0; k < nd; k++)
			if (!strcmp(dropins[k].name, d->name))
				dropins[k].masked = false;
		unlinkat(dfd, d->name, 0);
		if (d->link) {
			if (symlinkat(target, dfd, d->name))
				continue;
		} else {
			write_file(dfd, d->name, body, next - body, d->mode);
		}
		nd++;
	}
	fchmod(dfd, dir_mode);
	close(dfd);

	/* What the loader must refuse: anything read that others may write. */
	if (dir_mode & 022)
		writable = true;
	for (int i = 0; i < nd; i++) {
		struct stat st;
		char path[4300];
		size_t len = strlen(dropins[i].name);

		if (len <= 5 || strcmp(dropins[i].name + len - 5, ".conf") ||
		    dropins[i].name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dropin_dir, dropins[i].name);
		if (!stat(path, &st) && S_ISREG(st.st_mode) && (st.st_mode & 022))
			writable = true;
	}

	policy_init(&p);
	ret = policy_load(&p, main_conf);
	check_parsed(&p);
	if (writable && !ret)
		BROKEN("a policy that others may write was loaded: %d", ret);
	for (size_t i = 0; i < p.nr_entries; i++)
		for (int k = 0; k < nd; k++) {
			const char *f = p.entries[i].loc.file;
			size_t fl = strlen(f), nl = strlen(dropins[k].name);

			if (dropins[k].masked && fl > nl && f[fl - nl - 1] == '/' &&
			    !strcmp(f + fl - nl, dropins[k].name))
				BROKEN("'%s' comes from the masked %s", p.entries[i].name, f);
		}
	if (!ret && !policy_validate(&p))
		check_valid(&p);
	sink_done();
	policy_free(&p);
	return 0;
}
