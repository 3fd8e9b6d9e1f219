#!/usr/bin/env bash
# heapdump_bench.sh: our heap dump against HotSpot's own (jcmd GC.heap_dump)
# of the same ~1 GB live heap (bench/java/HeapBench.java: ~16 M objects), in
# the same JVM, on JDK 17 and 25 (JDK 25 also with -parallel=2). Each round
# starts a JVM under the agent (heap=$MODE,doe=n; MODE=dump, the default, is
# HotSpot's dumper called by the agent, docs/heap-dump.md; MODE=all the
# agent's JVMTI walk), takes HotSpot's dump and ours (jcmd JVMTI.data_dump),
# alternating which goes first, and records:
# (ours is asked for by SIGQUIT, TRIGGER=quit, the default, once a jcmd has
# started the JVM's attach listener: heap=dump then sends GC.heap_dump
# -parallel=N to it on JDK 21+; TRIGGER=jcmd asks by jcmd JVMTI.data_dump,
# which runs on the listener itself, so the agent uses dumpHeap0 there,
# one thread: docs/heap-dump.md)
#   - elapsed time of each (jcmd's own wall time; ours from the agent's
#     verbose "Dumping ... done." bracket, measured by the script);
#   - file sizes and MB/s;
#   - the JVM's RSS before and at its peak during our dump (VmHWM after a
#     reset through /proc/PID/clear_refs), i.e. what the dump costs in memory.
# A later dump of ours in the same JVM is timed too (SECOND=0: not).
# Medians of REPS rounds. The files go to $DIR (default: a temp dir; the page
# cache takes them, as it does HotSpot's).
# FORMAT=a measures our text dump (format=a: the same walk, then the binary
# dump rendered as HEAP DUMP BEGIN ... END text) instead of the binary one.
# AGENT_OPTS adds options to the agent's (e.g. AGENT_OPTS=redact=y: the same
# dump with every primitive value written as zero).
# GZ=1 (format=b) adds, in every round, a JVM whose output is ours.hprof.gz
# (gzip=y: HotSpot's -gz layout, level 1), started just before or after
# the plain one (alternating), and prints for each JDK: the plain dump's
# time, the gzip dump's, gz/plain, their sizes and plain/gz; the last
# lines are the ratios of every JDK (GZ RATIOS). HotSpot's dumps are taken
# in the plain JVM only.
# The last lines are the ratios, plainly: ours / jcmd GC.heap_dump, and on
# JDK 21+ ours / jcmd GC.heap_dump -parallel=2 (issue 16: at most 1.1).
# usage: bench/heapdump_bench.sh [BUILD_DIR]   env: REPS=3 NODES=15000000 ARRAYS=1000000 JDKS="..." FORMAT=b|a MODE=dump|all AGENT_OPTS=... GZ=0|1 TRIGGER=quit|jcmd
set -euo pipefail
trap 'echo "heapdump_bench.sh: failed at line $LINENO" >&2' ERR
cd "$(dirname "$0")/.."
build=${1:-build/bench-dump}
if [ -z "${1:-}" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
    cmake --build "$build" -j2 --target hprof_agent hprof >/dev/null
fi
AGENT=$PWD/$build/agent/libhprof.so
HPROF=$PWD/$build/tools/hprof
REPS=${REPS:-3}
NODES=${NODES:-15000000}
ARRAYS=${ARRAYS:-1000000}
AGENT_OPTS=${AGENT_OPTS:+,$AGENT_OPTS}
JDKS=${JDKS:-"/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
FORMAT=${FORMAT:-b}
MODE=${MODE:-dump}
GZ=${GZ:-0}
[ "$GZ" = 0 ] || [ "$FORMAT" = b ] || { echo "heapdump_bench.sh: GZ=1 needs FORMAT=b" >&2; exit 2; }
GZ_SUMMARY=""
TRIGGER=${TRIGGER:-quit}
SUMMARY=""
case $FORMAT in
    b) OURS=ours.hprof ;;
    a) OURS=ours.txt ;;
    *) echo "heapdump_bench.sh: FORMAT must be a or b" >&2; exit 2 ;;
esac
DIR=${DIR:-$(mktemp -d)}
trap 'rm -rf "$DIR"/*.hprof* "$DIR"/ours.txt "$DIR"/fifo' EXIT
first=$(echo $JDKS | awk '{print $1}')
"$first/bin/javac" --release 17 -d "$DIR" bench/java/HeapBench.java

# waits for the agent's "done." polling every 50 ms: a grep every 10 ms
# (200 processes a second) took CPU from the dump itself on 2 cores, as
# HotSpot's own [... in S secs] showed; the time is the bracket's to within
# 50 ms. (-a: the file is truncated under the JVM's open stderr, so it
# begins with a hole of NUL bytes)
wait_done() {
    local i
    for ((i = 0; i < 12000; i++)); do
        grep -qa 'done\.' "$DIR/err.txt" && return 0
        sleep 0.05
    done
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }
rss_kb() { awk '/^VmRSS/ { print $2 }' /proc/$1/status; }
hwm_kb() { awk '/^VmHWM/ { print $2 }' /proc/$1/status; }

