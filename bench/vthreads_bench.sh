#!/usr/bin/env bash
# vthreads_bench.sh: the cost of cpu=samples (interval=10) on a program of
# 100 000 short virtual threads (demo-java/VThreadDemo.java "short": at most
# 1000 alive at a time, each a fixed loop), on JDK 25, side by side with no
# agent. Configurations are interleaved (none, agent, none, agent, ...) and
# medians of REPS rounds are reported; the times are the program's own,
# for the tasks alone (not the JVM's start): elapsed, and the CPU time of
# the whole process meanwhile (every thread, the agent's sampler
# included), which a machine busy with other work disturbs much less.
#   ratio = median with the agent / median without
# Also: the agent with heap=sites,thread=y (each virtual thread gets a
# serial, a THREAD START and END, and its record is freed at its end).
# To split the cost: CFGS="none floor i10 i10x i1000" (floor: any JVMTI
# agent, bench/walk_floor.c, which only loads; i10x: the same with X=16,
# the agent not asking for virtual threads, so the sampler sees none;
# i1000: the capability with almost no sampling).
# usage: bench/vthreads_bench.sh [BUILD_DIR]   env: REPS=7 TASKS=100000 ITER=20000 JDK=... CFGS=...
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench-vt}
if [ -z "${1:-}" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
    cmake --build "$build" -j2 --target hprof_agent walk_floor >/dev/null
fi
AGENT=$PWD/$build/agent/libhprof.so
FLOOR=$PWD/$build/bench/libwalk_floor.so
REPS=${REPS:-7}
TASKS=${TASKS:-100000}
ITER=${ITER:-20000}
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$JDK/bin/javac" --release 21 -d "$work" demo-java/VThreadDemo.java

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

v=$("$JDK/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
echo "virtual threads: VThreadDemo short $TASKS $ITER on JDK $v, $REPS interleaved rounds, medians; $(nproc) cores"
declare -A T=() C=()
cfgs=${CFGS:-"none i10 sites"}
for r in $(seq "$REPS"); do
    for cfg in $cfgs; do
        case $cfg in
            none) opts=() ;;
            i10) opts=("-agentpath:$AGENT=cpu=samples,interval=10,verbose=n,file=$work/p.txt") ;;
            floor) opts=("-agentpath:$FLOOR") ;;
            i10x) opts=("-agentpath:$AGENT=cpu=samples,interval=10,X=16,verbose=n,file=$work/p.txt") ;;
            i1) opts=("-agentpath:$AGENT=cpu=samples,interval=1,verbose=n,file=$work/p.txt") ;;
            i1000) opts=("-agentpath:$AGENT=cpu=samples,interval=1000,verbose=n,file=$work/p.txt") ;;
            sites) opts=("-agentpath:$AGENT=heap=sites,thread=y,verbose=n,file=$work/s.txt") ;;
        esac
        out=$("$JDK/bin/java" "${opts[@]}" -cp "$work" VThreadDemo short "$TASKS" "$ITER" 2>/dev/null | grep elapsed_ms)
        T[$cfg]+="$(echo "$out" | sed -E 's/.*elapsed_ms=([0-9]+).*/\1/') "
        C[$cfg]+="$(echo "$out" | sed -E 's/.*cpu_ms=([0-9]+).*/\1/') "
    done
done
for what in elapsed cpu; do
    echo " $what time (ms):"
    for cfg in $cfgs; do
        if [ $what = elapsed ]; then runs=${T[$cfg]}; else runs=${C[$cfg]}; fi
        m=$(echo $runs | tr ' ' '\n' | median)
        [ $cfg = none ] && base=$m
        case $cfg in
            none) name="no agent" ;;
            i10) name="cpu=samples,interval=10" ;;
            floor) name="an agent that does nothing" ;;
            i10x) name="the same, X=16 (no vthreads)" ;;
            i1) name="cpu=samples,interval=1" ;;
            i1000) name="cpu=samples,interval=1000" ;;
            sites) name="heap=sites,thread=y" ;;
        esac
        printf "  %-28s %7.0f   ratio %.3f   runs: %s\n" "$name" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN { print a / b }')" "$runs"
    done
done
