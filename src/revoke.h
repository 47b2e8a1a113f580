/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Taking grants back. A reader who once reached a pin may hold an O_PATH
 * fd on it, or on its directory, or sit in that directory; the kernel
 * checks the pin's own mode and ACL when it is opened again (through
 * /proc/self/fd/N or by name), not the directories it was found through.
 * So a pin that goes away first gets owner root:root, mode 0000 and no ACL
 * entries, and a directory that goes away first gets root:root and 0700,
 * before anything is unlinked. Owner first: an owner may chmod and setfacl
 * through a kept fd.
 *
 * And before the owner: an fd on the link itself, which the pin's owner
 * may take (neuter.h), outlives all that; so the link is first given a
 * program that prints nothing, by the hook set with revoke_set_neuter().
 * If that fails, the pin is revoked and removed all the same, and the
 * failure counts in revoke_unneutered().
 */
#ifndef FSITER_REVOKE_H
#define FSITER_REVOKE_H

#include <dirent.h>

/* How deep tree_remove() goes: bpffs trees fsiter-pin makes are 1 deep. */
#define TREE_MAX_DEPTH	8

/*
 * NEUTER(FD, NAME) makes the link of the pin under O_PATH fd FD harmless,
 * or says why it cannot (0 or -errno). It is called for each regular
 * file about to be revoked, before anything else is done to it, and once
 * per inode in a run (apply revokes the old pins twice: at once after the
 * exchange, and before each unlink). fsiter-pin sets link_neuter();
 * NULL (the default): none.
 */
typedef int (*revoke_neuter_fn)(int fd, const char *name);
void revoke_set_neuter(revoke_neuter_fn neuter);
/* How many links could not be neutered in this process, each said by
 * the hook; their pins were revoked and removed all the same.
 */
unsigned int revoke_unneutered(void);
/*
 * A new run (an apply, a remove; watch makes many in one process): forget
 * the inodes neutered before, whose numbers a later pin may be given (a
 * bpffs inode number is the kernel's get_next_ino(), which wraps). Returns
 * revoke_unneutered(), for revoke_check_neutered().
 */
unsigned int revoke_run_begin(void);
/*
 * If links could not be neutered since revoke_unneutered() was BEFORE,
 * say how many, for pin directory DIR (each was said as it failed):
 * -EIO then, else 0.
 */
int revoke_check_neutered(unsigned int before, const char *dir);

/* opendir() of NAME in DIRFD, not following a symlink; NULL with errno. */
DIR *opendir_at(int dirfd, const char *name);
/* Neuter the link of NAME in DIRFD, then give it owner root:root, mode
 * 0000 and an ACL that is only that mode (a pin; anything but a regular
 * file is left). 0 or -errno of the latter: a link that could not be
 * neutered only counts in revoke_unneutered().
 */
int pin_revoke(int dirfd, const char *name);
/*
 * Revoke each pin in directory FD but those that are also the pin of the
 * same name in KEEP_FD (the same inode: a hard link apply kept; -1:
 * none); a directory in FD is made 0700. Goes on after a failure; the
 * first -errno, or 0.
 */
int tree_revoke(int fd, int keep_fd);
/*
 * Empty directory FD: revoke as tree_revoke(), then unlink; directories
 * are emptied the same way, at most TREE_MAX_DEPTH deep (-ELOOP below
 * that), then removed. Goes on after a failure; the first -errno, or 0.
 */
int tree_empty(int fd, int keep_fd);
/* tree_empty() on directory NAME of PARENT_FD, then remove it; a missing
 * one is not an error. 0 or -errno.
 */
int tree_remove(int parent_fd, const char *name, int keep_fd);

#endif
