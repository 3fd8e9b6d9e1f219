#!/usr/bin/env python3
"""Writes two hostile .gz HPROF files for the reader's memory figures
(bench/BENCHMARKS.md, "The tools on long records"):
  utf8-4g.hprof.gz    one UTF8 record of 4 GB - 16 bytes (zeros), then a small one
  utf8-200m.hprof.gz  the same with a 200 MB UTF8
Each is a chain of gzip members (one 64 MiB member of zeros written again and
again), so 4 GB costs 18 MB and no compression time. Usage:
  bench/long_records.py [DIR]     # then: /usr/bin/time -v hprof info DIR/utf8-4g.hprof.gz
"""
import os
import sys
import struct
import zlib



def member(b):
    """One gzip member (level 1) holding b."""
    c = zlib.compressobj(1, zlib.DEFLATED, 31)
    return c.compress(b) + c.flush()


def gen(path, tag, length, tail=True):
    """HPROF 1.0.2, 8-byte ids: a record `tag` of `length` bytes (id 1, zeros),
    then a UTF8 "after" (id 2)."""
    head = (b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 0) +
            struct.pack(">BII", tag, 0, length) + struct.pack(">Q", 1))
    blk = 64 << 20
    full = member(bytes(blk))
    left = length - 8
    with open(path, "wb") as f:
        f.write(member(head))
        while left >= blk:
            f.write(full)
            left -= blk
        if left:
            f.write(member(bytes(left)))
        if tail:
            f.write(member(struct.pack(">BII", 1, 0, 13) + struct.pack(">Q", 2) + b"after"))


out = sys.argv[1] if len(sys.argv) > 1 else "."
gen(os.path.join(out, "utf8-4g.hprof.gz"), 1, 0xFFFFFFF0)
gen(os.path.join(out, "utf8-200m.hprof.gz"), 1, 200 << 20)
