#!/usr/bin/env python3
"""pageout.py FILE: fault every page of FILE in through a read-only
mapping, then ask the kernel to reclaim them (MADV_PAGEOUT). Reclaim, unlike
POSIX_FADV_DONTNEED, leaves shadow entries behind: evicted pages."""
import mmap
import os
import sys

fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
total = 0
for off in range(0, size, mmap.PAGESIZE):
    total += m[off]
# Some Python builds lack the constant: the value is the UAPI's.
m.madvise(getattr(mmap, "MADV_PAGEOUT", 21))
m.close()
os.close(fd)
