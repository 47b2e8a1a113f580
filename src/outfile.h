/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --output FILE: a command's standard output into FILE, replaced at once.
 * outfile_begin() sends stdout to a new file beside FILE (".NAME.XXXXXX",
 * which node_exporter's textfile collector ignores as it does not end in
 * .prom); outfile_end() flushes it, makes it mode 0640 (it may name every
 * pin and reader, which the pin directory hides from users), with an ACL
 * entry that lets READERS read it if set, fsyncs it and renames it over
 * FILE, then fsyncs the directory. A reader sees the old file or the new
 * one, whole, even across a crash. All of it through an fd on FILE's
 * directory, opened with no symbolic link on the way (dir_open_trusted()):
 * a link put in the path, or at FILE, by whoever may write there, sends
 * nothing elsewhere.
 */
#ifndef FSITER_OUTFILE_H
#define FSITER_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct outfile {
	const char *path;	/* FILE */
	gid_t readers;		/* a group that may read it, or (gid_t)-1 */
	char base[NAME_MAX + 1];	/* FILE's last component */
	char tmp[NAME_MAX + 1];		/* the temp file's name in the directory */
	int fd;			/* the temp file; -1 */
	int saved;		/* the old stdout; -1 */
	int dfd;		/* FILE's directory, O_PATH; -1 */
};

/* Send stdout to a temp file beside PATH. 0 or -errno (reported). */
int outfile_begin(struct outfile *of, const char *path);
/* Put the temp file in place of PATH if COMMIT, else remove it; stdout
 * is restored either way. 0 or -errno (reported).
 */
int outfile_end(struct outfile *of, bool commit);

#endif
