#!/usr/bin/env python3
"""retained_compare.py: checks of `hprof retained --json`-shaped outputs.

usage:
  retained_compare.py expect VVM.json     RetainDemo's known answers in VvmRetained's output, and
                                          its reconciliation with VisualVM's own retained sizes
  retained_compare.py classes VVM.json DIFF.json
                                          VisualVM's per-class instances and shallow bytes
                                          equal hprof's histogram (a self `hprof diff --json`)
  retained_compare.py path PATHS.json CLASS FIELD...
                                          one path, to the one instance of CLASS, whose
                                          steps' fields end with FIELD... (then the target)
  retained_compare.py compare VVM.json HPROF.json
                                          the objects both list (by id) have the same
                                          label, retained_objects and retained_bytes; the classes
                                          both list the same instances, shallow and
                                          retained bytes

Owned by test_retained_vvm.sh. Ids may be numbers or strings ("0x1f", "123"):
both are accepted, as are class names in JVM spelling (java/lang/String, [I),
compared in Java spelling. Prints what it checked; exit 1 on any mismatch.
"""
import json
import sys

PRIMS = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int",
         "J": "long", "F": "float", "D": "double"}


def java_name(n):
    dims = len(n) - len(n.lstrip("["))
    rest = n[dims:]
    if dims and rest in PRIMS:
        base = PRIMS[rest]
    elif rest.startswith("L") and rest.endswith(";"):
        base = rest[1:-1]
    else:
        base, dims = n, 0
    return base.replace("/", ".") + "[]" * dims


def oid(v):
    return int(v, 0) if isinstance(v, str) else int(v)


def load(path, keys):
    d = json.load(open(path))
    for k in keys:
        if k not in d:
            sys.exit(f"{path}: no key {k!r}")
    return d


def expect(path):
    d = load(path, ("objects", "classes"))
    objs = d["objects"]
    by_class = {}
    for o in objs:
        by_class.setdefault(o["class"], []).append(o)
    bad = 0

    def check(what, want, got):
        nonlocal bad
        ok = want == got
        bad += not ok
        print(f"   {'ok' if ok else 'MISMATCH'}: {what}: expected {want}, found {got}")

    def counts(cls):
        return sorted((o["retained_objects"] for o in by_class.get(cls, [])), reverse=True)

    check("RetainDemo$Holder retained objects (2N + 3)", [2003], counts("RetainDemo$Holder"))
    check("RetainDemo$Holder retained bytes (16 + 24 + 4016 + 1000 * (16 + 80))", [100056],
          [o["retained_bytes"] for o in by_class.get("RetainDemo$Holder", [])])
    check("RetainDemo$Owner retained objects (2S + 2 each; the shared 601 in neither)", [402, 402],
          counts("RetainDemo$Owner"))
    check("RetainDemo$Owner retained bytes (24 + 816 + 200 * 96 each)", [20040, 20040],
          [o["retained_bytes"] for o in by_class.get("RetainDemo$Owner", [])])
    check("RetainDemo$ChainA retained objects (a.b.c.d.target)", [5], counts("RetainDemo$ChainA"))
    check("RetainDemo$Target retained objects", [1], counts("RetainDemo$Target"))
    ring = counts("RetainDemo$RingNode")
    check("RetainDemo$RingNode retained objects (the cycle: 50, 49, ... 1)", "50..1",
          "50..1" if ring == list(range(50, 0, -1)) else ring)
    big = [o for o in objs if o["class"] == "java.lang.Object[]" and o["shallow_bytes"] == 16 + 4 * 1000000]
    check("BIG, the Object[1000000]: retained objects", [1001], [o["retained_objects"] for o in big])
    # the biggest object that is not a class object (a class retains its statics)
    first = next((o for o in objs if not o["class"].startswith("class ")), None)
    check("the biggest object by retained size is BIG", big[0]["id"] if big else None,
          first and first["id"])
    # VisualVM's own retained sizes: ours minus what its definition leaves
    # out (VvmRetained checks every object; here, those listed), class
    # objects aside
    off = [o for o in objs if not o["class"].startswith("class ")
           and o["retained_bytes"] - o["visualvm_left_out"] != o["visualvm_retained_bytes"]]
    inst = [o for o in objs if not o["class"].startswith("class ")]
    check(f"VisualVM's retained bytes = ours - what it leaves out, for the {len(inst)} "
          "listed instances and arrays", [], [(o["id"], o["class"]) for o in off[:5]])
    check("at least 10 listed instances and arrays reconciled", True, len(inst) >= 10)
    coff = [c["class"] for c in d["classes"] if c["visualvm_by_its_rule"] != c["visualvm_retained_bytes"]]
    check(f"VisualVM's retained bytes of the {len(d['classes'])} listed classes, by its rule from ours",
          [], coff[:5])
    cls = {c["class"]: c for c in d["classes"]}
    leaf = cls.get("RetainDemo$Leaf", {})
    check("RetainDemo$Leaf: instances, retained bytes (N + 2S + T, each with its byte[64])",
          (1700, 1700 * 96), (leaf.get("instances"), leaf.get("retained_bytes")))
    return bad


