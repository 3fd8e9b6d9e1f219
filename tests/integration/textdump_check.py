#!/usr/bin/env python3
"""textdump_check.py: checks the HEAP DUMP sections of an agent's text output
(format=a), independently of the project's reader, for test_agent_heapdump.sh.

Checks, on the whole file:
  - the number of HEAP DUMP BEGIN ... END sections (--sections);
  - every line of a section matches the original's grammar for its kind
    (HEAP DUMP BEGIN, ROOT by kind, CLS, OBJ, object ARR, primitive ARR, the
    tab-indented sub-lines each may have, HEAP DUMP END), with the original's
    tab rule for field lines (a second tab when the name is under 8
    characters); no ROOT/CLS/OBJ/ARR line outside a section;
  - each BEGIN line's counts are the section's OBJ + ARR lines and their sz;
  - sz: a multiple of 8, the same for every instance of a class, and for
    arrays exactly 2 ids + 4 bytes of length + the elements, rounded to 8;
  - ids unique in a section, and every id named (roots, class@id, fields,
    elements, CLS super/loader/domain/statics) is an object or class of the
    section; the class of an OBJ/ARR line is the CLS of that name;
  - every trace named (ROOT <thread>, CLS, OBJ, ARR) is a TRACE block printed
    earlier in the file, and no TRACE block is printed twice;
  - every frame root's thread has a <thread> root in its section.
With --heapdemo N:M, on every section, the heap of demo-java/HeapDemo.java:
  HeapDemo's static references, ITEMS (N + 5 slots, the first N set, each an
  Item whose next is the following one and whose name is a String of
  "item-<i>"'s length), SUBS (M SubItems, peer = the Item of the same index,
  own fields before the inherited), the primitive arrays' types and lengths,
  GRID (int[3][7]), sStr, and 3 Markers each held by a <Java stack> root of
  the thread "parked-holder" (named by THREAD START; in a dump whose thread
  numbers are its producer's, HotSpot's, the one thread running HeapDemo's
  lambda).
With --histo FILE (`hprof histo` of a format=b dump of the same program):
  the instances and bytes of each of the program's classes in the first
  section equal the histogram's.
With --alloc-line L: every Item's trace has HeapDemo.main(HeapDemo.java:L) on
  top (heap=all); with --no-alloc-traces every object's trace is 300000.

Prints "ok: ..." lines; on failure "FAIL: ..." lines and exit status 1.
"""
import re
import sys

HEX = r"[1-9a-f][0-9a-f]*"
NAME = r"[^\s,()@]+"
TIME = r"[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}"
R_BEGIN = re.compile(r"^HEAP DUMP BEGIN \((\d+) objects, (\d+) bytes\) " + TIME + "$")
R_END = re.compile(r"^HEAP DUMP END$")
R_ROOT = [
    ("thread", re.compile(r"^ROOT (" + HEX + r") \(kind=<thread>, id=(\d+), trace=(\d+)\)$")),
    ("global", re.compile(r"^ROOT (" + HEX + r") \(kind=<JNI global ref>, id=(" + HEX + r"), trace=(\d+)\)$")),
    ("frame", re.compile(r"^ROOT (" + HEX + r") \(kind=<(Java stack|JNI local ref)>, thread=(\d+), frame=(-?\d+)\)$")),
    ("sysclass", re.compile(r"^ROOT (" + HEX + r") \(kind=<system class>, name=(" + NAME + r"|<Unknown Class>)\)$")),
    ("plain", re.compile(r"^ROOT (" + HEX + r") \(kind=<(busy monitor|unknown)>\)$")),
]
R_CLS = re.compile(r"^CLS (" + HEX + r") \(name=(" + NAME + r"), trace=(\d+)\)$")
R_CLS_SUB = re.compile(r"^\t(super|loader|signers|domain)\t\t(" + HEX + r")$")
R_CLS_STATIC = re.compile(r"^\tstatic (\S+)\t(" + HEX + r")$")
R_CLS_CP = re.compile(r"^\tconstant pool entry (\d+)\t(" + HEX + r")$")
R_OBJ = re.compile(r"^OBJ (" + HEX + r") \(sz=(\d+), trace=(\d+), class=(" + NAME + r")@(" + HEX + r")\)$")
R_FIELD = re.compile(r"^\t(\S+)\t(\t?)(" + HEX + r")$")
R_OARR = re.compile(r"^ARR (" + HEX + r") \(sz=(\d+), trace=(\d+), nelems=(\d+), elem type=("
                    + NAME + r"\[\])@(" + HEX + r")\)$")
