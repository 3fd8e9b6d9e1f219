#!/usr/bin/env bash
# cpu_bench.sh: overhead and accuracy of cpu=samples on a CPU-bound program
# (bench/java/CpuBench.java, fixed work), side by side in one run with no
# profiler and with JFR, on JDK 17 and 25. Configurations are interleaved
# (A B C D E, A B C D E, ...) and medians of REPS rounds are reported.
#   overhead = median elapsed / median elapsed without a profiler
#   error    = |share of workA in the agent's samples - share measured by
#              the program with nanoTime|, in percentage points
# usage: bench/cpu_bench.sh [BUILD_DIR]     env: REPS=5 ROUNDS=400 JDKS="..."
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench-cpu}
if [ -z "${1:-}" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
    cmake --build "$build" -j2 --target hprof_agent >/dev/null
fi
AGENT=$PWD/$build/agent/libhprof.so
REPS=${REPS:-5}
ROUNDS=${ROUNDS:-400}
JDKS=${JDKS:-"/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
first=$(echo $JDKS | awk '{print $1}')
"$first/bin/javac" --release 17 -d "$work" bench/java/CpuBench.java

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# share of workA among the samples of workA + workB in a text profile
agent_share() {
    awk '/^TRACE [0-9]+:/ { t = $2; sub(/:$/, "", t); getline f; top[t] = f }
         /^CPU SAMPLES BEGIN/ { on = 1; next } /^CPU SAMPLES END/ { on = 0 }
         on && /^ *[0-9]+ / { if (top[$5] ~ /CpuBench.workA/) a += $4; else if (top[$5] ~ /CpuBench.workB/) b += $4 }
         END { if (a + b) printf "%.4f", a / (a + b); else print "nan" }' "$1"
}

echo "cpu=samples benchmark: CpuBench $ROUNDS rounds, $REPS interleaved rounds, medians; $(nproc) cores"
for jdk in $JDKS; do
    java=$jdk/bin/java
    v=$("$java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    declare -A T=() E=()
    for r in $(seq "$REPS"); do
        for cfg in none i10 i1 jfr; do
            case $cfg in
                none) opts=() ;;
                i10) opts=("-agentpath:$AGENT=cpu=samples,interval=10,cutoff=0,verbose=n,file=$work/p.txt") ;;
                i1) opts=("-agentpath:$AGENT=cpu=samples,interval=1,cutoff=0,verbose=n,file=$work/p.txt") ;;
                jfr) opts=("-XX:StartFlightRecording=filename=$work/r.jfr,settings=profile") ;;
            esac
            out=$("$java" "${opts[@]}" -cp "$work" CpuBench "$ROUNDS" 2>/dev/null | grep elapsed_ms)
            T[$cfg]+="$(echo "$out" | sed -E 's/elapsed_ms=([0-9.]+).*/\1/') "
            if [ "$cfg" = i10 ] || [ "$cfg" = i1 ]; then
                want=$(echo "$out" | sed -E 's/.*shareA=([0-9.]+).*/\1/')
                got=$(agent_share "$work/p.txt")
                E[$cfg]+="$(awk -v g="$got" -v w="$want" 'BEGIN { d = 100 * (g - w); printf "%.2f", d < 0 ? -d : d }') "
            fi
        done
    done
    base=$(echo ${T[none]} | tr ' ' '\n' | median)
    printf "JDK %s: no profiler %.0f ms\n" "$v" "$base"
    for cfg in i10 i1 jfr; do
        m=$(echo ${T[$cfg]} | tr ' ' '\n' | median)
        err=""
        [ -n "${E[$cfg]:-}" ] && err=$(printf ", error %s pp (median of %s)" "$(echo ${E[$cfg]} | tr ' ' '\n' | median)" "$REPS")
        printf "  %-28s %7.0f ms  overhead %.3f%s\n" "$cfg" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN { print a / b }')" "$err"
    done
    unset T E
done
