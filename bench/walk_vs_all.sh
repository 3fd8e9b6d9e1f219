#!/usr/bin/env bash
# walk_vs_all.sh: our heap=all dump (the agent's JVMTI walk) against the
# floor, the same walk with callbacks that only count and tag
# (bench/walk_floor.c), on the same heap (HeapBench NODES + ARRAYS int[100],
# -Xms3g), both JDKs, the two alternating within each round (which one goes
# first alternates too). Each round starts two JVMs:
#   - the floor's: on `jcmd JVMTI.data_dump` the floor agent forces a GC
#     (the first full GC of the run, as our dump's is), runs
#     follow-prims-tagging (FollowReferences with the primitive callbacks,
#     tagging every object: what a complete dump asks of the JVM, on a heap
#     with no tags), then, the heap untagged, tags every object
#     (IterateThroughHeap), forces a GC (gc, the one reported) and walks
#     again (follow-prims-tagged): what a heap=all dump asks of the JVM,
#     whose objects were tagged as they were allocated and which forces a GC;
#   - ours: heap=all,verbose=y; on `jcmd JVMTI.data_dump` the agent's verbose
#     line gives the dump's pause (GC + heap walk, timed inside the agent
#     around the JVMTI calls) and its total (to the file complete), then the
#     time of heap=all's live counts (made by the walk itself since the dump
#     counts them; a heap scan before); "wall" runs from the request to the
#     agent's "done.".
# Prints medians of REPS rounds and, at the end, the ratios:
#   walk/floor        our heap walk / follow-prims-tagging (the issue's floor)
#   walk/tagged       our heap walk / follow-prims-tagged (the same JVM work)
#   pause/floor       our pause (GC + walk) / (gc + follow-prims-tagged)
#   total/floor       our dump's total / follow-prims-tagging
#   wall/floor        request to done. (the dump, the live counts, the sites
#                     output) / follow-prims-tagging
# and the same for the walking thread's time on a CPU (its schedstat, read
# by both agents), which the machine's load does not stretch.
# usage: bench/walk_vs_all.sh [BUILD_DIR]
#   env: REPS=3 NODES=15000000 ARRAYS=1000000 JDKS="..." VERIFY=1 (hprof verify
#        the first round's dump) DIR=... (where our dump goes; a temp dir)
set -euo pipefail
trap 'echo "walk_vs_all.sh: failed at line $LINENO" >&2' ERR
cd "$(dirname "$0")/.."
build=${1:-build/bench-dump}
if [ -z "${1:-}" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
    cmake --build "$build" -j2 --target walk_floor hprof_agent hprof >/dev/null
fi
case $build in /*) ;; *) build=$PWD/$build ;; esac
FLOOR=$build/bench/libwalk_floor.so
AGENT=$build/agent/libhprof.so
HPROF=$build/tools/hprof
REPS=${REPS:-3}
NODES=${NODES:-15000000}
ARRAYS=${ARRAYS:-1000000}
VERIFY=${VERIFY:-1}
JDKS=${JDKS:-"/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
DIR=${DIR:-$(mktemp -d)}
trap 'rm -rf "$DIR"/ours.hprof* "$DIR"/fifo' EXIT
first=$(echo $JDKS | awk '{print $1}')
"$first/bin/javac" --release 17 -d "$DIR" bench/java/HeapBench.java
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
STEPS="gc+follow-prims-tagging+untag+iterate-tagging+gc+follow-prims-tagged"

# start_jvm JAVA AGENTARG: HeapBench with the agent, $pid set, ready
start_jvm() {
    rm -f "$DIR/fifo"
    mkfifo "$DIR/fifo"
    "$1" -Xms3g -Xmx3g "$2" -cp "$DIR" HeapBench "$NODES" "$ARRAYS" \
        <"$DIR/fifo" >"$DIR/out.txt" 2>"$DIR/err.txt" &
    pid=$!
    exec 7>"$DIR/fifo"
    for _ in $(seq 1 3000); do grep -q '^ready' "$DIR/out.txt" 2>/dev/null && break; sleep 0.1; done
    grep -q '^ready' "$DIR/out.txt" || { echo "HeapBench did not start: $(cat "$DIR/err.txt")"; exit 1; }
}
stop_jvm() {
    exec 7>&-
    wait $pid || true
}
wait_line() { # FILE PATTERN
    for _ in $(seq 1 12000); do grep -q "$2" "$1" && return 0; sleep 0.05; done
    echo "no '$2' in $1: $(tail -3 "$1")"
    exit 1
}

floor_round() {
    start_jvm "$jdk/bin/java" "-agentpath:$FLOOR=$STEPS"
    "$jdk/bin/jcmd" $pid JVMTI.data_dump >/dev/null
    wait_line "$DIR/err.txt" '^WALK done'
    for s in follow-prims-tagging follow-prims-tagged; do
        T[$s]+="$(awk -v s="$s" '$1 == "WALK" && $2 == s { print $3; exit }' "$DIR/err.txt") "
        T[$s.cpu]+="$(awk -v s="$s" '$1 == "WALK" && $2 == s { print $7; exit }' "$DIR/err.txt") "
    done
    T[gc1]+="$(awk '$1 == "WALK" && $2 == "gc" { print $3; exit }' "$DIR/err.txt") "
    T[gc]+="$(awk '$1 == "WALK" && $2 == "gc" { n++; if (n == 2) print $3 }' "$DIR/err.txt") "
    T[objects]="$(awk '$1 == "WALK" && $2 == "follow-prims-tagging" { print $6; exit }' "$DIR/err.txt")"
    stop_jvm
}

ours_round() {
    rm -f "$DIR"/ours.hprof*
    start_jvm "$jdk/bin/java" "-agentpath:$AGENT=heap=all,format=b,doe=n,verbose=y,file=$DIR/ours.hprof"
    : >"$DIR/err.txt"
    local t0 t1
    t0=$(now)
    "$jdk/bin/jcmd" $pid JVMTI.data_dump >/dev/null
    wait_line "$DIR/err.txt" 'done\.'
    t1=$(now)
    T[wall]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') "
    # " (heap dump: pause P s: GC G s, heap walk W s; total T s) (live counts: HOW, L s) done."
    local l
    l=$(grep -o 'heap dump: pause.*' "$DIR/err.txt" | head -1)
    [ -n "$l" ] || { echo "no timing in the agent's output: $(cat "$DIR/err.txt")"; exit 1; }
    T[pause]+="$(echo "$l" | sed -E 's/.*pause ([0-9.]+) s.*/\1/') "
    T[ogc]+="$(echo "$l" | sed -E 's/.*GC ([0-9.]+) s.*/\1/') "
    T[walk]+="$(echo "$l" | sed -E 's/.*heap walk ([0-9.]+) s.*/\1/') "
    T[total]+="$(echo "$l" | sed -E 's/.*total ([0-9.]+) s.*/\1/') "
    T[wcpu]+="$(echo "$l" | sed -nE 's/.*on a CPU ([0-9.]+) s.*/\1/p') "
    T[wwait]+="$(echo "$l" | sed -nE 's/.*waiting for one ([0-9.]+) s.*/\1/p') "
    T[wblock]+="$(echo "$l" | sed -nE 's/.*blocked ([0-9.]+) s.*/\1/p') "
    T[live]+="$(echo "$l" | sed -E 's/.*live counts: [a-z ]+, ([0-9.]+) s.*/\1/') "
    T[how]="$(echo "$l" | sed -E 's/.*live counts: ([a-z ]+), .*/\1/')"
    stop_jvm
    if [ "$VERIFY" = 1 ] && [ "$r" = 1 ]; then
        { "$HPROF" verify "$DIR/ours.hprof" || true; } | tail -1 | sed 's/^/  verify: /'
    fi
    rm -f "$DIR"/ours.hprof*
}