R_PARR = re.compile(r"^ARR (" + HEX + r") \(sz=(\d+), trace=(\d+), nelems=(\d+), elem type="
                    r"(boolean|byte|char|short|int|long|float|double)\[\]\)$")
R_ELEM = re.compile(r"^\t\[(\d+)\]\t\t(" + HEX + r")$")
R_TRACE = re.compile(r"^TRACE (\d+):( \(thread=\d+\))?$")
R_FRAME = re.compile(r"^\t(<empty>|\S+\.[^\s.(]+\([^:]+:(\d+|Unknown line|Native method)\))$")
R_THREAD = re.compile(r'^THREAD START \(obj=[0-9a-f]+, id = (\d+), name="(.*)", group=".*"\)$')
PRIM_SIZE = {"boolean": 1, "byte": 1, "char": 2, "short": 2, "int": 4, "long": 8, "float": 4, "double": 8}


# sz is HotSpot's size on a 64-bit JVM with compressed oops and class
# pointers (tools/objsize.h): a 16-byte array header, 4-byte references
ARRAY_HEADER = 16
REF_SIZE = 4


def align8(n):
    return (n + 7) & ~7


class Section:
    def __init__(self, line):
        self.line = line
        self.begin = None
        self.objs = {}     # id -> dict(kind, cls, clsid, sz, trace, fields[(name, id)], elems{}, nelems, line)
        self.classes = {}  # id -> dict(name, trace, subs{}, statics{}, line)
        self.by_name = {}  # class name -> class id
        self.roots = []    # (kind, id, groups)


class Checker:
    def __init__(self):
        self.fails = []
        self.oks = []

    def fail(self, msg):
        if len(self.fails) < 30:
            self.fails.append(msg)

    def ok(self, msg):
        self.oks.append(msg)


