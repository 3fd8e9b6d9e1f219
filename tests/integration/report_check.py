#!/usr/bin/env python3
"""report_check.py: reads `hprof report --json` data for test_report.sh,
independently of the C side: node totals recomputed from the preorder
arrays, with the contract's invariants checked on every load.

  report_check.py through FILE FLAME NAME      share of FLAME under frames NAME (0..1)
  report_check.py ratio FILE FLAME A B         through(A) / (through(A) + through(B))
  report_check.py leaf FILE FLAME CLASS METHOD  weight of CLASS leaves under METHOD
  report_check.py calls FILE METHOD            calls of the cpu-times rows of METHOD
  report_check.py histo FILE CLASS             "instances bytes" of CLASS
  report_check.py root FILE KIND               count of a roots row
  report_check.py same A B [PREFIX]            flames and tables equal (only the
                                               stacks through a frame starting
                                               with PREFIX, when given)
  report_check.py change FILE FLAME NAME       share change NEW - BASE under NAME
  report_check.py hidden FILE                  names with a hidden-class address
  report_check.py table FILE ID COL KEYCOL KEY  the COL of the row whose KEYCOL is KEY
"""
import json
import re
import sys


def milli(values):
    """The sum of JSON numbers of at most 3 decimals, in thousandths (an int)."""
    return sum(round(v * 1000) for v in values)


def load(path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    assert d["format"] == "hprof-report" and d["version"] == 1, path
    names = d["names"]
    for fl in d["flames"]:
        n = fl["nodes"]
        k = len(n["name"])
        for key in ("depth", "self", "kind", "trace"):
            assert len(n[key]) == k, (fl["id"], key)
        assert n["name"][0] == -1 and n["depth"][0] == 0 and n["self"][0] == 0
        # the ms flames write microseconds as ms with 3 decimals: summed in
        # thousandths, exactly
        assert milli(n["self"]) == milli([fl["total"]]), fl["id"]
        for i in range(1, k):
            assert 1 <= n["depth"][i] <= n["depth"][i - 1] + 1, (fl["id"], i)
            assert 0 <= n["name"][i] < len(names)
        if "base" in n:
            assert milli(n["base"]) == milli([fl["base_total"]])
    return d


def tree(fl, names, col="self"):
    """[(path names tuple, kind, self)] for every node but the root."""
    n = fl["nodes"]
    out, stack = [], []
    for i in range(1, len(n["name"])):
        d = n["depth"][i]
        del stack[d - 1:]
        stack.append(names[n["name"][i]])
        out.append((tuple(stack), n["kind"][i], n[col][i]))
    return out


def flame(d, fid):
    for fl in d["flames"]:
        if fl["id"] == fid:
            return fl
    sys.exit("no flame %s" % fid)


def table(d, tid):
    for t in d["tables"]:
        if t["id"] == tid:
            return t
    sys.exit("no table %s" % tid)


def through(d, fid, name, col="self", total_key="total"):
    fl = flame(d, fid)
    s = sum(w for p, _, w in tree(fl, d["names"], col) if name in p)
    return s / fl[total_key] if fl[total_key] else 0.0


HIDDEN = re.compile(r"\+0x[0-9a-fA-F]+")


def canon(d, prefix):
    """Flames as sets of (path, kind, self) and tables without trace serials;
    hidden-class addresses blanked (two runs of one program differ there)."""
    names = [HIDDEN.sub("+<hidden>", n) for n in d["names"]]
    flames = {}
    for fl in d["flames"]:
        # with a prefix: the nodes whose own name starts with it (the
        # program's frames and classes, not the JDK's, whose allocations
        # vary from run to run)
        nodes = [(p, k, w) for p, k, w in tree(fl, names)
                 if prefix is None or p[-1].startswith(prefix)]
        flames[fl["id"]] = sorted(nodes)
    tables = {}
    for t in d["tables"]:
        keep = [i for i, c in enumerate(t["columns"]) if c["type"] != "trace"]
        if prefix is not None:
            keep = [i for i in keep if t["columns"][i]["type"] not in ("pct", "int")
                    or t["columns"][i]["key"] not in ("rank", "self", "accum")]
        rows = [[r[i] for i in keep] for r in t["rows"]]
        if prefix is not None:
            rows = [r for r in rows if any(isinstance(v, str) and v.startswith(prefix) for v in r)]
        rows = [[HIDDEN.sub("+<hidden>", v) if isinstance(v, str) else v for v in r] for r in rows]
        tables[t["id"]] = sorted(rows, key=repr)
    return flames, tables


def main(a):
    cmd = a[0]
    if cmd == "through":
        print("%.4f" % through(load(a[1]), a[2], a[3]))
    elif cmd == "count":  # FLAME NAME: the counts of every stack through NAME
        fl = flame(load(a[1]), a[2])
        print(sum(w for p, _, w in tree(fl, load(a[1])["names"], "self") if a[3] in p))
    elif cmd == "ratio":
        d = load(a[1])
        x, y = through(d, a[2], a[3]), through(d, a[2], a[4])
        print("%.4f" % (x / (x + y) if x + y else 0))
    elif cmd == "leaf":
        d = load(a[1])
        print(sum(w for p, k, w in tree(flame(d, a[2]), d["names"])
                  if k == 1 and p[-1] == a[3] and a[4] in p))
    elif cmd == "calls":
        d = load(a[1])
        t = table(d, "cpu-times")
        ci = [c["key"] for c in t["columns"]]
        print(sum(r[ci.index("count")] for r in t["rows"] if r[ci.index("method")] == a[2]))
    elif cmd == "histo":
        d = load(a[1])
        rows = [r for r in table(d, "histogram")["rows"] if r[3] == a[2]]
        print("%d %d" % (sum(r[1] for r in rows), sum(r[2] for r in rows)))
    elif cmd == "root":
        d = load(a[1])
        print(sum(r[1] for r in table(d, "roots")["rows"] if r[0] == a[2]))
    elif cmd == "same":
        x, y = load(a[1]), load(a[2])
        prefix = a[3] if len(a) > 3 else None
        fx, tx = canon(x, prefix)
        fy, ty = canon(y, prefix)
        bad = [k for k in sorted(set(fx) | set(fy)) if fx.get(k) != fy.get(k)]
        bad += ["table " + k for k in sorted(set(tx) | set(ty)) if tx.get(k) != ty.get(k)]
        for k in bad:
            print("differs: %s" % k)
        if not bad:
            print("same %d flames %d tables" % (len(fx), len(tx)))
    elif cmd == "change":
        d = load(a[1])
        assert d["mode"] == "diff"
        new = through(d, a[2], a[3])
        base = through(d, a[2], a[3], "base", "base_total")
        print("%.4f" % (new - base))
    elif cmd == "hidden":
        d = load(a[1])
        bad = [n for n in d["names"] if re.search(r"[+./]0x[0-9a-fA-F]+|\$\$Lambda\$[0-9]", n)]
        print(len(bad), *bad[:3])
    elif cmd == "table":
        d = load(a[1])
        t = table(d, a[2])
        ci = [c["key"] for c in t["columns"]]
        print(sum(r[ci.index(a[3])] for r in t["rows"] if str(r[ci.index(a[4])]) == a[5]))
    else:
        sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
