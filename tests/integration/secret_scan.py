#!/usr/bin/env python3
"""secret_scan.py: counts the known secrets of demo-java/SecretDemo.java in a
file (binary HPROF or text), byte by byte, in every encoding HPROF can give
them: strings as Latin-1/UTF-8 bytes, UTF-16BE (char[] elements) and
UTF-16LE (a UTF-16 String's byte[] on x86); longs, the double's bits and the
int big- and little-endian, and as text (hex, decimal) for text dumps.

usage: secret_scan.py FILE [NAME...]
Prints one line "NAME COUNT" per secret (all, or the NAMEs given), the count
summed over the encodings; exit status 0 (the caller judges the counts).
"""
import struct
import sys

STRINGS = {
    "latin1": "S3CR3T-PASSWORD-4242",
    "utf16": "GEHEIM-\u03a9-KENNWORT-7391",
    "chars": "CHARARRAY-SECRET-8813",
    "bytes": "BYTEARRAY-SECRET-5150",
    "thread": "worker-THREADNAME-6021",
    "config_static": "config-static-KEEP-A",
    "config_field": "config-field-KEEP-B",
}
LONGS = {"long": 0x5EC12E7A11CE5EC2, "static_long": 0x57A71C5EC2E7A55E,
         "double": 0x41E5EC2E7DAB1E55}
INTS = {"int": 0x5EC2E7A1}


def encodings(name):
    if name in STRINGS:
        s = STRINGS[name]
        out = {s.encode("utf-8"), s.encode("utf-16-be"), s.encode("utf-16-le")}
        try:
            out.add(s.encode("latin-1"))
        except UnicodeEncodeError:
            pass
        return out
    # numbers also as text: hex (either case) and decimal, signed and not
    if name in LONGS:
        v, fmt, bits = LONGS[name], "Q", 64
    else:
        v, fmt, bits = INTS[name], "I", 32
    signed = v - (1 << bits) if v >> (bits - 1) else v
    return {struct.pack(">" + fmt, v), struct.pack("<" + fmt, v), b"%x" % v, b"%X" % v,
            b"%d" % v, b"%d" % signed}


def count(data, pat):
    n, i = 0, data.find(pat)
    while i >= 0:
        n += 1
        i = data.find(pat, i + 1)
    return n


def main():
    data = open(sys.argv[1], "rb").read()
    names = sys.argv[2:] or list(STRINGS) + list(LONGS) + list(INTS)
    for name in names:
        print(name, sum(count(data, p) for p in encodings(name)))


main()
