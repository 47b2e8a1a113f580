// SPDX-License-Identifier: GPL-2.0
/*
 * fsiter-pin list [--pin-dir DIR]
 *
 * One line per pin: name, view, target, program id and tag, owner, group,
 * mode and the named ACL entries.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <acl/libacl.h>
#include "commands.h"
#include "diag.h"
#include "fsiter_uapi.h"
#include "mounts.h"
#include "pins.h"
#include "policy.h"
#include "privs.h"
#include "views.h"

static void print_target(const struct pin_info *pi)
{
	char buf[64 + PATH_MAX];
	char *mp;

	if (!pi->is_link) {
		snprintf(buf, sizeof(buf), "-");
	} else if (pi->fs_type == FSITER_FS_ITER_MNT) {
		mp = pi->gone ? NULL : mounts_target_of(pi->mnt_id);
		snprintf(buf, sizeof(buf), "mnt %u %s", pi->mnt_id,
			 mp ? mp : pi->gone ? "(gone)" : "?");
		free(mp);
	} else {
		/* new_encode_dev() is glibc's st_dev encoding */
		snprintf(buf, sizeof(buf), "%u:%u ino %llu%s", major(pi->dev),
			 minor(pi->dev), (unsigned long long)pi->ino,
			 pi->gone ? " (gone)" : "");
	}
	printf("%-24s", buf);
}

/* The named entries of the pin's ACL ("u:fsa:r,g:fsreaders:r"), or "-". */
static void print_acl(const char *path)
{
	acl_t acl = acl_get_file(path, ACL_TYPE_ACCESS);
	char *text = NULL, *tok, *save = NULL;
	bool any = false;

	if (acl && acl_equiv_mode(acl, NULL) == 1)
		text = acl_to_any_text(acl, NULL, ',', TEXT_ABBREVIATE);
	for (tok = text ? strtok_r(text, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		/* u::, g::, m:: and o:: are the mode's; the rest are grants */
		if (tok[1] == ':' && tok[2] == ':')
			continue;
		printf("%s%s", any ? "," : "", tok);
		any = true;
	}
	if (!any)
		printf("-");
	acl_free(text);
	acl_free(acl);
}

static int list(const char *dir)
{
	struct pin_dir d;
	char **names = NULL;
	size_t n = 0;
	int ret;

	pindir_init(&d);
	ret = pindir_open(&d, dir, false);
	if (ret == -ENOENT) {
		err("%s: no such directory: nothing is pinned", dir);
		return ret;
	}
	if (ret)
		return ret;
	if (d.cur_fd < 0) {
		info("%s: nothing is pinned", dir);
		goto out;
	}
	ret = pindir_names(&d, &names, &n);
	if (ret) {
		err("%s: %s", dir, strerror(-ret));
		goto out;
	}
	printf("%-20s %-10s %-24s %-8s %-16s %-8s %-8s %-5s %s\n", "NAME", "VIEW",
	       "TARGET", "PROG", "TAG", "OWNER", "GROUP", "MODE", "ACL");
	for (size_t i = 0; i < n; i++) {
		const struct view_desc *v;
		enum view_variant variant = VIEW_CHECKED;
		char view[32];
		struct pin_info pi;
		struct passwd *pw;
		struct group *gr;
		char path[PATH_MAX];

		ret = pin_read(&d, names[i], &pi);
		if (ret) {
			err("%s/%s: %s", dir, names[i], strerror(-ret));
			goto out;
		}
		v = pi.is_link ? view_by_prog_name(pi.prog_name, &variant) : NULL;
		/* ":all": the expose-cache program, for every reader */
		snprintf(view, sizeof(view), "%s%s", v ? v->name :
			 pi.is_link ? "(foreign)" : "(not a view)",
			 variant == VIEW_ALL ? ":all" : "");
		pw = getpwuid(pi.uid);
		gr = getgrgid(pi.gid);
		printf("%-20s %-10s ", pi.name, view);
		print_target(&pi);
		printf(" %-8u %-16s %-8s %-8s %04o  ", pi.prog_id, pi.is_link ? pi.tag : "-",
		       pw ? pw->pw_name : "?", gr ? gr->gr_name : "?", pi.mode & 07777);
		if (!path_join(path, d.path, names[i]))
			print_acl(path);
		printf("\n");
	}
out:
	pindir_free_names(names, n);
	pindir_close(&d);
	return ret;
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pin-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *dir = POLICY_DEFAULT_PIN_DIR;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'h':
			printf("Usage: fsiter-pin list [--pin-dir DIR]\n");
			return EXIT_OK;
		default:
			return usage_error("list", NULL);
		}
	}
	if (optind != argc)
		return usage_error("list", "unexpected argument '%s'", argv[optind]);
	if (privs_restrict(PRIVS_READ))
		return EXIT_FAIL;
	return list(dir) ? EXIT_FAIL : EXIT_OK;
}
