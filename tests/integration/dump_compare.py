#!/usr/bin/env python3
"""dump_compare.py: compares two heap dumps of the same JVM, ours and
HotSpot's (jcmd GC.heap_dump), through their `hprof print` text (the
original's CLS/OBJ/ROOT lines), independently of the project's reader
library:
  - every class whose name is unique in both files has a super class of the
    same name in both (ids differ between the two dumps, names do not);
    classes without a super: java.lang.Object only; and a class loader in
    ours wherever HotSpot's names one;
  - --count CLASS=N: N instances (OBJ lines) of CLASS in each file;
  - --vthread-roots CLASS=METHOD: every instance of CLASS is a <Java stack>
    root of a thread whose <thread> root is a java.lang.VirtualThread, at the
    same frames in both files, and the stack (TRACE) of the thread running
    METHOD (the mounted one) is the same in both (ours may give the other,
    unmounted, virtual threads the empty trace).
Prints one "ok" line per check; exit 1 on the first failed set.

usage: dump_compare.py OURS.txt HOTSPOT.txt [--count CLASS=N]...
"""
import re
import sys
from collections import Counter

CLS = re.compile(r'^CLS ([0-9a-f]+) \(name=([^,]*), trace=')
OBJ = re.compile(r'^OBJ [0-9a-f]+ \(sz=\d+, trace=\d+, class=(.*)@[0-9a-f]+\)$')


ROOT = re.compile(r'^ROOT ([0-9a-f]+) \(kind=<([^>]*)>, (?:thread|id)=(\d+)(?:, frame=(\d+)|, trace=(\d+))')


def vthread_roots(path, cls):
    """(frame, trace frames) of each CLASS instance's <Java stack> root
    whose thread is a java.lang.VirtualThread; None for any other root."""
    objs, roots, threads, traces = {}, {}, {}, {}
    cur = None
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = OBJ.match(line)
            if m:
                objs[line.split()[1]] = m.group(1)
            m = ROOT.match(line)
            if m and m.group(2) == 'Java stack':
                roots.setdefault(m.group(1), []).append((m.group(3), m.group(4)))
            elif m and m.group(2) == 'thread':
                threads[m.group(3)] = (m.group(1), m.group(5))
            if line.startswith('TRACE '):
                cur = line.split()[1].rstrip(':')
                traces[cur] = []
            elif cur and line.startswith('\t'):
                traces[cur].append(line.strip())
            else:
                cur = None
    out = []
    for oid, c in objs.items():
        if c != cls:
            continue
        for tser, frame in roots.get(oid, [None]) if oid in roots else [(None, None)]:
            th = threads.get(tser)
            if not th or objs.get(th[0]) != 'java.lang.VirtualThread':
                out.append(None)
            else:
                out.append((int(frame), tuple(x for x in traces.get(th[1], []) if x != '<empty>')))
    return sorted(out, key=str)


def load(path):
    names, supers, counts, loaded = {}, {}, Counter(), set()
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
            if cur and line.startswith('\tloader\t'):
                loaded.add(names[cur])
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
    return out, counts, loaded


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    ours, ocount, oloaded = load(sys.argv[1])
    hs, hcount, hloaded = load(sys.argv[2])
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
    noloader = sorted(n for n in common if n in hloaded and n not in oloaded)
    if noloader:
        bad = 1
        print(f'FAIL no loader in ours for {len(noloader)} classes whose loader HotSpot\'s names: {noloader[:10]}')
    else:
        print(f'ok a loader wherever HotSpot\'s dump names one ({len(hloaded & set(common))} classes)')
    args = sys.argv[3:]
    while args:
        if args[0] not in ('--count', '--vthread-roots') or len(args) < 2:
            print(__doc__, file=sys.stderr)
            return 2
        opt, (cls, n) = args[0], args[1].rsplit('=', 1)
        args = args[2:]
        if opt == '--vthread-roots':
            o, h = vthread_roots(sys.argv[1], cls), vthread_roots(sys.argv[2], cls)
            om = [r for r in o if r and r[1] and n in r[1][0]]
            hm = [r for r in h if r and r[1] and n in r[1][0]]
            if (None in o or None in h or not o or [r[0] for r in o] != [r[0] for r in h]
                    or len(hm) != 1 or om != hm):
                bad = 1
                print(f'FAIL {cls} roots in virtual threads: ours {o}, HotSpot\'s {h}')
            else:
                print(f'ok {len(o)} {cls} held by virtual threads (frames {[r[0] for r in o]}), '
                      f'the mounted one\'s stack as in HotSpot\'s ({len(om[0][1])} frames)')
            continue
        if ocount[cls] == int(n) and hcount[cls] == int(n):
            print(f'ok {n} instances of {cls} in both')
        else:
            bad = 1
            print(f'FAIL instances of {cls}: ours {ocount[cls]}, HotSpot\'s {hcount[cls]}, expected {n}')
    return bad


if __name__ == '__main__':
    sys.exit(main())
