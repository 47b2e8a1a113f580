#!/usr/bin/env python3
"""Take a pin's iterator link as its owner can, then walk it on demand
(atomic-tests.sh).

holdlink.py PIN DIR [writable]: as the owner of PIN, give yourself write
permission on it (chmod u+w: BPF_OBJ_GET of a link needs read and write
permission on the pin), take an fd on the link itself with BPF_OBJ_GET,
and, unless "writable", put the mode back so that the pin does not
drift. Then create DIR/ready, empty, or holding the error if the link
could not be taken. Then for N = 1, 2, ...: wait for DIR/go.N, start a
new walk of the link with BPF_ITER_CREATE, read it to its end, and write
to DIR/res.N its first line, "empty" if it printed nothing, or the
error's strerror. Exits once DIR/stop exists.

bpf(2) through ctypes, x86_64 only (the test VM's): the syscall number
and the attributes are the kernel's UAPI.
"""
import ctypes
import os
import platform
import stat
import sys
import time

SYS_BPF = 321		# x86_64
BPF_OBJ_GET = 7
BPF_ITER_CREATE = 33

libc = ctypes.CDLL(None, use_errno=True)


class ObjGetAttr(ctypes.Structure):
	_fields_ = [("pathname", ctypes.c_uint64), ("bpf_fd", ctypes.c_uint32),
		    ("file_flags", ctypes.c_uint32)]


class IterCreateAttr(ctypes.Structure):
	_fields_ = [("link_fd", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


def bpf(cmd, attr):
	r = libc.syscall(SYS_BPF, cmd, ctypes.byref(attr), ctypes.sizeof(attr))
	if r < 0:
		e = ctypes.get_errno()
		raise OSError(e, os.strerror(e))
	return r


def take_link(pin, writable):
	"""An fd on PIN's link, taken as its owner can (file_flags 0: O_RDWR)."""
	mode = stat.S_IMODE(os.stat(pin).st_mode)
	os.chmod(pin, mode | stat.S_IWUSR)
	try:
		path = ctypes.create_string_buffer(os.fsencode(pin))
		return bpf(BPF_OBJ_GET, ObjGetAttr(ctypes.addressof(path), 0, 0))
	finally:
		if not writable:
			os.chmod(pin, mode)


def walk(link_fd):
	"""A new walk of the link: its first line, or "empty"."""
	fd = bpf(BPF_ITER_CREATE, IterCreateAttr(link_fd, 0))
	out = b""
	try:
		while True:
			chunk = os.read(fd, 65536)
			if not chunk:
				break
			out += chunk
	finally:
		os.close(fd)
	return out.decode(errors="replace").splitlines()[0] if out else "empty"


pin, d = sys.argv[1], sys.argv[2]
if platform.machine() != "x86_64":
	sys.exit("holdlink.py: bpf(2) is syscall %d on x86_64 only" % SYS_BPF)
try:
	link = take_link(pin, len(sys.argv) > 3 and sys.argv[3] == "writable")
	why = ""
except OSError as e:
	link, why = -1, e.strerror
with open(os.path.join(d, "ready.tmp"), "w") as f:
	f.write(why)
os.rename(os.path.join(d, "ready.tmp"), os.path.join(d, "ready"))
n = 1
while not os.path.exists(os.path.join(d, "stop")):
	go = os.path.join(d, "go.%d" % n)
	if not os.path.exists(go):
		time.sleep(0.05)
		continue
	try:
		r = walk(link) if link >= 0 else "no link: " + why
	except OSError as e:
		r = e.strerror
	with open(os.path.join(d, "res.%d" % n), "w") as out:
		out.write(r + "\n")
	n += 1
