// SPDX-License-Identifier: GPL-2.0
/*
 * show: what a user reads, with the user's own rights and no capability.
 * With a NAME, the pin's view as cat(1) prints it, or with --json typed
 * by its keys (view_json.h); a reader the pin's mode and ACL refuse gets
 * the kernel's EACCES. Without one, the pins in the pin directory that
 * the caller may read (faccessat(AT_EACCESS), which opens nothing: an
 * open of a pin starts a walk).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "commands.h"
#include "diag.h"
#include "policy.h"
#include "view_json.h"

static const struct cmd_option opts[] = {
	{ "json", 'j', NULL, "print the view as JSON, typed by fsiter-views(7)", true },
	{ "pin-dir", 'd', "DIR", "the pin directory (default " POLICY_DEFAULT_PIN_DIR ")",
	  true },
	{ NULL }
};

static int readable_pins(const char *dir, bool json)
{
	json_object *names = NULL;
	int dfd = -1, ret = EXIT_FAIL;
	struct dirent **ents = NULL;
	int n = -1;

	/* One lookup of DIR: the list and the checks are of the same one. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || (n = scandirat(dfd, ".", &ents, NULL, alphasort)) < 0) {
		err("show: %s: %s", ESC(dir), strerror(errno));
		goto out;
	}
	names = json ? json_object_new_array() : NULL;
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		/*
		 * apply's own files (the lock, names being swapped in) start
		 * with '.'. A symbolic link counts by what it points to.
		 */
		if (name[0] != '.' && ents[i]->d_type != DT_DIR &&
		    !faccessat(dfd, name, R_OK, AT_EACCESS)) {
			if (names)
				json_object_array_add(names, view_json_text(name, strlen(name)));
			else
				outf("%s\n", ESC(name));
		}
	}
	if (names)
		printf("%s\n", json_object_to_json_string_ext(names,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	ret = EXIT_OK;
out:
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	json_object_put(names);
	if (dfd >= 0)
		close(dfd);
	return ret;
}

/* The pin's bytes to standard output, as cat(1) would. */
static int copy_out(int fd, const char *path)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, n, stdout) != (size_t)n)
			break;
	if (n < 0) {
		err("show: %s: read: %s", ESC(path), strerror(errno));
		return EXIT_FAIL;
	}
	/* A write error is said at exit (main.c's close_stdout()). */
	return EXIT_OK;
}

/* The lines of IN (the pin PATH, named NAME) as JSON, typed by their keys. */
static int show_json(FILE *in, const char *path, const char *name)
{
	struct view_json vj = { NULL };
	size_t size = 0, lineno = 0;
	char *line = NULL, why[160] = "";
	int ret = EXIT_FAIL, r;
	ssize_t len;

	if (view_json_init(&vj, stdout)) {
		err("show: %s", strerror(ENOMEM));
		goto out;
	}
	while ((len = getline(&line, &size, in)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			len--;
		if (lineno == 1 && line[0] == '(') {
			err("show: %s: a BTF dump (view inode-raw) has no keys; "
			    "read it without --json", ESC(path));
			goto out;
		}
		r = view_json_line(&vj, line, len, why, sizeof(why));
		if (r == -EINVAL) {
			err("show: %s:%zu: %s (fsiter-views(7))", ESC(path), lineno, why);
			goto out;
		} else if (r) {
			err("show: %s:%zu: %s", ESC(path), lineno, strerror(-r));
			goto out;
		}
	}
	if (ferror(in)) {
		err("show: %s: read: %s", ESC(path), strerror(errno));
		goto out;
	}
	view_json_end(&vj, name);
	ret = fflush(stdout) ? EXIT_FAIL : EXIT_OK;
out:
	free(line);
	view_json_free(&vj);
	return ret;
}

static int run(int argc, char **argv)
{
	const char *dir = POLICY_DEFAULT_PIN_DIR, *name, *path;
	char joined[PATH_MAX];
	bool json = false;
	int c, fd = -1, ret;
	FILE *in = NULL;
	struct stat st;

	while ((c = cmd_getopt(&cmd_show, argc, argv)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'd':
			dir = optarg;
			break;
		default:
			return cmd_exit(&cmd_show, c);
		}
	}
	if (optind < argc - 1)
		return usage_error(&cmd_show, "expected at most one NAME");
	if (optind == argc)
		return readable_pins(dir, json);
	name = argv[optind];
	/* A NAME is a pin of DIR; anything with a slash, a path. */
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return usage_error(&cmd_show, "'%s' is not a pin's name", ESC(name));
	path = name;
	if (!strchr(name, '/')) {
		if (snprintf(joined, sizeof(joined), "%s/%s", dir, name) >= (int)sizeof(joined))
			return usage_error(&cmd_show, "'%s': name too long", ESC(name));
		path = joined;
	}
	/*
	 * A pin is a regular file of bpffs: refuse anything else before
	 * reading (a FIFO would block, a device read without end), and open
	 * without waiting for a FIFO's writer.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		err("show: %s: %s", ESC(path), strerror(errno));
		return EXIT_FAIL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		err("show: %s: not a pin (not a regular file)", ESC(path));
		close(fd);
		return EXIT_FAIL;
	}
	if (!json) {
		ret = copy_out(fd, path);
		close(fd);
		return ret;
	}
	in = fdopen(fd, "r");
	if (!in) {
		err("show: %s: %s", ESC(path), strerror(errno));
		close(fd);
		return EXIT_FAIL;
	}
	/* PATH has a slash: a NAME was joined to DIR. */
	ret = show_json(in, path, strrchr(path, '/') + 1);
	fclose(in);
	return ret;
}

const struct command cmd_show = {
	"show", run, opts, "[NAME]",
	"Print a pin as its reader sees it, with the caller's own rights; without a NAME, "
	"the pins the caller may read.",
};
