#!/usr/bin/env bash
# redact_bench.sh: `hprof redact` throughput on a big HotSpot dump.
# Makes the dump once (bench/java/HeapBench.java under JDK 17, jcmd
# GC.heap_dump: ~1.3 GB, ~16 M objects with the defaults), reads it once so
# the page cache holds it, then redacts it REPS times into the same directory
# and prints the median MB/s of input (wall time of the whole command: all
# passes, the output written to the page cache) and the peak RSS
# (/usr/bin/time -v). Every run starts after a sync (no dirty pages of the
# run before, which the kernel's writeback would make it pay for). For scale, `cp` of the same file to the same place
# (the kernel's copy alone, the floor of any tool that writes a new file).
# KEEP=1 also times --keep-thread-names --keep-strings 'java.util.*' (two
# more passes). OUT_DIR (default DIR) is where outputs go: /dev/shm takes
# the disk's writeback out of the figure. The CPU seconds of each run (user +
# sys, the writer thread's too) tell a slow run on a busy machine (waiting for
# a core) from a slow program.
# usage: bench/redact_bench.sh [BUILD_DIR]   env: REPS=5 NODES=15000000 ARRAYS=1000000 JDK=... DIR=... OUT_DIR=...
set -euo pipefail
trap 'echo "redact_bench.sh: failed at line $LINENO" >&2' ERR
cd "$(dirname "$0")/.."
build=${1:-build/bench-redact}
if [ -z "${1:-}" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
    cmake --build "$build" -j2 --target hprof >/dev/null
fi
HPROF=$PWD/$build/tools/hprof
REPS=${REPS:-5}
NODES=${NODES:-15000000}
ARRAYS=${ARRAYS:-1000000}
JDK=${JDK:-/usr/lib/jvm/java-17-openjdk-amd64}
DIR=${DIR:-$(mktemp -d)}
OUT_DIR=${OUT_DIR:-$DIR}
trap 'rm -rf "$DIR"/*.hprof* "$DIR"/fifo "$OUT_DIR"/redact_bench_out.hprof* "$OUT_DIR"/redact_bench_cp.hprof' EXIT
"$JDK/bin/javac" --release 17 -d "$DIR" bench/java/HeapBench.java
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

rm -f "$DIR"/fifo && mkfifo "$DIR/fifo"
"$JDK/bin/java" -Xms3g -Xmx3g -cp "$DIR" HeapBench "$NODES" "$ARRAYS" <"$DIR/fifo" >"$DIR/out.txt" 2>&1 &
pid=$!
exec 7>"$DIR/fifo"
for _ in $(seq 1 600); do grep -q '^ready' "$DIR/out.txt" 2>/dev/null && break; sleep 0.1; done
grep -q '^ready' "$DIR/out.txt" || { echo "HeapBench did not start: $(cat "$DIR/out.txt")"; exit 1; }
"$JDK/bin/jcmd" "$pid" GC.heap_dump "$DIR/in.hprof" >/dev/null
exec 7>&-
wait "$pid" || true
size=$(stat -c %s "$DIR/in.hprof")
cat "$DIR/in.hprof" >/dev/null
echo "redact benchmark: HeapBench $NODES nodes + $ARRAYS int[100], jcmd GC.heap_dump (JDK $("$JDK/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([^"]+)".*/\1/')): $size bytes; $REPS runs, medians; $(nproc) cores"
OUT=$OUT_DIR/redact_bench_out.hprof
cps=""
for _ in $(seq "$REPS"); do
    rm -f "$OUT_DIR/redact_bench_cp.hprof"
    sync # no dirty pages of the run before: the kernel would throttle this one
    t0=$(date +%s.%N)
    cp "$DIR/in.hprof" "$OUT_DIR/redact_bench_cp.hprof"
    t1=$(date +%s.%N)
    cps="$cps $(awk -v s="$size" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", s / (b - a) / 1e6 }')"
done
rm -f "$OUT_DIR/redact_bench_cp.hprof"
echo "output to $OUT_DIR"
printf '%-34s %6s MB/s (runs:%s)\n' "cp (for scale)" "$(echo $cps | tr ' ' '\n' | median)" "$cps"
run() { # run LABEL ARGS...: median MB/s and peak RSS of REPS runs
    local label=$1
    shift
    local mbs="" rss="" cpu=""
    for _ in $(seq "$REPS"); do
        rm -f "$OUT"
        sync
        local t0 t1
        t0=$(date +%s.%N)
        /usr/bin/time -v "$HPROF" redact "$DIR/in.hprof" -o "$OUT" --quiet "$@" 2>"$DIR/time.txt"
        t1=$(date +%s.%N)
        mbs="$mbs $(awk -v s="$size" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", s / (b - a) / 1e6 }')"
        rss="$rss $(awk '/Maximum resident set size/ { print $NF }' "$DIR/time.txt")"
        cpu="$cpu $(awk '/User time|System time/ { s += $NF } END { printf "%.2f", s }' "$DIR/time.txt")"
    done
    [ "$(stat -c %s "$OUT")" = "$size" ] || { echo "output size differs"; exit 1; }
    printf '%-34s %6s MB/s (runs:%s)  CPU s (user+sys, both threads):%s  peak RSS %s KB\n' "$label" \
        "$(echo $mbs | tr ' ' '\n' | median)" "$mbs" "$cpu" "$(echo $rss | tr ' ' '\n' | median)"
}
run "hprof redact"
if [ "${KEEP:-0}" = 1 ]; then
    run "hprof redact --keep-* (4 passes)" --keep-thread-names --keep-strings 'java.util.*'
fi
