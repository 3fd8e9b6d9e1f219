#!/usr/bin/env python3
"""gen_big.py: writes a big report data document (the JSON contract of
docs/report.md) for the page's size and speed check: a CPU samples flame
graph of N distinct stacks (default 100 000) over ~2 000 method names,
depths 10-40, with shared prefixes (thread entry chains, then walks of a
random call graph), counts falling off like a real profile's (a few hot
stacks, a long tail of 1-sample stacks), and the CPU SAMPLES table of the
traces above hprof's default cutoff (0.0001) with those traces' frames.

Usage: gen_big.py OUT.json [--stacks N] [--seed S] [--all-traces]
Deterministic for a given seed. Prints one line: stacks, nodes, total, bytes.
--all-traces puts every stack's trace (frames and table row) in the
document, as a report without a cutoff would: for measuring its size.
"""
import argparse
import json
import random
import sys

WORDS = ["order", "cart", "price", "user", "auth", "cache", "json", "http", "db", "pool",
         "index", "search", "report", "batch", "queue", "event", "stream", "codec", "tax", "ship"]
CLASSES = ["Service", "Handler", "Repository", "Parser", "Encoder", "Validator", "Mapper",
           "Controller", "Client", "Worker", "Builder", "Resolver"]
VERBS = ["run", "handle", "process", "parse", "encode", "decode", "validate", "load", "store",
         "compute", "apply", "visit", "accept", "lookup", "merge", "flush", "read", "write",
         "<init>", "lambda$process$0"]
JDK = ["java.util.HashMap.get", "java.util.HashMap.put", "java.util.ArrayList.add",
       "java.lang.String.hashCode", "java.lang.String.equals", "java.lang.StringBuilder.append",
       "java.util.Arrays.copyOf", "java.lang.Math.sqrt", "java.util.stream.ReferencePipeline.collect",
       "java.io.BufferedReader.readLine", "java.lang.Object.wait", "java.util.regex.Matcher.find"]
ENTRIES = [
    ["java.lang.Thread.run", "java.util.concurrent.ThreadPoolExecutor$Worker.run",
     "java.util.concurrent.ThreadPoolExecutor.runWorker", "java.util.concurrent.FutureTask.run"],
    ["java.lang.Thread.run", "java.util.concurrent.ForkJoinWorkerThread.run",
     "java.util.concurrent.ForkJoinPool.runWorker", "java.util.concurrent.ForkJoinPool.scan",
     "java.util.concurrent.ForkJoinTask.doExec"],
    ["Main.main", "com.acme.app.Server.start", "com.acme.app.Server.loop"],
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--stacks", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--all-traces", action="store_true")
    a = ap.parse_args()
    rnd = random.Random(a.seed)

    names = []
    for w in WORDS:
        for c in CLASSES:
            for v in rnd.sample(VERBS, 8):
                names.append("com.acme.%s.%s%s.%s" % (w, w.capitalize(), c, v))
    names = names[:2000 - len(JDK) - 20] + JDK
    for e in ENTRIES:
        for m in e:
            if m not in names:
                names.append(m)
    ix = {n: i for i, n in enumerate(names)}
    app = [i for i, n in enumerate(names) if n.startswith("com.acme.") and ".app." not in n]
    jdk = [ix[n] for n in JDK]
    callees = {m: rnd.sample(app, rnd.randint(2, 5)) + rnd.sample(jdk, 1) for m in app}
    entries = [[ix[m] for m in e] for e in ENTRIES]

    stacks = {}
    k = 0
    while len(stacks) < a.stacks:
        s = list(rnd.choice(entries))
        depth = rnd.randint(10, 40)
        m = rnd.choice(app[:200])
        while len(s) < depth - 1:
            s.append(m)
            m = rnd.choice(callees[m])
            if m in jdk:
                break
        s.append(m)
        t = tuple(s)
        if t in stacks:
            continue
        stacks[t] = max(1, int(30000 / (k + 1) ** 1.05))
        k += 1

    # the trie, children in name order, preorder
    root = {}
    serial = {}
    for n, (t, cnt) in enumerate(stacks.items()):
        serial[t] = 300001 + n
        node = root
        for f in t:
            node = node.setdefault(f, {})
        node[None] = node.get(None, 0) + cnt
        node["trace"] = serial[t]
    nodes = {"name": [-1], "depth": [0], "self": [0], "kind": [0], "trace": [0]}
    todo = [(k2, v, 1) for k2, v in sorted(((k2, v) for k2, v in root.items()), key=lambda kv: names[kv[0]], reverse=True)]
    while todo:
        f, node, d = todo.pop()
        nodes["name"].append(f)
        nodes["depth"].append(d)
        nodes["self"].append(node.get(None, 0))
        nodes["kind"].append(0)
        nodes["trace"].append(node.get("trace", 0))
        kids = sorted(((k2, v) for k2, v in node.items() if isinstance(k2, int)), key=lambda kv: names[kv[0]], reverse=True)
        todo.extend((k2, v, d + 1) for k2, v in kids)
    total = sum(stacks.values())

    rows, traces = [], {}
    acc = 0
    ranked = sorted(stacks.items(), key=lambda kv: (-kv[1], serial[kv[0]]))
    for t, cnt in ranked:
        if not a.all_traces and cnt / total < 0.0001:
            break
        acc += cnt
        rows.append([len(rows) + 1, round(100 * cnt / total, 2), round(100 * acc / total, 2), cnt, serial[t], names[t[-1]]])
        traces[str(serial[t])] = {"thread": 1, "frames": [[f, names[f].split(".")[-2] + ".java", 10 + f % 90] for f in reversed(t)]}

    doc = {
        "format": "hprof-report", "version": 1, "mode": "profile",
        "title": "big.hprof.txt (generated: %d stacks)" % len(stacks),
        "generated": "2026-11-27T05:00:00Z",
        "inputs": [{"path": "big.hprof.txt", "kind": "text", "bytes": 0}],
        "settings": [["cpu", "samples"], ["depth", "40"], ["cutoff", "0.0001"]],
        "warnings": [],
        "names": names,
        "traces": traces,
        "flames": [{"id": "cpu-samples", "title": "CPU samples", "unit": "samples", "total": total,
                    "estimate": None, "nodes": nodes}],
        "tables": [{"id": "cpu-samples", "title": "CPU SAMPLES BEGIN (total = %d)" % total, "note": None,
                    "columns": [{"key": "rank", "label": "rank", "type": "int"}, {"key": "self", "label": "self", "type": "pct"},
                                {"key": "accum", "label": "accum", "type": "pct"}, {"key": "count", "label": "count", "type": "int"},
                                {"key": "trace", "label": "trace", "type": "trace"}, {"key": "method", "label": "method", "type": "text"}],
                    "rows": rows}],
        "heap": None, "diff": None,
    }
    text = json.dumps(doc, separators=(",", ":"))
    # the contract's escaping: '<', '>' and '&' only ever occur inside strings
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    with open(a.out, "w") as f:
        f.write(text)
    print("stacks=%d nodes=%d total=%d rows=%d bytes=%d" % (len(stacks), len(nodes["name"]), total, len(rows), len(text)))


if __name__ == "__main__":
    sys.exit(main())
