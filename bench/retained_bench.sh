#!/usr/bin/env bash
# retained_bench.sh: retained sizes of a ~1.3 GB, 16 M-object HotSpot heap
# dump (jcmd GC.heap_dump of bench/java/HeapBench.java), computed by Debian
# VisualVM's heap library (tests/integration/VvmRetained.java: index, then
# dominator tree and retained sizes, then retained sizes by class; --no-counts)
# and by `hprof retained` when the build has it, on the same file.
# Each side runs REPS times under /usr/bin/time -v: medians of the wall time
# and of the peak RSS, then a ratio line. VisualVM runs with -Xmx$VVM_XMX
# (default 4g; it keeps its index in memory-mapped files beside the dump,
# FILE.hwcache/, counted in its RSS as they are touched).
# The dump and VisualVM's index go to $DIR (default: a temp dir under /work
# if it exists, else /tmp; ~1.3 GB + the index, checked with df first) and
# are deleted at the end.
# usage: bench/retained_bench.sh [BUILD_DIR]
#   env: REPS=3 NODES=15000000 ARRAYS=1000000 JDK=... VVM_XMX=4g TOP=10 DIR=...
#        VISUALVM_HEAP_JAR=...
set -euo pipefail
trap 'echo "retained_bench.sh: failed at line $LINENO" >&2' ERR
cd "$(dirname "$0")/.."
build=${1:-build/bench-retained}
if [ -z "${1:-}" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
    cmake --build "$build" -j2 --target hprof >/dev/null
fi
HPROF=$PWD/$build/tools/hprof
REPS=${REPS:-3}
NODES=${NODES:-15000000}
ARRAYS=${ARRAYS:-1000000}
TOP=${TOP:-10}
VVM_XMX=${VVM_XMX:-4g}
JDK=${JDK:-/usr/lib/jvm/java-17-openjdk-amd64}
JAR=${VISUALVM_HEAP_JAR:-/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar}
[ -f "$JAR" ] || { echo "retained_bench.sh: VisualVM's heap library is missing: $JAR (apt-get install visualvm)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "retained_bench.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
if [ -z "${DIR:-}" ]; then
    if [ -d /work ]; then DIR=$(mktemp -d /work/retained_bench.XXXXXX); else DIR=$(mktemp -d); fi
    trap 'rm -rf "$DIR"' EXIT
else
    mkdir -p "$DIR"
    trap 'rm -rf "$DIR"/heap.hprof "$DIR"/heap.hprof.hwcache "$DIR"/fifo' EXIT
fi
# the dump (~1.3 GB) and VisualVM's index (about as much again)
free_gb=$(df -P -B1G "$DIR" | awk 'NR == 2 { print $4 }')
[ "$free_gb" -ge 4 ] || { echo "retained_bench.sh: $DIR has $free_gb GB free, 4 GB needed" >&2; exit 1; }

"$JDK/bin/javac" --release 17 -d "$DIR" bench/java/HeapBench.java
"$JDK/bin/javac" --release 17 -cp "$JAR" -d "$DIR" tests/integration/VvmRetained.java

rm -f "$DIR/fifo" "$DIR/heap.hprof"
mkfifo "$DIR/fifo"
"$JDK/bin/java" -Xms3g -Xmx3g -cp "$DIR" HeapBench "$NODES" "$ARRAYS" <"$DIR/fifo" >"$DIR/out.txt" 2>"$DIR/err.txt" &
pid=$!
exec 7>"$DIR/fifo"
for _ in $(seq 1 1200); do grep -q '^ready' "$DIR/out.txt" 2>/dev/null && break; sleep 0.1; done
grep -q '^ready' "$DIR/out.txt" || { echo "HeapBench did not start: $(cat "$DIR/err.txt")"; exit 1; }
"$JDK/bin/jcmd" $pid GC.heap_dump "$DIR/heap.hprof" >/dev/null
exec 7>&-
wait $pid || true
v=$("$JDK/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
objs=$("$HPROF" histo "$DIR/heap.hprof" | awk '$1 == "Total" { print $2 }')
echo "retained sizes benchmark: HeapBench $NODES nodes + $ARRAYS int[100], JDK $v jcmd GC.heap_dump:" \
    "$(($(stat -c %s "$DIR/heap.hprof") / 1000000)) MB, $objs objects; $REPS runs each, medians; $(nproc) cores"

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# timed NAME CMD...: runs CMD under /usr/bin/time -v, stdout to DIR/NAME.out;
# appends "seconds peak_rss_kb" to DIR/NAME.times
timed() {
    local name=$1
    shift
    /usr/bin/time -v -o "$DIR/$name.time" "$@" >"$DIR/$name.out" 2>"$DIR/$name.err" ||
        { echo "$name failed: $(tail -5 "$DIR/$name.err")" >&2; return 1; }
    awk '/Elapsed \(wall clock\)/ { n = split($NF, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i] }
         /Maximum resident set size/ { r = $NF }
         END { print s, r }' "$DIR/$name.time" >>"$DIR/$name.times"
}
# vals NAME: "median_seconds median_peak_rss_kb"
vals() {
    echo "$(awk '{ print $1 }' "$DIR/$1.times" | median) $(awk '{ print $2 }' "$DIR/$1.times" | median)"
}
report() { # NAME LABEL
    vals "$1" | awk -v l="$2" '{ printf "  %-44s %8.2f s wall, %6.0f MB peak RSS\n", l, $1, $2 / 1024 }'
}
rm -f "$DIR"/*.times
for _ in $(seq "$REPS"); do
    timed vvm "$JDK/bin/java" -Xmx"$VVM_XMX" -cp "$JAR:$DIR" VvmRetained "$DIR/heap.hprof" --top "$TOP" --no-counts
    sed 's/^/    /' "$DIR/vvm.err"
done
report vvm "VisualVM heap library (-Xmx$VVM_XMX)"
if "$HPROF" help | grep -q '^  retained '; then
    for _ in $(seq "$REPS"); do
        timed ours "$HPROF" retained --top "$TOP" "$DIR/heap.hprof"
    done
    report ours "hprof retained"
    awk -v a="$(vals ours)" -v b="$(vals vvm)" 'BEGIN { split(a, x, " "); split(b, y, " ");
        printf "  ratio hprof/VisualVM: wall %.3f, peak RSS %.3f\n", x[1] / y[1], x[2] / y[2] }'
else
    echo "  hprof retained: not in this build ($HPROF): no ratio"
fi