def parse(path, ck):
    traces = {}   # serial -> (line, frames)
    threads = {}  # name -> serial
    sections = []
    sec = None
    parent = None  # the current CLS/OBJ/ARR record, for its sub-lines
    tr = None      # the TRACE block being read
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for no, l in enumerate(lines, 1):
        if tr is not None:
            if l.startswith("\t"):
                if not R_FRAME.match(l):
                    ck.fail("line %d: bad TRACE frame: %r" % (no, l))
                traces[tr][1].append(l[1:])
                continue
            if not traces[tr][1]:
                ck.fail("line %d: TRACE %s has no frame line" % (no, tr))
            tr = None
        if sec is None:
            m = R_TRACE.match(l)
            if m:
                if m.group(1) in traces:
                    ck.fail("line %d: TRACE %s printed twice (first at line %d)" % (no, m.group(1), traces[m.group(1)][0]))
                tr = m.group(1)
                traces[tr] = (no, [])
                continue
            m = R_THREAD.match(l)
            if m:
                threads[m.group(2)] = m.group(1)
            if l.startswith("HEAP DUMP BEGIN"):
                m = R_BEGIN.match(l)
                if not m:
                    ck.fail("line %d: bad HEAP DUMP BEGIN line: %r" % (no, l))
                sec = Section(no)
                sec.begin = (int(m.group(1)), int(m.group(2))) if m else (-1, -1)
                sections.append(sec)
                parent = None
            elif re.match(r"^(ROOT|CLS|OBJ|ARR|HEAP DUMP END)\b", l):
                ck.fail("line %d: outside a HEAP DUMP section: %r" % (no, l))
            continue
        # inside a section
        if R_END.match(l):
            sec = None
            continue
        if l.startswith("\t"):
            if parent is None:
                ck.fail("line %d: a sub-line under no CLS/OBJ/ARR: %r" % (no, l))
            elif parent[0] == "cls":
                c = parent[1]
                m = R_CLS_SUB.match(l)
                ms = R_CLS_STATIC.match(l)
                mc = R_CLS_CP.match(l)
                if m:
                    if m.group(1) in c["subs"]:
                        ck.fail("line %d: %s given twice" % (no, m.group(1)))
                    c["subs"][m.group(1)] = m.group(2)
                elif ms:
                    c["statics"][ms.group(1)] = ms.group(2)
                elif mc:
                    c["cp"].append(mc.group(2))
                else:
                    ck.fail("line %d: bad CLS sub-line: %r" % (no, l))
            elif parent[0] == "obj":
                m = R_FIELD.match(l)
                if not m:
                    ck.fail("line %d: bad OBJ field line: %r" % (no, l))
                elif (len(m.group(1)) < 8) != (m.group(2) == "\t"):
                    ck.fail("line %d: field %s: %s tab(s) after a name of %d characters" %
                            (no, m.group(1), 1 + len(m.group(2)), len(m.group(1))))
                else:
                    parent[1]["fields"].append((m.group(1), m.group(3)))
            elif parent[0] == "oarr":
                o = parent[1]
                m = R_ELEM.match(l)
                if not m:
                    ck.fail("line %d: bad array element line: %r" % (no, l))
                else:
                    i = int(m.group(1))
                    if i >= o["nelems"] or (o["elems"] and i <= max(o["elems"])):
                        ck.fail("line %d: element [%d] out of order or range (nelems %d)" % (no, i, o["nelems"]))
                    o["elems"][i] = m.group(2)
            else:
                ck.fail("line %d: a sub-line under a primitive array or a ROOT: %r" % (no, l))
            continue
        parent = None
        if l.startswith("ROOT "):
            for kind, rx in R_ROOT:
                m = rx.match(l)
                if m:
                    sec.roots.append((kind, m.group(1), m.groups(), no))
                    parent = ("root", None)  # no sub-lines
                    break
            else:
                ck.fail("line %d: bad ROOT line: %r" % (no, l))
            continue
        m = R_CLS.match(l)
        if m:
            cid = m.group(1)
            if cid in sec.classes or cid in sec.objs:
                ck.fail("line %d: id %s given twice" % (no, cid))
            c = {"name": m.group(2), "trace": m.group(3), "subs": {}, "statics": {}, "cp": [], "line": no}
            sec.classes[cid] = c
            sec.by_name.setdefault(m.group(2), cid)
            parent = ("cls", c)
            continue
        m = R_OBJ.match(l)
        mo = R_OARR.match(l)
        mp = R_PARR.match(l)
        if m or mo or mp:
            g = (m or mo or mp).groups()
            oid = g[0]
            if oid in sec.objs or oid in sec.classes:
                ck.fail("line %d: id %s given twice" % (no, oid))
            o = {"sz": int(g[1]), "trace": g[2], "line": no, "fields": [], "elems": {}}
            if m:
                o.update(kind="obj", cls=g[3], clsid=g[4])
                parent = ("obj", o)
            elif mo:
                o.update(kind="oarr", nelems=int(g[3]), cls=g[4], clsid=g[5])
                parent = ("oarr", o)
            else:
                o.update(kind="parr", nelems=int(g[3]), cls=g[4] + "[]", clsid=None)
                parent = ("parr", o)
            sec.objs[oid] = o
            continue
        ck.fail("line %d: not a HEAP DUMP line: %r" % (no, l))
    if tr is not None and not traces[tr][1]:
        ck.fail("TRACE %s at the end has no frame line" % tr)
    if sec is not None:
        ck.fail("the HEAP DUMP section of line %d has no HEAP DUMP END" % sec.line)
    return traces, threads, sections


