#!/usr/bin/env bash
# walk_floor.sh: what the JVM's own JVMTI heap walks cost, with callbacks
# that do nothing (bench/walk_floor.c), against `jcmd GC.heap_dump` of the
# same heap in the same JVM: the floor under any heap dump made through
# JVMTI (heap=all; heap=dump was the walk before issue 16), whatever the agent does in its callbacks.
# HeapBench holds NODES small objects and ARRAYS int[100]. Each round starts
# a JVM, takes HotSpot's dump, then the bare walks (jcmd JVMTI.data_dump).
# Prints medians of REPS rounds and each walk's ratio to jcmd.
# usage: bench/walk_floor.sh [BUILD_DIR]   env: REPS=3 NODES=4000000 ARRAYS=250000 JDKS="..."
set -euo pipefail
trap 'echo "walk_floor.sh: failed at line $LINENO" >&2' ERR
cd "$(dirname "$0")/.."
build=${1:-build/bench-dump}
if [ -z "${1:-}" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
    cmake --build "$build" -j2 --target walk_floor >/dev/null
fi
FLOOR=$PWD/$build/bench/libwalk_floor.so
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
STEPS="follow-tagging follow-tagged follow-prims-tagging iterate-tagging"

echo "bare JVMTI heap walks vs jcmd GC.heap_dump: HeapBench $NODES nodes + $ARRAYS int[100]; $REPS rounds, medians; $(nproc) cores"
for jdk in $JDKS; do
    v=$("$jdk/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    declare -A T=()
    for _ in $(seq "$REPS"); do
        rm -f "$DIR/fifo" "$DIR/hs.hprof"
        mkfifo "$DIR/fifo"
        "$jdk/bin/java" -Xms3g -Xmx3g "-agentpath:$FLOOR" -cp "$DIR" HeapBench "$NODES" "$ARRAYS" \
            <"$DIR/fifo" >"$DIR/out.txt" 2>"$DIR/err.txt" &
        pid=$!
        exec 7>"$DIR/fifo"
        for _ in $(seq 1 600); do grep -q '^ready' "$DIR/out.txt" 2>/dev/null && break; sleep 0.1; done
        grep -q '^ready' "$DIR/out.txt" || { echo "HeapBench did not start: $(cat "$DIR/err.txt")"; exit 1; }
        t0=$(now); "$jdk/bin/jcmd" $pid GC.heap_dump "$DIR/hs.hprof" >/dev/null; t1=$(now)
        T[jcmd]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') "
        rm -f "$DIR/hs.hprof"
        "$jdk/bin/jcmd" $pid GC.run >/dev/null
        "$jdk/bin/jcmd" $pid JVMTI.data_dump >/dev/null
        for _ in $(seq 1 1200); do grep -q '^WALK done' "$DIR/err.txt" && break; sleep 0.1; done
        grep -q '^WALK done' "$DIR/err.txt" || { echo "the walks did not finish: $(tail -3 "$DIR/err.txt")"; exit 1; }
        for s in $STEPS; do
            T[$s]+="$(awk -v s="$s" '$1 == "WALK" && $2 == s { print $3 }' "$DIR/err.txt") "
            T[$s.n]="$(awk -v s="$s" '$1 == "WALK" && $2 == s { print $4 " callbacks, " $5 " primitive" }' "$DIR/err.txt")"
        done
        exec 7>&-
        wait $pid || true
    done
    m() { echo ${T[$1]} | tr ' ' '\n' | median; }
    jc=$(m jcmd)
    printf "JDK %s: jcmd GC.heap_dump %.2f s\n" "$v" "$jc"
    for s in $STEPS; do
        printf "        %-22s %.2f s  x%.2f of jcmd  (%s)\n" "$s" "$(m $s)" "$(awk -v a="$(m $s)" -v b="$jc" 'BEGIN { print a / b }')" "${T[$s.n]}"
    done
    unset T
done
