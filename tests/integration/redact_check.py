#!/usr/bin/env python3
"""redact_check.py: checks that OUT is IN redacted (docs/redact.md), with a
reader of its own (not the project's): the same size, and every byte equal
except
  - primitive values (instance fields by the class layouts, array elements,
    primitive statics and constant-pool values): zero in OUT, or equal to IN
    (a String kept by an option: its value array and fields);
  - the text of UTF8 records: all '*' in OUT, or equal to IN (names).
So every record header, id, reference, root, class dump, field list and
length is the input's. Prints what it counted; exit 1 on the first
difference it does not allow, 2 on a file it cannot read.

usage: redact_check.py IN OUT
"""
import sys


def fail(msg, code=1):
    print("redact_check: " + msg)
    sys.exit(code)


SIZES = {2: None, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
ROOTS = {0xFF: 1, 0x05: 1, 0x07: 1, 0x89: 1, 0x8A: 1, 0x8B: 1, 0x8C: 1, 0x8D: 1, 0x90: 1,
         0x01: 2}  # in ids; others below


def main():
    a = open(sys.argv[1], "rb").read()
    b = open(sys.argv[2], "rb").read()
    if len(a) != len(b):
        fail("sizes differ: %d and %d" % (len(a), len(b)))
    z = a.index(b"\0")
    ids = int.from_bytes(a[z + 1:z + 5], "big")
    if ids not in (4, 8):
        fail("id size %d" % ids, 2)

    def rid(p):
        return int.from_bytes(a[p:p + ids], "big")

    def u4(p):
        return int.from_bytes(a[p:p + 4], "big")

    def u2(p):
        return int.from_bytes(a[p:p + 2], "big")

    def tsize(t):
        return ids if t == 2 else SIZES[t]

    ranges = []  # (start, end, kind) kind 'z' zero, 'u' utf8
    # pass 1: class layouts
    classes = {}

    def segments():
        p = z + 1 + 4 + 8
        while p < len(a):
            tag, ln = a[p], u4(p + 5)
            yield tag, p + 9, p + 9 + ln
            p += 9 + ln

    def subs(p, end, cb):
        while p < end:
            t = a[p]
            if t in ROOTS:
                p += 1 + ROOTS[t] * ids
            elif t in (0x02, 0x03, 0x8E, 0x08):
                p += 1 + ids + 8
            elif t in (0x04, 0x06):
                p += 1 + ids + 4
            elif t == 0xFE:
                p += 1 + 4 + ids
            elif t == 0xC3:
                p += 1 + ids + 9
            elif t == 0x20:
                q = p + 1 + 7 * ids + 8
                cp = []
                n = u2(q)
                q += 2
                for _ in range(n):
                    ty = a[q + 2]
                    cp.append((q + 3, tsize(ty), ty))
                    q += 3 + tsize(ty)
                n = u2(q)
                q += 2
                for _ in range(n):
                    ty = a[q + ids]
                    cp.append((q + ids + 1, tsize(ty), ty))
                    q += ids + 1 + tsize(ty)
                nf = u2(q)
                fields = [a[q + 2 + i * (ids + 1) + ids] for i in range(nf)]
                names = [rid(q + 2 + i * (ids + 1)) for i in range(nf)]
                q += 2 + nf * (ids + 1)
                cb("class", p, (rid(p + 1), rid(p + 1 + ids + 4), fields, names, cp))
                p = q
            elif t == 0x21:
                n = u4(p + 1 + 2 * ids + 4)
                cb("inst", p, (rid(p + 1 + ids + 4), p + 1 + 2 * ids + 8, n))
                p += 1 + 2 * ids + 8 + n
            elif t == 0x22:
                p += 1 + 2 * ids + 8 + u4(p + 1 + ids + 4) * ids
            elif t == 0x23:
                ty = a[p + 1 + ids + 8]
                n = u4(p + 1 + ids + 4)
                h = p + 1 + ids + 9
                cb("parr", p, (h, h + n * SIZES[ty]))
                p = h + n * SIZES[ty]
            else:
                fail("unknown sub-record 0x%02X at %d" % (t, p), 2)

    def on_class(kind, p, v):
        if kind == "class":
            classes[v[0]] = v

    for tag, s, e in segments():
        if tag in (0x0C, 0x1C):
            subs(s, e, on_class)
    layouts = {}

    def layout(cid):
        if cid in layouts:
            return layouts[cid]
        out, off, k = [], 0, cid
        while k:
            c = classes[k]
            for ty in c[2]:
                if ty != 2:
                    out.append((off, SIZES[ty]))
                off += tsize(ty)
            k = c[1]
        layouts[cid] = (off, out)
        return layouts[cid]

    counts = {"instances": 0, "prim arrays": 0, "statics": 0, "utf8": 0}

    def on_sub(kind, p, v):
        if kind == "class":
            for (q, sz, ty) in v[4]:
                if ty != 2:
                    ranges.append((q, q + sz, "z"))
                    counts["statics"] += 1
        elif kind == "inst":
            size, prims = layout(v[0])
            if size != v[2]:
                fail("instance at %d: %d bytes, layout %d" % (p, v[2], size), 2)
            for off, sz in prims:
                ranges.append((v[1] + off, v[1] + off + sz, "z"))
            counts["instances"] += 1
        elif kind == "parr":
            ranges.append((v[0], v[1], "z"))
            counts["prim arrays"] += 1

    for tag, s, e in segments():
        if tag in (0x0C, 0x1C):
            subs(s, e, on_sub)
        elif tag == 0x01:
            ranges.append((s + ids, e, "u"))
            counts["utf8"] += 1
    exp = bytearray(a)
    kept = {"z": 0, "u": 0}
    changed = {"z": 0, "u": 0}
    for s, e, kind in ranges:
        seg = b[s:e]
        if seg == a[s:e]:
            kept[kind] += 1
        elif seg == (b"\0" if kind == "z" else b"*") * (e - s):
            changed[kind] += 1
        else:
            fail("bytes %d..%d (%s) are neither the input's nor redacted" % (s, e, kind))
        exp[s:e] = seg
    if exp != b:
        i = next(i for i in range(len(b)) if exp[i] != b[i])
        fail("byte %d differs outside the values and texts a redaction may change" % i)
    print("redact_check: %s -> %s: structure identical; %d instances, %d primitive arrays, "
          "%d statics/constants, %d UTF8 records; value ranges zeroed %d (kept or already zero %d),"
          " UTF8 texts redacted %d (kept %d)" % (sys.argv[1], sys.argv[2], counts["instances"],
          counts["prim arrays"], counts["statics"], counts["utf8"], changed["z"], kept["z"],
          changed["u"], kept["u"]))


main()
