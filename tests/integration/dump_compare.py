#!/usr/bin/env python3
"""dump_compare.py: compares two heap dumps of the same JVM, ours and
HotSpot's (jcmd GC.heap_dump), through their `hprof print` text (the
original's CLS/OBJ/ROOT lines), independently of the project's reader
library:
  - every class whose name is unique in both files has a super class of the
    same name in both (ids differ between the two dumps, names do not);
    classes without a super: java.lang.Object only;
  - --count CLASS=N: N instances (OBJ lines) of CLASS in each file.
Prints one "ok" line per check; exit 1 on the first failed set.

usage: dump_compare.py OURS.txt HOTSPOT.txt [--count CLASS=N]...
"""
import re
import sys
from collections import Counter

CLS = re.compile(r'^CLS ([0-9a-f]+) \(name=([^,]*), trace=')
OBJ = re.compile(r'^OBJ [0-9a-f]+ \(sz=\d+, trace=\d+, class=(.*)@[0-9a-f]+\)$')


def load(path):
    names, supers, counts = {}, {}, Counter()
    cur = None
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = CLS.match(line)
            if m:
                cur = m.group(1)
                names[cur] = m.group(2)
                supers[cur] = None
                continue
            if cur and line.startswith('\tsuper\t'):
                supers[cur] = line.split()[-1]
                continue
            if not line.startswith('\t'):
                cur = None
            m = OBJ.match(line)
            if m:
                counts[m.group(1)] += 1
    per_name = Counter(names.values())
    out = {}
    for cid, n in names.items():
        if per_name[n] == 1:
            s = supers[cid]
            out[n] = names.get(s, '?' + s) if s else None
    return out, counts


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    ours, ocount = load(sys.argv[1])
    hs, hcount = load(sys.argv[2])
    bad = 0
    common = sorted(set(ours) & set(hs))
    diff = [(n, ours[n], hs[n]) for n in common if ours[n] != hs[n]]
    for n, o, h in diff[:10]:
        print(f'FAIL super of {n}: ours {o}, HotSpot\'s {h}')
    roots = [n for n in common if ours[n] is None]
    if diff or roots != ['java.lang.Object'] or len(common) < 100:
        bad = 1
        print(f'FAIL supers: {len(diff)} of {len(common)} classes differ; classes without a super: {roots}')
    else:
        print(f'ok the same super class for all {len(common)} classes (only java.lang.Object has none)')
    args = sys.argv[3:]
    while args:
        if args[0] != '--count' or len(args) < 2:
            print(__doc__, file=sys.stderr)
            return 2
        cls, n = args[1].rsplit('=', 1)
        args = args[2:]
        if ocount[cls] == int(n) and hcount[cls] == int(n):
            print(f'ok {n} instances of {cls} in both')
        else:
            bad = 1
            print(f'FAIL instances of {cls}: ours {ocount[cls]}, HotSpot\'s {hcount[cls]}, expected {n}')
    return bad


if __name__ == '__main__':
    sys.exit(main())
