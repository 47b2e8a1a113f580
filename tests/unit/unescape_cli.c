// SPDX-License-Identifier: GPL-2.0
/*
 * view-unescape NAME: writes the bytes of NAME, as a view prints it
 * (docs/output.md, "Names and paths"), to standard output, without a
 * newline. Exit status 1 for an escape no view prints. For the VM suites.
 */
#include <stdio.h>
#include <string.h>
#include "view_unescape.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: view-unescape NAME\n");
		return 2;
	}
	if (view_unescape(argv[1])) {
		fprintf(stderr, "view-unescape: a backslash without three octal digits of a byte\n");
		return 1;
	}
	fwrite(argv[1], 1, strlen(argv[1]), stdout);
	return fflush(stdout) ? 1 : 0;
}