def classes(vpath, hpath):
    v = {c["class"]: c for c in load(vpath, ("classes",))["classes"] if c["instances"]}
    h = {java_name(c["class"]): c for c in load(hpath, ("classes",))["classes"]}
    bad = 0
    for name in sorted(set(v) | set(h)):
        a, b = v.get(name), h.get(name)
        va = (a["instances"], a["shallow_bytes"]) if a else None
        hb = (b["instances_before"], b["bytes_before"]) if b else None
        if va != hb:
            bad += 1
            if bad <= 10:
                print(f"   MISMATCH: {name}: VisualVM (instances, bytes) {va}, hprof {hb}")
    print(f"   {'ok' if not bad else 'MISMATCH'}: {len(v)} classes with instances, "
          f"{bad} differing in instances or shallow bytes")
    return bad


def compare(vpath, hpath):
    v, h = load(vpath, ("objects", "classes")), load(hpath, ("objects", "classes"))
    ho = {oid(o["id"]): o for o in h["objects"]}
    bad = common = 0
    for o in v["objects"]:
        p = ho.get(oid(o["id"]))
        if not p:
            continue
        common += 1
        want = (java_name(o["class"]), o["retained_objects"], o["retained_bytes"])
        got = (java_name(p["class"]), p["retained_objects"], p["retained_bytes"])
        if want != got:
            bad += 1
            if bad <= 10:
                print(f"   MISMATCH: object {o['id']:#x}: VvmRetained (class, retained objects, bytes) "
                      f"{want}, hprof {got}")
    if common < 10:
        print(f"   MISMATCH: only {common} objects listed by both")
        bad += 1
    print(f"   {'ok' if not bad else 'MISMATCH'}: {common} objects listed by both")
    hc = {java_name(c["class"]): c for c in h["classes"]}
    ccommon = 0
    for c in v["classes"]:
        p = hc.get(c["class"])
        if not p:
            continue
        ccommon += 1
        want = (c["instances"], c["shallow_bytes"], c["retained_bytes"])
        got = (p["instances"], p["shallow_bytes"], p["retained_bytes"])
        if want != got:
            bad += 1
            print(f"   MISMATCH: class {c['class']}: VvmRetained (instances, shallow, retained) "
                  f"{want}, hprof {got}")
    print(f"   {ccommon} classes listed by both")
    return bad


def path(ppath, cls, fields):
    d = load(ppath, ("paths",))
    ps = d["paths"]
    if len(ps) != 1:
        print(f"   MISMATCH: {len(ps)} paths, 1 expected")
        return 1
    p = ps[0]
    steps = p["steps"]
    got = [st.get("field") for st in steps]
    if got and got[-1] in (None, ""):  # the target's own step holds nothing further
        got = got[:-1]
    tcls = java_name(p["target"]["class"])
    last = java_name(steps[-1]["class"]) if steps else None
    ok = got[-len(fields):] == fields and tcls == cls and last == cls
    print(f"   {'ok' if ok else 'MISMATCH'}: path to {tcls} (root {p.get('root')}): fields {got}, "
          f"expected to end with {fields}")
    return 0 if ok else 1


def main(argv):
    if len(argv) >= 5 and argv[1] == "path":
        return path(argv[2], argv[3], argv[4:])
    if len(argv) == 3 and argv[1] == "expect":
        return 1 if expect(argv[2]) else 0
    if len(argv) == 4 and argv[1] == "classes":
        return 1 if classes(argv[2], argv[3]) else 0
    if len(argv) == 4 and argv[1] == "compare":
        return 1 if compare(argv[2], argv[3]) else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
