#!/usr/bin/env python3
"""gz_layout.py: checks that a file is gzip in HotSpot's -gz layout
(heapDumperCompression.cpp), independently of the project's writer.

Owns the test side of that layout for the agent's gzip=y outputs
(test_agent_gzip.sh): every gzip member starts 1f 8b 08 with FLG FCOMMENT
alone and the comment "HPROF BLOCKSIZE=1048576", inflates to exactly
1 MiB except the last (which is not empty unless it is the only one), and
the members together inflate to what python3's gzip module reads. With
OUT, the inflated bytes are written there.

usage: gz_layout.py FILE.gz [OUT]   (prints "<members> members, <bytes> bytes
plain"; exit 1 with the first difference)
"""
import gzip
import sys
import zlib

COMMENT = b"HPROF BLOCKSIZE=1048576"
BLOCK = 1 << 20


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
        return 2
    data = open(sys.argv[1], "rb").read()
    pos, sizes, parts = 0, [], []
    while pos < len(data):
        m = len(sizes)
        if data[pos:pos + 3] != b"\x1f\x8b\x08":
            print("member %d at %d: no gzip magic" % (m, pos), file=sys.stderr)
            return 1
        if data[pos + 3] != 0x10:
            print("member %d: FLG %#x, want FCOMMENT alone" % (m, data[pos + 3]), file=sys.stderr)
            return 1
        end = data.index(b"\0", pos + 10)
        if data[pos + 10:end] != COMMENT:
            print("member %d: comment %r" % (m, data[pos + 10:end]), file=sys.stderr)
            return 1
        d = zlib.decompressobj(31)
        part = d.decompress(data[pos:])
        if not d.eof:
            print("member %d: cut short" % m, file=sys.stderr)
            return 1
        parts.append(part)
        sizes.append(len(part))
        pos = len(data) - len(d.unused_data)
    plain = b"".join(parts)
    want = [BLOCK] * (len(plain) // BLOCK) + ([len(plain) % BLOCK] if len(plain) % BLOCK else [])
    if sizes != (want or [0]):
        print("member sizes %s, want %s" % (sizes[:5] + sizes[-3:], want[:5] + want[-3:]),
              file=sys.stderr)
        return 1
    if gzip.decompress(data) != plain:
        print("python3's gzip reads other bytes", file=sys.stderr)
        return 1
    if len(sys.argv) == 3:
        open(sys.argv[2], "wb").write(plain)
    print("%d members, %d bytes plain" % (len(sizes), len(plain)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