echo "heap=all against the JVMTI floor: HeapBench $NODES nodes + $ARRAYS int[100]; $REPS rounds, medians; $(nproc) cores; $(uptime)"
SUMMARY=""
for jdk in $JDKS; do
    v=$("$jdk/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    declare -A T=()
    for r in $(seq "$REPS"); do
        if [ $((r % 2)) = 1 ]; then floor_round; ours_round; else ours_round; floor_round; fi
    done
    m() { echo ${T[$1]} | tr ' ' '\n' | median; }
    fp=$(m follow-prims-tagging) fg=$(m gc) ft=$(m follow-prims-tagged)
    printf "JDK %s: floor follow-prims-tagging %.2f s (%s objects, after a first GC of %.2f s); gc %.2f s + follow-prims-tagged %.2f s\n" \
        "$v" "$fp" "${T[objects]}" "$(m gc1)" "$fg" "$ft"
    printf "        walking thread on a CPU: floor %.2f s, tagged %.2f s, ours %.2f s (ours waited %.2f s for a CPU, blocked %.2f s)\n" \
        "$(m follow-prims-tagging.cpu)" "$(m follow-prims-tagged.cpu)" "$(m wcpu)" "$(m wwait)" "$(m wblock)"
    printf "        ours: pause %.2f s (GC %.2f s + heap walk %.2f s), dump total %.2f s; live counts (%s) %.2f s; request to done. %.2f s\n" \
        "$(m pause)" "$(m ogc)" "$(m walk)" "$(m total)" "${T[how]}" "$(m live)" "$(m wall)"
    SUMMARY+="$(printf "JDK %s: walk/floor %s  walk/tagged %s  pause/floor %s  total/floor %s  wall/floor %s  (floor %.2f s; ours: walk %.2f s, pause %.2f s, total %.2f s, wall %.2f s)" \
        "$v" "$(ratio "$(m walk)" "$fp")" "$(ratio "$(m walk)" "$ft")" \
        "$(ratio "$(m pause)" "$(awk -v a="$fg" -v b="$ft" 'BEGIN { print a + b }')")" \
        "$(ratio "$(m total)" "$fp")" "$(ratio "$(m wall)" "$fp")" "$fp" "$(m walk)" "$(m pause)" "$(m total)" "$(m wall)")"$'\n'
    SUMMARY+="$(printf "        CPU of the walking thread: ours/floor %s  ours/tagged %s" \
        "$(ratio "$(m wcpu)" "$(m follow-prims-tagging.cpu)")" "$(ratio "$(m wcpu)" "$(m follow-prims-tagged.cpu)")")"$'\n'
    unset T
done
echo "load at the end: $(uptime)"
echo "ratios (medians of $REPS):"
printf "%s" "$SUMMARY"
