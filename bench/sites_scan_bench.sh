#!/usr/bin/env bash
# sites_scan_bench.sh: what an output of allocation sites costs now that
# live counts come from the heap (a forced GC, then one IterateThroughHeap
# over the tagged objects, agent/sites.c site_scan) instead of ObjectFree
# events. In one JVM under heap=sites holding HeapBench's NODES nodes and
# ARRAYS int[100] (every one of them tagged), it times side by side:
#   gc     jcmd GC.run                  (the full GC alone)
#   sites  jcmd JVMTI.data_dump         (GC + scan + the SITES output)
# and prints medians of REPS rounds and sites/gc. jcmd's own start-up (the
# same in both) is in both figures.
# usage: bench/sites_scan_bench.sh [BUILD_DIR]   env: REPS=3 NODES=4000000 ARRAYS=250000 JDKS="..."
set -euo pipefail
trap 'echo "sites_scan_bench.sh: failed at line $LINENO" >&2' ERR
cd "$(dirname "$0")/.."
build=${1:-build/bench-sites}
if [ -z "${1:-}" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
    cmake --build "$build" -j2 --target hprof_agent >/dev/null
fi
AGENT=$PWD/$build/agent/libhprof.so
REPS=${REPS:-3}
NODES=${NODES:-4000000}
ARRAYS=${ARRAYS:-250000}
JDKS=${JDKS:-"/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
first=$(echo $JDKS | awk '{print $1}')
"$first/bin/javac" --release 17 -d "$DIR" bench/java/HeapBench.java
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }

echo "sites output (GC + heap scan) vs a GC alone: HeapBench $NODES nodes + $ARRAYS int[100] under heap=sites; $REPS rounds, medians; $(nproc) cores"
for jdk in $JDKS; do
    v=$("$jdk/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    gcs=() sites=()
    for _ in $(seq "$REPS"); do
        rm -f "$DIR/fifo"
        mkfifo "$DIR/fifo"
        "$jdk/bin/java" -Xms3g -Xmx3g "-agentpath:$AGENT=heap=sites,file=$DIR/out.txt" -cp "$DIR" \
            HeapBench "$NODES" "$ARRAYS" <"$DIR/fifo" >"$DIR/stdout.txt" 2>"$DIR/err.txt" &
        pid=$!
        exec 3>"$DIR/fifo"
        for _ in $(seq 600); do grep -q '^ready' "$DIR/stdout.txt" && break; sleep 0.5; done
        "$jdk/bin/jcmd" "$pid" GC.run >/dev/null # settle: the first GC moves everything
        t0=$(now)
        "$jdk/bin/jcmd" "$pid" GC.run >/dev/null
        t1=$(now)
        "$jdk/bin/jcmd" "$pid" JVMTI.data_dump >/dev/null
        for _ in $(seq 600); do [ "$(grep -c '^SITES END' "$DIR/out.txt" 2>/dev/null)" -ge 1 ] && break; sleep 0.05; done
        t2=$(now)
        exec 3>&-
        wait "$pid" || true
        gcs+=("$(echo "$t1 - $t0" | bc)")
        sites+=("$(echo "$t2 - $t1" | bc)")
    done
    g=$(printf '%s\n' "${gcs[@]}" | median)
    s=$(printf '%s\n' "${sites[@]}" | median)
    printf 'JDK %s: gc %.2f s, sites %.2f s, sites/gc %.2f\n' "$v" "$g" "$s" "$(echo "$s / $g" | bc -l)"
done