def check_section(k, sec, traces, ck, no_alloc):
    what = "section %d (line %d)" % (k, sec.line)
    nobj = len(sec.objs)
    nbytes = sum(o["sz"] for o in sec.objs.values())
    if sec.begin != (nobj, nbytes):
        ck.fail("%s: BEGIN says %s objects/bytes, the lines hold %d objects of %d bytes" %
                (what, sec.begin, nobj, nbytes))
    known = set(sec.objs) | set(sec.classes)
    inst_sz = {}
    for oid, o in sec.objs.items():
        where = "%s, line %d" % (what, o["line"])
        if o["sz"] % 8:
            ck.fail("%s: sz %d is not a multiple of 8" % (where, o["sz"]))
        if o["kind"] == "parr":
            want = align8(ARRAY_HEADER + o["nelems"] * PRIM_SIZE[o["cls"][:-2]])
            if o["sz"] != want:
                ck.fail("%s: sz %d, expected %d" % (where, o["sz"], want))
        elif o["kind"] == "oarr":
            want = align8(ARRAY_HEADER + o["nelems"] * REF_SIZE)
            if o["sz"] != want:
                ck.fail("%s: sz %d, expected %d" % (where, o["sz"], want))
        else:
            if inst_sz.setdefault(o["clsid"], o["sz"]) != o["sz"]:
                ck.fail("%s: sz %d, another %s has %d" % (where, o["sz"], o["cls"], inst_sz[o["clsid"]]))
        if o["clsid"] is not None:
            c = sec.classes.get(o["clsid"])
            if c is None or c["name"] != o["cls"]:
                ck.fail("%s: class %s@%s is no CLS of that name" % (where, o["cls"], o["clsid"]))
        for name, v in o["fields"]:
            if v not in known:
                ck.fail("%s: field %s names %s, which is not in the dump" % (where, name, v))
        for i, v in o["elems"].items():
            if v not in known:
                ck.fail("%s: element [%d] names %s, which is not in the dump" % (where, i, v))
        if o["trace"] not in traces or traces[o["trace"]][0] > o["line"]:
            ck.fail("%s: trace %s has no TRACE block before it" % (where, o["trace"]))
        if no_alloc and o["trace"] != "300000":
            ck.fail("%s: trace %s, expected 300000 (no allocation traces)" % (where, o["trace"]))
    for cid, c in sec.classes.items():
        where = "%s, line %d" % (what, c["line"])
        for name, v in list(c["subs"].items()) + [("static " + n, v) for n, v in c["statics"].items()]:
            if v not in known:
                ck.fail("%s: %s names %s, which is not in the dump" % (where, name, v))
        if c["trace"] not in traces or traces[c["trace"]][0] > c["line"]:
            ck.fail("%s: trace %s has no TRACE block before it" % (where, c["trace"]))
    thread_serials = set()
    for kind, rid, g, no in sec.roots:
        if kind == "thread":
            thread_serials.add(g[1])
            if g[2] not in traces or traces[g[2]][0] > no:
                ck.fail("%s, line %d: thread trace %s has no TRACE block before it" % (what, no, g[2]))
    for kind, rid, g, no in sec.roots:
        if rid not in known:
            ck.fail("%s, line %d: root %s is not in the dump" % (what, no, rid))
        if kind == "frame" and g[2] not in thread_serials:
            ck.fail("%s, line %d: thread %s has no <thread> root" % (what, no, g[2]))
        if kind == "sysclass":
            if g[1] == "<Unknown Class>":
                # a mirror of no loaded class (CDS): an instance of java.lang.Class
                o = sec.objs.get(rid)
                if not o or o["cls"] != "java.lang.Class":
                    ck.fail("%s, line %d: an unnamed system class that is no java.lang.Class" % (what, no))
            elif rid not in sec.classes or sec.classes[rid]["name"] != g[1]:
                ck.fail("%s, line %d: system class %s is no CLS of that name" % (what, no, g[1]))


def java_to_vm(name):
    dims = 0
    while name.endswith("[]"):
        name, dims = name[:-2], dims + 1
    prim = {"boolean": "Z", "byte": "B", "char": "C", "short": "S", "int": "I", "long": "J",
            "float": "F", "double": "D"}
    if dims == 0:
        return name.replace(".", "/")
    return "[" * dims + (prim[name] if name in prim else "L" + name.replace(".", "/") + ";")


def class_stats(sec):
    st = {}
    for o in sec.objs.values():
        n = java_to_vm(o["cls"])
        a = st.setdefault(n, [0, 0])
        a[0] += 1
        a[1] += o["sz"]
    return st


