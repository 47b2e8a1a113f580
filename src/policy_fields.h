/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks of single policy fields. Each returns NULL if the field is good,
 * or why it is not, as a phrase for "field 'value': <why>".
 */
#ifndef FSITER_POLICY_FIELDS_H
#define FSITER_POLICY_FIELDS_H

#include <sys/types.h>

/* A pin name: what bpffs and a shell accept without surprises. */
const char *policy_name_error(const char *name);
/* An absolute path without "." or ".." components. */
const char *policy_path_error(const char *path);
/* A pin-dir: a path as above, inside bpffs' root, without "//" or a
 * trailing '/', and no component ending in "_staging" (a work directory).
 */
const char *policy_pin_dir_error(const char *dir);
/*
 * Decode, in place, the escapes of a field that takes them (a path, the
 * pin-dir): \\ \" \n \t \xNN (not \x00). NULL, or why the field is bad.
 */
const char *policy_unescape(char *s);
/* Octal, read bits only. */
const char *policy_mode_parse(const char *s, mode_t *mode);
/* A user or group: a name (as useradd accepts it) or a number. */
const char *policy_account_error(const char *s);
/* Comma-separated options, into *OPTIONS and, for top=N, *TOP (else
 * left 0); *bad names the offending one.
 */
const char *policy_options_parse(const char *s, unsigned int *options,
				 unsigned int *top, const char **bad);

#endif
