#!/usr/bin/env bash
# test_report_page.sh: the report's page (web/) in a real browser.
#
# usage: bash test_report_page.sh HPROF_TOOL PROJECT_DIR WORKDIR WEB_PAGE_DEMO   (run by ctest)
# Owns: pages built by web_page_demo from the sample report data documents
# of tests/report/data (a CPU profile, an allocation profile with a heap
# dump, a diff) and from a generated one of 100 000 distinct stacks
# (tests/report/gen_big.py), each opened in Debian's chromium headless by
# tests/report/check_report.js with exact checks: the frames' shares in the
# rendered DOM, zoom, search ("matched: N%"), tooltip, reverse view, diff
# changes of share, tables (rows, sort, cells, traces on click), the text of
# warnings and settings; no page or console error and no request for
# anything but the file. The big page: under 10 MB and rendered in under 2 s.
# The harness itself is checked to fail: a wrong share, an outside
# reference, a broken document; and web_page_demo refuses data holding "</".
# Screenshots stay in WORKDIR (shot-*.png). Chromium, node and the harness
# (scripts/deps.sh installs them) missing is a failure, not a skip.
set -euo pipefail
if [ $# -lt 4 ]; then
    echo "usage: bash $0 HPROF_TOOL PROJECT_DIR WORKDIR WEB_PAGE_DEMO" >&2
    exit 2
fi
SRC=$2
WORK=$3
DEMO=$4
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
step() {
    echo "== $*"
}

HARNESS=$SRC/tests/report
DATA=$HARNESS/data
command -v node >/dev/null || fail "node is missing (scripts/deps.sh installs it)"
[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium is missing (scripts/deps.sh installs Debian's chromium)"
[ -f "$HARNESS/node_modules/playwright-core/package.json" ] ||
    fail "the harness is not installed: run scripts/deps.sh (npm ci in tests/report)"
[ -x "$DEMO" ] || fail "web_page_demo is missing: $DEMO"

check() {
    node "$HARNESS/check_report.js" "$@" || fail "check_report.js $1 failed (above)"
}

# bounds around a share computed elsewhere (2 or 4 decimals)
lo() { awk -v x="$1" 'BEGIN { printf "%.2f", x - 0.01 }'; }
hi() { awk -v x="$1" 'BEGIN { printf "%.2f", x + 0.01 }'; }
lo4() { awk -v x="$1" 'BEGIN { printf "%.4f", x - 0.0001 }'; }
hi4() { awk -v x="$1" 'BEGIN { printf "%.4f", x + 0.0001 }'; }
# 1234567 -> 1,234,567 (the page's spelling of counts)
commas() { echo "$1" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta'; }

step "pages from the sample data"
for n in cpu alloc diff; do
    "$DEMO" "$DATA/$n.json" "$n.html" "$n.json" || fail "web_page_demo $n.json failed"
done

step "cpu: shares, zoom, search, tooltip, reverse view, table, trace"
check cpu.html --flame cpu-samples \
    --frame CpuDemo.main:98:98 --frame CpuDemo.hotA:75:75 --frame CpuDemo.hotB:20:20 \
    --frame java.lang.Math.sqrt:15:15 --frame "<no Java frames>:2:2" --frame all:100:100 \
    --tooltip CpuDemo.hotA --tooltip java.lang.Math.sqrt \
    --zoom CpuDemo.main --zoom CpuDemo.hotA \
    --search hotA:78:78 --search HOTA:78:78 --search "/hot[AB]/:98:98" --search "/^java\./:15:15" \
    --search CpuDemo:98:98 --search nothing-matches:0:0 --search /HOTA/:0:0 --search /HOTA/i:78:78 \
    --search /hot/g:98:98 \
    --screenshot shot-cpu.png \
    --view rev --frame CpuDemo.hotA:63:63 --frame java.lang.Math.sqrt:15:15 --frame "<no Java frames>:2:2" \
    --zoom java.lang.Math.sqrt --search hotA:78:78 --screenshot shot-cpu-reverse.png \
    --text "few samples: 1000 samples at interval=10 ms" --text "cpu=samples,depth=8,interval=10" \
    --table cpu-samples:5 --cell cpu-samples:1:method:CpuDemo.hotA --cell cpu-samples:3:self:15.00% \
    --sort cpu-samples:method --cell "cpu-samples:1:method:<no Java frames>" --cell cpu-samples:1:count:20 \
    --sort cpu-samples:count --cell cpu-samples:1:count:600 --sort cpu-samples:count --cell cpu-samples:1:count:20 \
    --trace "300002:java.lang.Math.sqrt(Math.java:Native method)" \
    --trace "300004:CpuDemo.work(CpuDemo.java:31)" --screenshot shot-cpu-table.png \
    --table hot-cpu-samples:4 --cell hot-cpu-samples:1:method:CpuDemo.hotA --cell hot-cpu-samples:1:self:630 \
    --cell hot-cpu-samples:1:self_pct:63.00% --cell hot-cpu-samples:1:total:780 --cell hot-cpu-samples:1:total_pct:78.00% \
    --cell hot-cpu-samples:3:method:java.lang.Math.sqrt --cell "hot-cpu-samples:4:method:<no Java frames>" \
    --max-render-ms 1000

step "alloc: the three flame graphs, allocated classes, estimates, heap"
check alloc.html --flame alloc-bytes \
    --frame "byte[]:80:80" --frame AllocDemo.makeStrings:20:20 --frame java.lang.Object[]:5.2:5.2 \
    --tooltip java.lang.String --zoom AllocDemo.makeStrings \
    --text "Estimates: estimated from 812 samples (sample=524288 bytes)" --screenshot shot-alloc.png \
    --view rev --frame "byte[]:90:90" --frame java.lang.String:4.8:4.8 \
    --flame alloc-objects --frame java.lang.String:48.23:48.24 --frame AllocDemo.makeBytes:3.21:3.22 \
    --flame live-bytes --frame "byte[]:66.66:66.67" --search "/\[\]$/:92:92" \
    --cell "hot-alloc-bytes:1:method:byte[]" --cell hot-alloc-bytes:1:self:900,000 --cell hot-alloc-bytes:1:self_pct:90.00% \
    --cell hot-live-bytes:2:method:java.lang.Object[] --cell hot-live-bytes:2:total_pct:8.67% --table hot-live-bytes:3 \
    --table sites:4 --table histogram:4 --table roots:4 --table heap-summary:1 \
    --cell sites:4:class:java.lang.String --sort sites:alloc_bytes --cell sites:2:alloc_bytes:100000 \
    --trace "200004:java.util.ArrayList.grow(ArrayList.java:237)" \
    --sort histogram:bytes --cell histogram:1:class:byte[] --cell histogram:2:class:java.lang.Class \
    --text "live counts are as of the last GC before the dump" \
    --text "12-byte header, 4-byte references, 8-byte alignment" --screenshot shot-alloc-heap.png \
    --text "One instance of \`java.util.HashMap\` (0x7f0002000) retains 500.0 kB (500 000 bytes, 66.7 % of the reachable heap) in 4 001 objects" \
    --text "AllocDemo.CACHE <img src=x onerror=alert(1)> -> java.util.HashMap" \
    --table retained-objects:3 --table retained-classes:2 --cell retained-objects:2:class:java.util.HashMap \
    --cell retained-objects:2:retained_objects:4001 --cell retained-objects:1:share:69.33% \
    --sort retained-classes:instances --cell retained-classes:1:class:byte[]

step "diff: sized by the new profile, coloured by the change of share"
check diff.html --flame cpu-samples \
    --frame CpuDemo.hotB:60:60 --frame CpuDemo.hotA:20:20 --frame CpuDemo.parse:15:15 \
    --delta CpuDemo.hotB:30:30 --delta CpuDemo.hotA:-30:-30 --delta CpuDemo.parse:15:15 --no-frame CpuDemo.old \
    --delta CpuDemo.Lambda.run:-5:-5 --delta CpuDemo.main:0:0 \
    --tooltip CpuDemo.hotB --text "base: base.hprof.txt" --table sites-diff:2 --screenshot shot-diff.png \
    --table change-cpu-samples:5 --cell change-cpu-samples:1:method:CpuDemo.hotA --cell change-cpu-samples:1:change:-30.00 \
    --cell change-cpu-samples:2:method:CpuDemo.hotB --cell change-cpu-samples:2:base_pct:30.00% \
    --cell change-cpu-samples:2:new_pct:60.00% --cell change-cpu-samples:4:method:CpuDemo.old \
    --cell change-cpu-samples:4:new:0 --cell change-cpu-samples:4:change:-10.00 \
    --cell hot-cpu-samples:1:method:CpuDemo.hotB --cell hot-cpu-samples:1:self:1,200 \
    --view rev --frame CpuDemo.hotB:60:60 --delta CpuDemo.hotB:30:30 --delta CpuDemo.parse:15:15 \
    --search /hot/:80:80

step "the harness fails when it must"
set +e
node "$HARNESS/check_report.js" cpu.html --flame cpu-samples --frame CpuDemo.hotA:10:20 2>wrong.err >/dev/null
rc=$?
set -e
[ $rc -eq 1 ] || fail "a wrong share: check_report exited $rc, not 1"
grep -qF 'FAIL: --frame CpuDemo.hotA:10:20: "CpuDemo.hotA" has 75.00% (750 of 1000)' wrong.err ||
    fail "a wrong share: $(cat wrong.err)"
sed 's|<body>|<body><img src="http://192.0.2.1/pixel.png" alt="">|' cpu.html >outside.html
set +e
node "$HARNESS/check_report.js" outside.html --flame cpu-samples 2>outside.err >/dev/null
rc=$?
set -e
[ $rc -eq 1 ] || fail "an outside reference: check_report exited $rc, not 1"
grep -qF 'FAIL: outside reference: http://192.0.2.1/pixel.png' outside.err || fail "outside reference: $(cat outside.err)"
sed 's/"depth": \[0, 1, 1, 2, 3, 2, 2, 3\]/"depth": [0, 1, 3, 2, 3, 2, 2, 3]/' "$DATA/cpu.json" >broken.json
cmp -s broken.json "$DATA/cpu.json" && fail "broken.json is not broken"
"$DEMO" broken.json broken.html || fail "web_page_demo broken.json failed"
set +e
node "$HARNESS/check_report.js" broken.html 2>broken.err >/dev/null
rc=$?
set -e
[ $rc -eq 1 ] || fail "a broken document: check_report exited $rc, not 1"
grep -qF 'console error: hprof report: flame nodes: bad depth 3 at node 2' broken.err || fail "broken: $(cat broken.err)"

step "web_page_demo refuses data holding </"
printf '{"format":"hprof-report","names":["</script><script>alert(1)//"]}' >closing.json
set +e
"$DEMO" closing.json closing.html 2>closing.err
rc=$?
set -e
[ $rc -eq 1 ] || fail "data holding </: web_page_demo exited $rc, not 1"
grep -qF 'refused' closing.err || fail "data holding </: $(cat closing.err)"

step "a small graph has every frame in the DOM, sub-pixel ones too"
gen=$(python3 "$HARNESS/gen_big.py" small.json --stacks 300)
[ "$gen" = "stacks=300 nodes=1426 total=166194 rows=300 bytes=198180" ] || fail "gen_big.py --stacks 300: $gen"
"$DEMO" small.json small.html || fail "web_page_demo small.json failed"
# the name whose widest frame is the narrowest (python, from the data): 0.045 %,
# about half a pixel; a name no other name contains (the check is by substring)
read -r rare rare_pct < <(python3 - small.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
names, n = d["names"], d["flames"][0]["nodes"]
tot, par, st = list(n["self"]), [], []
for i, dp in enumerate(n["depth"]):
    del st[dp:]
    par.append(st[-1] if st else -1)
    st.append(i)
for i in range(len(tot) - 1, 0, -1):
    tot[par[i]] += tot[i]
best = {}
for i in range(1, len(tot)):
    nm = names[n["name"][i]]
    best[nm] = max(best.get(nm, 0), tot[i])
v, nm = min((v, k) for k, v in best.items() if not any(k in o and k != o for o in best))
print(nm, "%.4f" % (100 * v / tot[0]))
EOF
)
echo "narrowest: $rare ($rare_pct %)"
check small.html --flame cpu-samples --frame "$rare:$(lo4 "$rare_pct"):$(hi4 "$rare_pct")" | tee small.measure
grep -qF '"frames":{"cpu-samples":1426}' small.measure || fail "small.html: not every frame rendered: $(cat small.measure)"

step "a click in the hottest list searches for that name only"
# App.m1 is a prefix of App.m10: a click on App.m1 matches its 30 %, not 100 %
cat >prefix.json <<'EOF'
{"format": "hprof-report", "version": 1, "mode": "profile", "title": "prefix",
 "names": ["App.run", "App.m1", "App.m10"],
 "flames": [{"id": "cpu-samples", "title": "CPU samples", "unit": "samples", "total": 100, "estimate": null,
   "nodes": {"name": [-1, 0, 1, 2], "depth": [0, 1, 2, 2], "self": [0, 0, 30, 70], "kind": [0, 0, 0, 0], "trace": [0, 0, 0, 0]}}]}
EOF
"$DEMO" prefix.json prefix.html || fail "web_page_demo prefix.json failed"
check prefix.html --flame cpu-samples --hot App.m1:30:30 --hot App.m10:70:70 --search App.m1:100:100

step "a stack 1 000 000 frames deep: 1 000 levels drawn below the zoomed frame"
# depth= goes to 1 000 000: one chain of that many frames, 5 samples at its
# leaf. The page draws the root and 1 000 levels under it (1 001 frames),
# says that deeper frames are not drawn, and loads in seconds (every frame in
# the DOM took over a minute)
python3 - deep.json <<'EOF'
import json, sys
n = 1000000
d = {"format": "hprof-report", "version": 1, "mode": "profile", "title": "deep",
     "names": ["app.Deep.m%d" % k for k in range(1000)],
     "flames": [{"id": "cpu-samples", "title": "CPU samples", "unit": "samples", "total": 5,
                 "estimate": None,
                 "nodes": {"name": [-1] + [i % 1000 for i in range(n)], "depth": list(range(n + 1)),
                           "self": [0] * n + [5], "kind": [0] * (n + 1), "trace": [0] * (n + 1)}}]}
json.dump(d, open(sys.argv[1], "w"), separators=(",", ":"))
EOF
"$DEMO" deep.json deep.html || fail "web_page_demo deep.json failed"
check deep.html --max-load-ms 10000 --flame cpu-samples --frame app.Deep.m999:100:100 \
    --text "Deeper frames are not drawn (1000 levels below the zoomed frame at most)" | tee deep.measure
grep -qF '"frames":{"cpu-samples":1001}' deep.measure || fail "deep.html: not 1 001 frames drawn: $(cat deep.measure)"

step "100 000 distinct stacks: size and time"
gen=$(python3 "$HARNESS/gen_big.py" big.json)
echo "$gen"
[ "$gen" = "stacks=100000 nodes=389480 total=323997 rows=657 bytes=5977964" ] || fail "gen_big.py: $gen"
"$DEMO" big.json big.html || fail "web_page_demo big.json failed"
size=$(stat -c %s big.html)
echo "big.html: $size bytes"
[ "$size" -lt 10000000 ] || fail "big.html is $size bytes, not under 10 MB"
# the expected shares, from the data with python (independently of the page):
# the subtree of the depth-1 frame java.lang.Thread.run, and the stacks
# holding a frame whose name holds "hashmap" (case-insensitive), each once
# and the self counts of java.util.HashMap.get (the reverse view's first row),
# and the method with the most self counts: name, self, total (stacks once)
read -r thread hashmap hmget hot hotself hottotal < <(python3 - big.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
names, n = d["names"], d["flames"][0]["nodes"]
total = sum(n["self"])
path, thread, hm, get = [], 0, 0, 0
selfby = {}
for nm, s in zip(n["name"], n["self"]):
    if nm >= 0:
        selfby[nm] = selfby.get(nm, 0) + s
hot = min(selfby, key=lambda k: (-selfby[k], k))
hottotal = 0
for nm, dp, s in zip(n["name"], n["depth"], n["self"]):
    del path[dp:]
    path.append(nm)
    if s and len(path) > 1 and names[path[1]] == "java.lang.Thread.run":
        thread += s
    if s and any(x >= 0 and "hashmap" in names[x].lower() for x in path):
        hm += s
    if names[nm] == "java.util.HashMap.get":
        get += s
    if s and hot in path:
        hottotal += s
print("%.2f %.2f %.2f %s %d %d" % (100 * thread / total, 100 * hm / total, 100 * get / total,
                                   names[hot], selfby[hot], hottotal))
EOF
)
check big.html --flame cpu-samples --max-render-ms 2000 --max-load-ms 2000 \
    --frame "java.lang.Thread.run:$(lo "$thread"):$(hi "$thread")" \
    --search "hashmap:$(lo "$hashmap"):$(hi "$hashmap")" \
    --zoom java.util.concurrent.FutureTask.run --tooltip java.util.concurrent.ForkJoinPool.scan \
    --screenshot shot-big.png --view rev --search "hashmap:$(lo "$hashmap"):$(hi "$hashmap")" \
    --frame "java.util.HashMap.get:$(lo "$hmget"):$(hi "$hmget")" --zoom java.util.HashMap.get \
    --screenshot shot-big-reverse.png --table cpu-samples:657 --table hot-cpu-samples:20 \
    --cell "hot-cpu-samples:1:method:$hot" --cell "hot-cpu-samples:1:self:$(commas "$hotself")" \
    --cell "hot-cpu-samples:1:total:$(commas "$hottotal")" | tee big.measure
echo "test_report_page: all checks passed (screenshots: $WORK/shot-*.png)"
