/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Neutering the link of a pin that is revoked. Whoever may read and write
 * a pin can take an fd on its link with BPF_OBJ_GET (no capability is
 * asked, on 6.1 as on 6.12), and the owner of a pin may give itself write
 * permission: that fd outlives anything done to the pin (owner, mode,
 * ACL, unlink), and BPF_ITER_CREATE on it starts a new walk of the target
 * whenever its holder likes. So before a pin is revoked, its link gets
 * the stub of its target kind (bpf/stub.bpf.c, a program that prints
 * nothing) with BPF_LINK_UPDATE: the kernel swaps the program of the link
 * itself, and every fd on it walks the stub from then on. Swapping it
 * back needs a program of the same target, which only CAP_BPF and
 * CAP_PERFMON load (or CAP_SYS_ADMIN takes by id).
 *
 * What this does not reach: an iterator fd made before (BPF_ITER_CREATE,
 * or an open(2) of the pin) holds the program it was made with, and its
 * one walk, whenever it is read, shows what that program shows of the
 * target as it is then.
 */
#ifndef FSITER_NEUTER_H
#define FSITER_NEUTER_H

/*
 * If the pin under O_PATH fd FD is an fs iterator link, make it run its
 * target's stub (loaded on first use, once per run: views.h). Anything
 * else (a map, a program, another iterator) is left. 0, or -errno, said
 * with NAME: the link still runs its program.
 */
int link_neuter(int fd, const char *name);

#endif