echo "heap dump benchmark: HeapBench $NODES nodes + $ARRAYS int[100]; heap=$MODE,format=$FORMAT; $REPS rounds, medians; $(nproc) cores"
for jdk in $JDKS; do
    v=$("$jdk/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    declare -A T=()
    # jvm_round R GZ: one JVM under the agent, HotSpot's dumps (GZ=0) and ours
    jvm_round() {
        local r=$1 gz=$2 out=$OURS x="" gopt=""
        if [ "$gz" = 1 ]; then out=ours.hprof.gz x=_gz gopt=,gzip=y; fi
        rm -f "$DIR"/fifo "$DIR"/*.hprof* "$DIR/$OURS"
        mkfifo "$DIR/fifo"
        "$jdk/bin/java" -Xms3g -Xmx3g "-agentpath:$AGENT=heap=$MODE,format=$FORMAT,doe=n,file=$DIR/$out$gopt$AGENT_OPTS" \
            -cp "$DIR" HeapBench "$NODES" "$ARRAYS" <"$DIR/fifo" >"$DIR/out.txt" 2>"$DIR/err.txt" &
        pid=$!
        exec 7>"$DIR/fifo"
        for _ in $(seq 1 600); do grep -q '^ready' "$DIR/out.txt" 2>/dev/null && break; sleep 0.1; done
        grep -q '^ready' "$DIR/out.txt" || { echo "HeapBench did not start: $(cat "$DIR/err.txt")"; exit 1; }
        # the attach listener up before any timing, as after a first jcmd
        "$jdk/bin/jcmd" $pid VM.version >/dev/null
        ask() { # our dump
            if [ "$TRIGGER" = jcmd ]; then "$jdk/bin/jcmd" $pid JVMTI.data_dump >/dev/null; else kill -QUIT $pid; fi
        }
        hs() { # HotSpot's dump(s)
            [ "$gz" = 0 ] || return 0
            local t0 t1
            t0=$(now); "$jdk/bin/jcmd" $pid GC.heap_dump "$DIR/hs.hprof" >/dev/null; t1=$(now)
            T[hs]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') "
            T[hs_mb]+="$(stat -c %s "$DIR/hs.hprof") "
            rm -f "$DIR/hs.hprof"
            if [ "$v" -ge 21 ]; then
                t0=$(now); "$jdk/bin/jcmd" $pid GC.heap_dump -parallel=2 "$DIR/hs2.hprof" >"$DIR/jcmd2.txt"; t1=$(now)
                T[hs2]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') "
                # HotSpot's own time of it ([N bytes in S secs]), without jcmd's start
                T[hs2_own]+="$(sed -n 's/.* in \([0-9.]*\) secs.*/\1/p' "$DIR/jcmd2.txt" | head -1) "
                rm -f "$DIR/hs2.hprof"
            fi
        }
        ours() {
            local t0 t1 rss0
            rss0=$(rss_kb $pid)
            echo 5 >/proc/$pid/clear_refs # resets VmHWM to the current RSS
            : >"$DIR/err.txt"
            t0=$(now); ask
            wait_done
            t1=$(now)
            T[how$x]="$(grep -ao '(heap dump [0-9]*: [^)]*)' "$DIR/err.txt" | head -1 || true)"
            own=$(sed -n 's/.*GC.heap_dump[^[]*\[[0-9]* bytes in \([0-9.]*\) secs\].*/\1/p' "$DIR/err.txt" | head -1)
            [ -n "$own" ] && T[ours${x}_own]+="$own "
            T[ours$x]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') "
            T[rss_growth$x]+="$(( ($(hwm_kb $pid) - rss0) / 1024 )) "
            T[ours${x}_mb]+="$(stat -c %s "$DIR/$out") "
            [ "$gz" = 0 ] || T[ours_gz_plain]+="$(gzip -dc "$DIR/$out" | wc -c) "
        }
        if [ $((r % 2)) = 1 ]; then hs; ours; else ours; hs; fi
        # a later dump of the same run (heap=dump: the first one also
        # prepares the call, loading java.management)
        if [ "${SECOND:-1}" = 1 ] && [ "$gz" = 0 ]; then
            # the first file goes, as jcmd's do: its write-back would slow this one
            [ "$FORMAT" = b ] && rm -f "$DIR/ours.hprof"
            : >"$DIR/err.txt"
            t0=$(now); ask
            wait_done
            t1=$(now)
            T[ours2]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') "
        fi
        [ "$gz" = 1 ] || T[rss]+="$(( $(rss_kb $pid) / 1024 )) "
        exec 7>&-
        wait $pid || true
        if [ "$FORMAT" = b ]; then
            for f in "$DIR"/ours.hprof*; do { "$HPROF" verify --hotspot "$f" || true; } | tail -1 | sed 's/^/  verify: /'; done
        else
            echo "  text: $(grep -c '^HEAP DUMP END$' "$DIR/$OURS") dump, $(grep -c '^OBJ ' "$DIR/$OURS") OBJ, $(grep -c '^ARR ' "$DIR/$OURS") ARR lines"
        fi
        rm -f "$DIR"/ours.hprof* "$DIR/$OURS"
    }
    for r in $(seq "$REPS"); do
        if [ "$GZ" = 1 ] && [ $((r % 2)) = 0 ]; then
            jvm_round "$r" 1
            jvm_round "$r" 0
        else
            jvm_round "$r" 0
            [ "$GZ" = 0 ] || jvm_round "$r" 1
        fi
    done
    m() { echo ${T[$1]} | tr ' ' '\n' | median; }
    hs=$(m hs) ours=$(m ours) hsb=$(m hs_mb) ob=$(m ours_mb)
    printf "JDK %s: jcmd GC.heap_dump %.2f s (%.0f MB, %.0f MB/s); ours %.2f s (%.0f MB, %.0f MB/s): ours/jcmd %.2f\n" \
        "$v" "$hs" "$(awk -v b="$hsb" 'BEGIN { print b / 1e6 }')" "$(awk -v b="$hsb" -v t="$hs" 'BEGIN { print b / 1e6 / t }')" \
        "$ours" "$(awk -v b="$ob" 'BEGIN { print b / 1e6 }')" "$(awk -v b="$ob" -v t="$ours" 'BEGIN { print b / 1e6 / t }')" \
        "$(awk -v a="$ours" -v b="$hs" 'BEGIN { print a / b }')"
    [ -n "${T[how]:-}" ] && echo "        ours made by: ${T[how]}"
    SUMMARY+="JDK $v: ours / jcmd GC.heap_dump = $(awk -v a="$ours" -v b="$hs" 'BEGIN { printf "%.2f", a / b }')"$'\n'
    if [ -n "${T[hs2]:-}" ]; then
        printf "        jcmd GC.heap_dump -parallel=2 %.2f s: ours/parallel %.2f\n" "$(m hs2)" \
            "$(awk -v a="$ours" -v b="$(m hs2)" 'BEGIN { print a / b }')"
        SUMMARY+="JDK $v: ours / jcmd GC.heap_dump -parallel=2 = $(awk -v a="$ours" -v b="$(m hs2)" 'BEGIN { printf "%.2f", a / b }')"$'\n'
        if [ -n "${T[ours_own]:-}" ] && [ -n "${T[hs2_own]// /}" ]; then
            printf "        HotSpot's own time of the dump: ours %.2f s, jcmd -parallel=2's %.2f s\n" "$(m ours_own)" "$(m hs2_own)"
            SUMMARY+="JDK $v: HotSpot's own time, ours / jcmd -parallel=2's = $(awk -v a="$(m ours_own)" -v b="$(m hs2_own)" 'BEGIN { printf "%.2f", a / b }')"$'\n'
        fi
    fi
    if [ -n "${T[ours2]:-}" ]; then
        printf "        ours, a later dump of the same JVM: %.2f s: /jcmd %.2f\n" "$(m ours2)" \
            "$(awk -v a="$(m ours2)" -v b="$hs" 'BEGIN { print a / b }')"
    fi
    printf "        JVM RSS %s MB; RSS growth during our dump %s MB (median)\n" "$(m rss)" "$(m rss_growth)"
    if [ "$GZ" = 1 ]; then
        g=$(m ours_gz) gb=$(m ours_gz_mb) gp=$(m ours_gz_plain)
        line=$(printf "JDK %s heap=%s: plain %.2f s (%.0f MB); gzip %.2f s (%.0f MB, %.0f MB inflated): gz/plain time %.2f, size plain/gz %.2f" \
            "$v" "$MODE" "$ours" "$(awk -v b="$ob" 'BEGIN { print b / 1e6 }')" "$g" \
            "$(awk -v b="$gb" 'BEGIN { print b / 1e6 }')" "$(awk -v b="$gp" 'BEGIN { print b / 1e6 }')" \
            "$(awk -v a="$g" -v b="$ours" 'BEGIN { print a / b }')" "$(awk -v a="$ob" -v b="$gb" 'BEGIN { print a / b }')")
        echo "        $line; RSS growth during the gzip dump $(m rss_growth_gz) MB"
        GZ_SUMMARY+="$line"$'\n'
    fi
    unset T
done
echo "== ratios (load at the end: $(uptime | sed 's/.*load average: //'))"
printf "%s" "$SUMMARY"
if [ "$GZ" = 1 ]; then
    echo "GZ RATIOS (medians of $REPS, load at the end: $(uptime | sed 's/.*load average: //')):"
    printf "%s" "$GZ_SUMMARY"
fi
