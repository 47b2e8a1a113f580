#!/usr/bin/env python3
"""Hold an O_PATH fd, then re-open through it on demand (atomic-tests.sh).

holdfd.py PATH [NAME] DIR: open PATH with O_PATH, create DIR/ready, then
for N = 1, 2, ...: wait for DIR/go.N, re-open the file (/proc/self/fd/FD,
or NAME under the held directory) and write to DIR/res.N "read" or the
error's strerror. Exits once DIR/stop exists.
"""
import os
import sys
import time

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
	try:
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
