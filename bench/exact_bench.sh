#!/usr/bin/env bash
# exact_bench.sh: the exact heap=sites mode against async-profiler's alloc=1
# (every allocation, no live counts) and alloc=1,live, on AllocBench with T
# threads, interleaved, medians; the added CPU per allocation and the cores
# the allocating phase kept busy (issue 16, items 4 and 6).
#
# usage: bench/exact_bench.sh [BUILD_DIR]      (default: build/bench-exact, Release)
# Env knobs:
#   REPS=5                rounds; each runs every configuration once, in turn
#   T=2 N=10000000        AllocBench threads, allocations per thread
#   JDKS="/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"
#   ASPROF_LIB=...        libasyncProfiler.so (default: ../async-profiler/build/
#                         lib/libasyncProfiler.so beside the project; this
#                         script builds nothing of it)
#   BASE_LIB=...          a second libhprof.so to run as "base" (an older
#                         commit, built by hand), optional
#   CFGS="none exact ap1 ap1live"   the configurations (add "base" with BASE_LIB,
#                         "x2": heap=sites,X=2, no SetTag)
# Output: one line per run, then per JDK the medians and, at the end, the
# ratios of the added CPU per allocation (exact / ap1, exact / ap1live).
#
# cpu_ms is AllocBench's own figure: the process CPU (every thread, the
# JVM's and the agent's) from the phase's start to its end, so the agents'
# start-up and exit work (our exit GC and site scan, async-profiler's JFR
# dump) is not in it; the whole process's CPU (/usr/bin/time) is shown too.
# The exact runs are checked: the AllocBench$Small rows must sum to T*N.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build/bench-exact}
REPS=${REPS:-5}
T=${T:-2}
N=${N:-10000000}
JDKS=${JDKS:-/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64}
ASPROF_LIB=${ASPROF_LIB:-$ROOT/../async-profiler/build/lib/libasyncProfiler.so}
BASE_LIB=${BASE_LIB:-}
CFGS=${CFGS:-none exact ap1 ap1live}

die() { echo "exact_bench: $*" >&2; exit 1; }

if [ ! -f "$BUILD/agent/libhprof.so" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$BUILD" -j2 --target hprof_agent >/dev/null
fi
AGENT=$BUILD/agent/libhprof.so
case " $CFGS " in *" ap1"*) [ -f "$ASPROF_LIB" ] || die "no $ASPROF_LIB (set ASPROF_LIB)";; esac
case " $CFGS " in *" base "*) [ -f "$BASE_LIB" ] || die "config base needs BASE_LIB";; esac

W=$(mktemp -d /tmp/exact_bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
first_jdk=${JDKS%% *}
"$first_jdk/bin/javac" --release 17 -d "$W" "$ROOT/bench/java/AllocBench.java"

opts_of() {
    case $1 in
        none) ;;
        exact) echo "-agentpath:$AGENT=heap=sites,cutoff=0,file=$W/sites.txt" ;;
        x2) echo "-agentpath:$AGENT=heap=sites,X=2,file=$W/sites.txt" ;;
        base) echo "-agentpath:$BASE_LIB=heap=sites,cutoff=0,file=$W/sites.txt" ;;
        ap1) echo "-agentpath:$ASPROF_LIB=start,event=alloc,alloc=1,file=$W/ap.jfr" ;;
        ap1live) echo "-agentpath:$ASPROF_LIB=start,event=alloc,alloc=1,live,file=$W/ap.jfr" ;;
        *) die "unknown configuration $1" ;;
    esac
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

echo "exact_bench: T=$T N=$N REPS=$REPS CFGS=\"$CFGS\"; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
RES=$W/results.txt
: >"$RES"
for jdk in $JDKS; do
    jn=$(basename "$jdk")
    for _ in $(seq "$REPS"); do
        for c in $CFGS; do
            rm -f "$W/sites.txt" "$W/ap.jfr"
            # shellcheck disable=SC2046
            /usr/bin/time -f 'PROC %U %S' -o "$W/time.txt" \
                "$jdk/bin/java" $(opts_of "$c") -cp "$W" AllocBench "$T" "$N" >"$W/out.txt" 2>"$W/err.txt" ||
                die "$jn $c failed: $(tail -3 "$W/err.txt")"
            line=$(grep allocations= "$W/out.txt") || die "$jn $c: no result line"
            el=$(sed 's/.*elapsed_ms=\([0-9.]*\).*/\1/' <<<"$line")
            cpu=$(sed 's/.*cpu_ms=\([0-9.]*\).*/\1/' <<<"$line")
            proc=$(awk '/^PROC/ {print $2 + $3}' "$W/time.txt")
            if [ "$c" = exact ] || [ "$c" = base ]; then
                got=$(awk '$0 ~ /^ *[0-9]+ +[0-9.]+% / && $NF ~ /AllocBench\$Small/ {s += $7} END {print s + 0}' "$W/sites.txt")
                [ "$got" = "$((T * N))" ] || die "$jn $c: AllocBench\$Small rows sum to $got, not $((T * N))"
            fi
            echo "$jn $c $el $cpu $proc" | tee -a "$RES"
        done
    done
done
echo "exact_bench: load at end: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "Medians (AllocBench $T x $N): elapsed ms, phase CPU ms, cores (CPU/elapsed), process CPU s, added CPU us/allocation"
for jdk in $JDKS; do
    jn=$(basename "$jdk")
    base_cpu=$(awk -v j="$jn" '$1 == j && $2 == "none" {print $4}' "$RES" | median)
    for c in $CFGS; do
        el=$(awk -v j="$jn" -v c="$c" '$1 == j && $2 == c {print $3}' "$RES" | median)
        cpu=$(awk -v j="$jn" -v c="$c" '$1 == j && $2 == c {print $4}' "$RES" | median)
        proc=$(awk -v j="$jn" -v c="$c" '$1 == j && $2 == c {print $5}' "$RES" | median)
        awk -v j="$jn" -v c="$c" -v el="$el" -v cpu="$cpu" -v proc="$proc" -v b="$base_cpu" -v n="$((T * N))" \
            'BEGIN {add = (b == "nan") ? "" : sprintf("%.3f", (cpu - b) * 1000 / n);
                    printf "%-24s %-8s %10.1f %10.1f %6.2f %8.2f %8s\n", j, c, el, cpu, cpu / el, proc, add}'
    done | tee -a "$W/medians.txt"
done
echo
echo "Ratios of the added CPU per allocation (median - median of none), same run:"
for jdk in $JDKS; do
    jn=$(basename "$jdk")
    for ref in ap1 ap1live; do
        awk -v j="$jn" -v ref="$ref" '$1 == j && $2 == "exact" {e = $7} $1 == j && $2 == ref {a = $7}
            END {if (e != "" && a != "" && a + 0 > 0) printf "%s: exact / %s = %.2f\n", j, ref, e / a}' "$W/medians.txt"
    done
done
