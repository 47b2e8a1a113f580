// SPDX-License-Identifier: GPL-2.0
/* Unpin names of a pin directory; unpin.h. */
#include <errno.h>
#include <string.h>
#include "diag.h"
#include "pin_info.h"
#include "revoke.h"
#include "traverse.h"
#include "unpin.h"

int unpin(struct pin_dir *d, char **names, size_t n, bool force, const char *why,
	  size_t *removed, bool *emptied)
{
	char **left = NULL;
	size_t nleft = 0;
	int ret = 0;

	*removed = 0;
	*emptied = false;
	for (size_t i = 0; i < n; i++) {
		const char *what = force ? NULL : pin_foreign(d, names[i]);
		int r;

		if (what) {
			err("%s/%s: %s, not a pin of fsiter-pin's; it is kept (--force removes it)",
			    ESC(d->path), ESC(names[i]), what);
			ret = ret ? ret : -EEXIST;
			continue;
		}
		r = pin_remove(d, names[i]);
		if (r == -EISDIR)	/* --force: a directory and what it holds */
			r = tree_remove(d->cur_fd, names[i], -1);
		if (r) {
			err("%s/%s: %s", ESC(d->path), ESC(names[i]), strerror(-r));
			ret = ret ? ret : r;
			if (r == -ENOMEM)
				break;
			continue;
		}
		(*removed)++;
		if (why)
			outf("removed %s/%s: %s\n", ESC(d->path), ESC(names[i]), ESC(why));
		else
			outf("removed %s\n", ESC(names[i]));
	}
	/* No pin left: its readers no longer count for grant-traverse. */
	if (!ret && !pindir_names(d, &left, &nleft) && !nleft) {
		*emptied = true;
		ret = traverse_forget(d->path);
	}
	pindir_free_names(left, nleft);
	return ret;
}
