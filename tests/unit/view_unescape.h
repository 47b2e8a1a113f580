/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names and paths as the views print them (docs/output.md, "Names and
 * paths"), decoded: a reference for whoever reads a view, and what the
 * VM suites use to get a name's bytes back (view-unescape).
 */
#ifndef FSITER_VIEW_UNESCAPE_H
#define FSITER_VIEW_UNESCAPE_H

/*
 * Decodes S in place: each backslash and three octal digits ("\ooo")
 * becomes that byte; every other byte stays. 0, or -EINVAL if a
 * backslash is not followed by three octal digits of a byte from \001 to
 * \377, which no view prints (S is then left as it was). Never reads
 * past S's NUL.
 */
int view_unescape(char *s);

#endif
