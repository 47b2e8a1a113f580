#!/usr/bin/env python3
"""Hold an O_PATH fd, then re-open through it on demand (atomic-tests.sh).

holdfd.py PATH [NAME] DIR: open PATH with O_PATH, create DIR/ready, then
for N = 1, 2, ...: wait for DIR/go.N, re-open the file (/proc/self/fd/FD,
or NAME under the held directory) and write to DIR/res.N "read" or the
error's strerror. Exits once DIR/stop exists.

If DIR/go.N holds "chmod" or "setfacl", it first tries to give the held
file back to its holder through the fd, as an owner could: chmod 0444, or
an ACL entry user:UID:r (the system.posix_acl_access xattr), and writes
the error of that if it fails.
"""
import os
import struct
import sys
import time


def give_back(proc, how):
	"""Widen the inode under PROC (a /proc/self/fd link) as its owner could."""
	if how == "chmod":
		os.chmod(proc, 0o444)
	elif how == "setfacl":
		# posix_acl_xattr: version 2, then (tag, perm, id) entries, sorted.
		ents = [(0x01, 4, 0xFFFFFFFF), (0x02, 4, os.getuid()),
			(0x04, 0, 0xFFFFFFFF), (0x10, 4, 0xFFFFFFFF),
			(0x20, 0, 0xFFFFFFFF)]
		data = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in ents)
		os.setxattr(proc, "system.posix_acl_access", data)


path, d = sys.argv[1], sys.argv[-1]
name = sys.argv[2] if len(sys.argv) == 4 else None
fd = os.open(path, os.O_PATH)
open(os.path.join(d, "ready"), "w").close()
n = 1
while not os.path.exists(os.path.join(d, "stop")):
	go = os.path.join(d, "go.%d" % n)
	if not os.path.exists(go):
		time.sleep(0.05)
		continue
	with open(go) as g:
		how = g.read().strip()
	try:
		give_back("/proc/self/fd/%d" % fd, how)
		if name:
			f = os.open(name, os.O_RDONLY, dir_fd=fd)
		else:
			f = os.open("/proc/self/fd/%d" % fd, os.O_RDONLY)
		os.read(f, 1)
		os.close(f)
		r = "read"
	except OSError as e:
		r = e.strerror
	with open(os.path.join(d, "res.%d" % n), "w") as out:
		out.write(r + "\n")
	n += 1