def check_heapdemo(k, sec, threads, traces, ck, n_items, n_subs, alloc_line):
    what = "section %d" % k
    objs, classes = sec.objs, sec.classes

    def cls_named(name):
        cid = sec.by_name.get(name)
        if cid is None:
            ck.fail("%s: no CLS %s" % (what, name))
        return cid

    def string_len(sid):
        s = objs.get(sid)
        if not s or s["cls"] != "java.lang.String":
            return None
        v = dict(s["fields"]).get("value")
        a = objs.get(v)
        return a["nelems"] if a and a["kind"] == "parr" and a["cls"] == "byte[]" else None

    hid = cls_named("HeapDemo")
    if hid is None:
        return
    # "<name>" statics are the objects the VM (its Class object) holds, as
    # HotSpot's "<resolved_references>": not HeapDemo's own
    st = {k: v for k, v in classes[hid]["statics"].items() if not k.startswith("<")}
    want = {"sStr", "ITEMS", "SUBS", "ZS", "BS", "CS", "SS", "IS", "JS", "FS", "DS", "GRID"}
    if set(st) != want:
        ck.fail("%s: HeapDemo's static references are %s, expected %s" % (what, sorted(st), sorted(want)))
        return
    items = objs.get(st["ITEMS"])
    if not items or items["kind"] != "oarr" or items["cls"] != "HeapDemo$Item[]" or items["nelems"] != n_items + 5:
        ck.fail("%s: ITEMS is not a HeapDemo$Item[%d]: %s" % (what, n_items + 5, items))
        return
    if sorted(items["elems"]) != list(range(n_items)):
        ck.fail("%s: ITEMS sets slots %s..., expected 0..%d (5 trailing nulls)" %
                (what, sorted(items["elems"])[:5], n_items - 1))
        return
    ids = [items["elems"][i] for i in range(n_items)]
    bad = 0
    for i, iid in enumerate(ids):
        it = objs.get(iid)
        if not it or it["cls"] != "HeapDemo$Item":
            bad += 1
            continue
        f = dict(it["fields"])
        want_fields = ["name", "next"] if i + 1 < n_items else ["name"]
        if sorted(f) != want_fields or (i + 1 < n_items and f["next"] != ids[i + 1]) or \
                string_len(f["name"]) != len("item-%d" % i):
            bad += 1
            if bad <= 3:
                ck.fail("%s: Item %d: fields %s" % (what, i, it["fields"]))
    if bad:
        ck.fail("%s: %d of %d Items do not read back as set" % (what, bad, n_items))
    else:
        ck.ok("%s: %d Items in ITEMS[%d] (5 trailing nulls), each next = the following one, "
              "name = a String of \"item-<i>\"'s length" % (what, n_items, n_items + 5))
    subs = objs.get(st["SUBS"])
    if not subs or subs["cls"] != "HeapDemo$SubItem[]" or subs["nelems"] != n_subs or \
            sorted(subs["elems"]) != list(range(n_subs)):
        ck.fail("%s: SUBS is not a full HeapDemo$SubItem[%d]" % (what, n_subs))
    else:
        bad = 0
        for i in range(n_subs):
            s = objs.get(subs["elems"][i])
            names = [n for n, _ in s["fields"]] if s else None
            if not s or s["cls"] != "HeapDemo$SubItem" or names != ["peer", "name"] or \
                    dict(s["fields"])["peer"] != ids[i] or string_len(dict(s["fields"])["name"]) != len("item-%d" % i):
                bad += 1
                if bad <= 3:
                    ck.fail("%s: SubItem %d: %s" % (what, i, s))
        if not bad:
            ck.ok("%s: %d SubItems, peer = ITEMS[i], own fields before the inherited" % (what, n_subs))
    for name, (typ, n) in {"ZS": ("boolean", 11), "BS": ("byte", 12), "CS": ("char", 13), "SS": ("short", 14),
                           "IS": ("int", 15), "JS": ("long", 16), "FS": ("float", 17),
                           "DS": ("double", 18)}.items():
        a = objs.get(st[name])
        if not a or a["kind"] != "parr" or a["cls"] != typ + "[]" or a["nelems"] != n:
            ck.fail("%s: %s is not a %s[%d]: %s" % (what, name, typ, n, a))
    g = objs.get(st["GRID"])
    if not g or g["cls"] != "int[][]" or g["nelems"] != 3 or sorted(g["elems"]) != [0, 1, 2] or \
            any(objs.get(v, {}).get("cls") != "int[]" or objs[v]["nelems"] != 7 for v in g["elems"].values()):
        ck.fail("%s: GRID is not an int[3][7]: %s" % (what, g))
    if string_len(st["sStr"]) != len("static-string"):
        ck.fail("%s: sStr is not a String of %d characters" % (what, len("static-string")))
    ck.ok("%s: HeapDemo's statics, the 8 primitive arrays, GRID int[3][7] and sStr as set" % what)
    markers = [oid for oid, o in objs.items() if o["cls"] == "HeapDemo$Marker"]
    holder = threads.get("parked-holder")
    tserials = {g[1] for kind, rid, g, no in sec.roots if kind == "thread"}
    if holder not in tserials:
        # a dump whose thread numbers are its producer's (heap=dump: HotSpot's
        # dumper), not those of THREAD START: the holder is the one thread
        # whose stack runs HeapDemo's lambda (the parked-holder's body)
        run = [g[1] for kind, rid, g, no in sec.roots if kind == "thread" and
               any(fr.startswith("HeapDemo.lambda$") for fr in traces.get(g[2], (0, []))[1])]
        holder = run[0] if len(run) == 1 else None
    held = {rid for kind, rid, g, no in sec.roots if kind == "frame" and g[1] == "Java stack" and g[2] == holder}
    if len(markers) != 3 or not set(markers) <= held:
        ck.fail("%s: %d Markers, %d of them held by a <Java stack> root of parked-holder (thread %s)" %
                (what, len(markers), len(set(markers) & held), holder))
    else:
        ck.ok("%s: 3 Markers, each a <Java stack> root of parked-holder (thread %s)" % (what, holder))
    if alloc_line:
        top = "HeapDemo.main(HeapDemo.java:%s)" % alloc_line
        trs = {objs[i]["trace"] for i in ids if i in objs}
        wrong = [t for t in trs if t not in traces or not traces[t][1] or traces[t][1][0] != top]
        if wrong:
            ck.fail("%s: Items with traces %s, whose top frame is not %s" % (what, wrong[:3], top))
        else:
            ck.ok("%s: every Item's trace (%s) has %s on top" % (what, ",".join(sorted(trs)), top))


def main(argv):
    args = {"--sections": None, "--heapdemo": None, "--histo": None, "--alloc-line": None}
    no_alloc = False
    path = None
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in args and i + 1 < len(argv):
            args[a] = argv[i + 1]
            i += 2
            continue
        if a == "--no-alloc-traces":
            no_alloc = True
        elif path is None and not a.startswith("--"):
            path = a
        else:
            print("usage: textdump_check.py FILE [--sections K] [--heapdemo N:M] [--histo FILE] "
                  "[--alloc-line L | --no-alloc-traces]", file=sys.stderr)
            return 2
        i += 1
    if path is None:
        print("textdump_check.py: no FILE", file=sys.stderr)
        return 2
    ck = Checker()
    traces, threads, sections = parse(path, ck)
    if args["--sections"] is not None and len(sections) != int(args["--sections"]):
        ck.fail("%d HEAP DUMP sections, expected %s" % (len(sections), args["--sections"]))
    for k, sec in enumerate(sections, 1):
        check_section(k, sec, traces, ck, no_alloc)
        ck.ok("section %d: %d objects, %d classes, %d roots: every line well-formed, every id and trace resolved"
              % (k, len(sec.objs), len(sec.classes), len(sec.roots)))
        if args["--heapdemo"]:
            n, m = (int(x) for x in args["--heapdemo"].split(":"))
            check_heapdemo(k, sec, threads, traces, ck, n, m, args["--alloc-line"])
    if args["--histo"] and sections:
        st = class_stats(sections[0])
        rows = 0
        with open(args["--histo"]) as f:
            for l in f:
                p = l.split()
                if len(p) == 4 and p[0].endswith(":") and ("HeapDemo" in p[3] or p[3] == "[[I") \
                        and "$$Lambda" not in p[3]:
                    rows += 1
                    got = st.get(p[3], [0, 0])
                    if [int(p[1]), int(p[2])] != got:
                        ck.fail("section 1: %s: %d instances, %d bytes; the binary dump's histogram: %s, %s"
                                % (p[3], got[0], got[1], p[1], p[2]))
        if rows < 6:
            ck.fail("the histogram %s has %d of the program's classes, expected at least 6" % (args["--histo"], rows))
        else:
            ck.ok("section 1: instances and bytes of the program's %d classes equal the binary dump's histogram" % rows)
    ck.ok("%d TRACE blocks, each printed once" % len(traces))
    for m in ck.oks:
        print("ok: " + m)
    for m in ck.fails:
        print("FAIL: " + m)
    return 1 if ck.fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
