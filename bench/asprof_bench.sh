#!/usr/bin/env bash
# asprof_bench.sh: the hprof agent against async-profiler, the reference
# peer, in the same run on the same programs, configurations interleaved
# (A B C D, A B C D, ...) so the load of a shared machine falls on all of
# them alike; medians of REPS rounds, on every JDK in JDKS. Issue 16 items
# 4 and 5. Modes (MODES, any subset, in this order):
#   exact    AllocBench 2 threads x N small objects: no profiler; ours
#            heap=sites (exact, live counts kept); async-profiler alloc=1;
#            alloc=1,live. Wall, process CPU, added CPU per allocation, the
#            ratios ours / alloc=1 and ours / alloc=1,live, and the cores used
#            (process CPU / elapsed time of the allocating phase, both
#            measured by the program). Ours' SITES must add up to 2 x N
#            AllocBench$Small allocations and alloc=1's samples too, or the
#            script stops: the comparison is of two exact counts.
#   sampled  the same program: no profiler; ours sample=524288; async-profiler
#            alloc=524288: ratios to no profiler (elapsed and CPU).
#   cpu      CpuBench (one busy thread, ROUNDS rounds): no profiler; for each
#            interval in INTERVALS (ms): ours cpu=samples,interval=I and
#            async-profiler event=cpu,interval=Ims. Ratios to no profiler
#            (elapsed and CPU), and the samples delivered per second on the
#            busy thread (samples whose top frame is CpuBench.workA/B, over
#            the program's elapsed time; the all-thread totals as well).
# async-profiler's event=cpu uses perf_events when perf_event_open is allowed
# (root, or kernel.perf_event_paranoid <= 1); otherwise it falls back to
# ctimer, whose resolution is the jiffy (~250 samples/s at most at 1 ms): the
# script says which one it expects. event=cpu is the peer's default, and
# perf_events is its accurate engine, so that is the one compared.
#
# async-profiler is built from its source beside the project (ASPROF_SRC,
# default ../async-profiler): never fetched, nothing of it committed. Its
# make runs when build/lib/libasyncProfiler.so is missing or older than its
# sources. Ours is built in Release (build/bench-asprof, or BUILD_DIR).
#
# Usage: bench/asprof_bench.sh [BUILD_DIR]
#   env: REPS=5 N=10000000 (per thread) ROUNDS=400 INTERVALS="10 1"
#        MODES="exact sampled cpu" ASPROF_SRC=../async-profiler
#        JDKS="/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"
# Run time with the defaults, estimated for a quiet 2-core machine from the
# earlier AllocBench figures: ~15 min, 11 of them the exact mode (ours and
# the peer take ~20-25 s each for 20 M exact allocations); REPS=3 ~9 min.
# On the shared machine under load 10-15 one round of exact+sampled on both
# JDKs took ~11 min.
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-5}
N=${N:-10000000}
THREADS=2
ROUNDS=${ROUNDS:-400}
INTERVALS=${INTERVALS:-"10 1"}
MODES=${MODES:-"exact sampled cpu"}
JDKS=${JDKS:-"/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
SAMPLE=524288
ASPROF_SRC=${ASPROF_SRC:-$ROOT/../async-profiler}
FIRST_JDK=${JDKS%% *}

for m in $MODES; do
    case $m in exact | sampled | cpu) ;; *) echo "asprof_bench: unknown mode '$m' (exact, sampled, cpu)" >&2; exit 2 ;; esac
done

# async-profiler, from its source beside the project
if [ ! -f "$ASPROF_SRC/Makefile" ] || [ ! -d "$ASPROF_SRC/src" ]; then
    cat >&2 <<EOF
asprof_bench: no async-profiler source at $ASPROF_SRC
  get it beside the project (this script never fetches):
    git clone https://github.com/async-profiler/async-profiler $ROOT/../async-profiler
  or point ASPROF_SRC at a checkout.
EOF
    exit 2
fi
ASPROF_SRC=$(cd "$ASPROF_SRC" && pwd)
APLIB=$ASPROF_SRC/build/lib/libasyncProfiler.so
if [ ! -f "$APLIB" ] || [ -n "$(find "$ASPROF_SRC/src" -newer "$APLIB" -print -quit)" ]; then
    echo "building async-profiler in $ASPROF_SRC (make) ..."
    if ! JAVA_HOME=${JAVA_HOME:-$FIRST_JDK} make -C "$ASPROF_SRC" -j2 >/tmp/asprof-make.$$.log 2>&1; then
        echo "asprof_bench: async-profiler's make failed; its log: /tmp/asprof-make.$$.log" >&2
        exit 1
    fi
    rm -f /tmp/asprof-make.$$.log
fi
[ -f "$APLIB" ] || { echo "asprof_bench: no $APLIB after make" >&2; exit 1; }

# ours, Release
if [ $# -ge 1 ]; then
    BUILD=$(cd "$1" && pwd)
else
    BUILD=$ROOT/build/bench-asprof
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
fi
cmake --build "$BUILD" --target hprof_agent -j2 >/dev/null
AG=$BUILD/agent/libhprof.so
[ -f "$AG" ] || { echo "asprof_bench: no agent at $AG" >&2; exit 1; }

W=$(mktemp -d /tmp/hprof-asprof-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
RAW=$W/raw.txt
: >"$RAW"
"$FIRST_JDK/bin/javac" --release 17 -d "$W/cls" "$ROOT/bench/java/AllocBench.java" "$ROOT/bench/java/CpuBench.java"

jdk_label() { "$1/bin/java" -version 2>&1 | head -1 | sed 's/.*version "\([0-9]*\).*/jdk\1/'; }

# opts CFG: the JVM options of a configuration (none for "none")
opts() {
    case $1 in
    none) ;;
    ours) echo "-agentpath:$AG=heap=sites,cutoff=0,file=$W/out.txt" ;;
    ap1) echo "-agentpath:$APLIB=start,alloc=1,collapsed,file=$W/out.txt" ;;
    ap1live) echo "-agentpath:$APLIB=start,alloc=1,live,collapsed,file=$W/out.txt" ;;
    oursS) echo "-agentpath:$AG=heap=sites,sample=$SAMPLE,cutoff=0,file=$W/out.txt" ;;
    apS) echo "-agentpath:$APLIB=start,alloc=$SAMPLE,collapsed,file=$W/out.txt" ;;
    oursC*) echo "-agentpath:$AG=cpu=samples,interval=${1#oursC},cutoff=0,verbose=n,file=$W/out.txt" ;;
    apC*) echo "-agentpath:$APLIB=start,event=cpu,interval=${1#apC}ms,collapsed,file=$W/out.txt" ;;
    *) echo "asprof_bench: unknown configuration $1" >&2; exit 1 ;;
    esac
}

# ours' samples in the CPU SAMPLES section: "total busy" (busy: top frame
# CpuBench.workA/B); async-profiler's collapsed stacks: the same
cpu_samples() {
    case $1 in
    oursC*) awk '/^CPU SAMPLES BEGIN/ { on = 1; next } /^CPU SAMPLES END/ { on = 0 }
            on && $1 + 0 > 0 { t += $4; if ($6 ~ /^CpuBench\.work[AB]$/) b += $4 }
            END { printf "%d %d\n", t, b }' "$W/out.txt" ;;
    apC*) awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); n = split(s, f, ";"); t += c
            if (f[n] ~ /^CpuBench\.work[AB]$/) b += c }
            END { printf "%d %d\n", t, b }' "$W/out.txt" ;;
    *) echo "0 0" ;;
    esac
}

# alloc_count CFG: AllocBench$Small allocations counted by the profiler
alloc_count() {
    case $1 in
    ours) awk '/^SITES BEGIN/ { f = 1; next } /^SITES END/ { f = 0 }
            f && $1 + 0 > 0 && $9 == "AllocBench$Small" { o += $7 } END { print o + 0 }' "$W/out.txt" ;;
    ap1) awk '/AllocBench\$Small/ { s += $NF } END { print s + 0 }' "$W/out.txt" ;;
    esac
}

# run LABEL MODE CFG ARGS...: one timed run; records
# "label mode cfg wall cpu elapsed_ms cpu_ms total busy" in RAW
run() {
    local label=$1 mode=$2 cfg=$3 java=$4
    shift 4
    rm -f "$W/out.txt"
    # shellcheck disable=SC2046 # the options are words without blanks
    if ! /usr/bin/time -f "%e %U %S" -o "$W/time.txt" "$java" $(opts "$cfg") "$@" >"$W/stdout.txt" 2>"$W/stderr.txt"; then
        echo "FAILED: $label $mode $cfg" >&2
        cat "$W/stderr.txt" >&2
        exit 1
    fi
    local wall u s el cms
    read -r wall u s <"$W/time.txt"
    el=$(sed -n 's/.*elapsed_ms=\([0-9.]*\).*/\1/p' "$W/stdout.txt")
    cms=$(sed -n 's/.*cpu_ms=\([0-9.]*\).*/\1/p' "$W/stdout.txt")
    [ -n "$el" ] || { echo "FAILED: $label $mode $cfg printed no elapsed_ms" >&2; exit 1; }
    echo "$label $mode $cfg $wall $(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') $el ${cms:-0} $(cpu_samples "$cfg")" >>"$RAW"
    if [ "$mode" = exact ] && { [ "$cfg" = ours ] || [ "$cfg" = ap1 ]; }; then
        local got
        got=$(alloc_count "$cfg")
        if [ "$got" != $((THREADS * N)) ]; then
            echo "COUNT MISMATCH: $label $cfg counted $got AllocBench\$Small allocations, the program made $((THREADS * N))" >&2
            exit 1
        fi
    fi
}

has_mode() { case " $MODES " in *" $1 "*) return 0 ;; esac; return 1; }

if [ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)" -le 1 ]; then
    ENGINE="perf_events (perf_event_open allowed)"
else
    ENGINE="ctimer probably (perf_event_paranoid > 1, not root): jiffy resolution"
fi
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "hprof vs async-profiler: REPS=$REPS N=$N x $THREADS threads ROUNDS=$ROUNDS INTERVALS=\"$INTERVALS\" MODES=\"$MODES\""
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $LOAD0"
echo "ours: $AG (commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "async-profiler: $APLIB (commit $(git -C "$ASPROF_SRC" rev-parse --short HEAD 2>/dev/null || echo '?')); event=cpu: $ENGINE"
for J in $JDKS; do echo "$(jdk_label "$J"): $("$J/bin/java" -version 2>&1 | sed -n 2p)"; done

CPU_CFGS="none"
for i in $INTERVALS; do CPU_CFGS="$CPU_CFGS oursC$i apC$i"; done
T0=$(date +%s)
for r in $(seq 1 "$REPS"); do
    printf 'round %d/%d:' "$r" "$REPS"
    for J in $JDKS; do
        L=$(jdk_label "$J")
        if has_mode exact; then
            for cfg in none ours ap1 ap1live; do run "$L" exact "$cfg" "$J/bin/java" -cp "$W/cls" AllocBench "$THREADS" "$N"; done
        fi
        if has_mode sampled; then
            for cfg in none oursS apS; do run "$L" sampled "$cfg" "$J/bin/java" -cp "$W/cls" AllocBench "$THREADS" "$N"; done
        fi
        if has_mode cpu; then
            for cfg in $CPU_CFGS; do run "$L" cpu "$cfg" "$J/bin/java" -cp "$W/cls" CpuBench "$ROUNDS"; done
        fi
        printf ' %s' "$L"
    done
    echo " (load $(cut -d' ' -f1 /proc/loadavg))"
done
echo "$(($(date +%s) - T0)) s; load at the start $LOAD0, at the end $(cut -d' ' -f1-3 /proc/loadavg)"

# the report: medians per (label, mode, cfg), then the ratios
awk -v allocs=$((THREADS * N)) -v intervals="$INTERVALS" '
function med(key, col,    n, i, j, t, a) {
    n = cnt[key]
    for (i = 1; i <= n; i++) a[i] = val[key, i, col]
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function r(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
{ k = $1 SUBSEP $2 SUBSEP $3; c = ++cnt[k]; for (i = 4; i <= NF; i++) val[k, c, i] = $i
  if (!($1 in seen)) { seen[$1] = 1; labels[++nl] = $1 } }
# columns: 4 wall, 5 cpu, 6 elapsed_ms, 7 cpu_ms, 8 total samples, 9 busy samples
END {
    ni = split(intervals, iv, " ")
    name["none"] = "no profiler"; name["ours"] = "ours heap=sites (exact)"; name["ap1"] = "asprof alloc=1"
    name["ap1live"] = "asprof alloc=1,live"; name["oursS"] = "ours sample=524288"; name["apS"] = "asprof alloc=524288"
    nf = 0
    for (l = 1; l <= nl; l++) {
        L = labels[l]
        if ((L, "exact", "none") in cnt) {
            printf "\n%s, exact: AllocBench %d allocations (2 threads), medians\n", L, allocs
            printf "  %-26s %8s %8s %10s %12s %6s\n", "config", "wall s", "CPU s", "elapsed ms", "+CPU us/alloc", "cores"
            bc = med(L SUBSEP "exact" SUBSEP "none", 5)
            split("none ours ap1 ap1live", cf, " ")
            for (c = 1; c <= 4; c++) {
                k = L SUBSEP "exact" SUBSEP cf[c]
                if (!(k in cnt)) continue
                cpu = med(k, 5); el = med(k, 6); cms = med(k, 7)
                add[cf[c]] = (cpu - bc) * 1e6 / allocs; ela[cf[c]] = el
                printf "  %-26s %8.2f %8.2f %10.1f %12s %6.2f\n", name[cf[c]], med(k, 4), cpu, el,
                    (cf[c] == "none" ? "" : sprintf("%.3f", add[cf[c]])), (el > 0 ? cms / el : 0)
            }
            fin[++nf] = sprintf("%-6s %-52s %9s %9s %9s", L, "exact: added CPU us/alloc, ours / alloc=1", sprintf("%.3f", add["ours"]), sprintf("%.3f", add["ap1"]), r(add["ours"], add["ap1"]))
            fin[++nf] = sprintf("%-6s %-52s %9s %9s %9s", L, "exact: added CPU us/alloc, ours / alloc=1,live", sprintf("%.3f", add["ours"]), sprintf("%.3f", add["ap1live"]), r(add["ours"], add["ap1live"]))
            fin[++nf] = sprintf("%-6s %-52s %9s %9s %9s", L, "exact: elapsed ms, ours / alloc=1", ela["ours"], ela["ap1"], r(ela["ours"], ela["ap1"]))
            k1 = L SUBSEP "exact" SUBSEP "ours"; k2 = L SUBSEP "exact" SUBSEP "ap1"
            fin[++nf] = sprintf("%-6s %-52s %9.2f %9.2f %9s", L, "exact: cores used (CPU / elapsed), ours, alloc=1", med(k1, 7) / med(k1, 6), med(k2, 7) / med(k2, 6), "")
        }
        if ((L, "sampled", "none") in cnt) {
            printf "\n%s, sampled: AllocBench %d allocations (2 threads), ratio to no profiler\n", L, allocs
            k0 = L SUBSEP "sampled" SUBSEP "none"; e0 = med(k0, 6); c0 = med(k0, 5)
            printf "  %-26s %10s %8s %8s %8s\n", "config", "elapsed ms", "CPU s", "x wall", "x CPU"
            split("none oursS apS", cf, " ")
            for (c = 1; c <= 3; c++) {
                k = L SUBSEP "sampled" SUBSEP cf[c]
                printf "  %-26s %10.1f %8.2f %8s %8s\n", name[cf[c]], med(k, 6), med(k, 5), r(med(k, 6), e0), r(med(k, 5), c0)
            }
            ko = L SUBSEP "sampled" SUBSEP "oursS"; ka = L SUBSEP "sampled" SUBSEP "apS"
            fin[++nf] = sprintf("%-6s %-52s %9s %9s", L, "sampled 512k: x elapsed vs none (ours, asprof)", r(med(ko, 6), e0), r(med(ka, 6), e0))
            fin[++nf] = sprintf("%-6s %-52s %9s %9s", L, "sampled 512k: x CPU vs none (ours, asprof)", r(med(ko, 5), c0), r(med(ka, 5), c0))
        }
        if ((L, "cpu", "none") in cnt) {
            printf "\n%s, cpu: CpuBench, ratio to no profiler; samples on the busy thread per second of elapsed time\n", L
            printf "  and per second of the no-profiler run%ss CPU (on a loaded machine the first falls for both; the\n", "\047"
            printf "  second rises for ours, which counts a thread that ran for part of an interval, not for the peer,\n"
            printf "  which samples CPU time); all: the samples of all threads\n"
            k0 = L SUBSEP "cpu" SUBSEP "none"; e0 = med(k0, 6); c0 = med(k0, 5)
            printf "  %-26s %10s %8s %8s %8s %10s %10s %10s\n", "config", "elapsed ms", "CPU s", "x wall", "x CPU", "busy/s", "busy/CPU-s", "all"
            printf "  %-26s %10.1f %8.2f\n", "no profiler", e0, c0
            for (i = 1; i <= ni; i++) {
                split("oursC apC", who, " ")
                for (w = 1; w <= 2; w++) {
                    k = L SUBSEP "cpu" SUBSEP who[w] iv[i]
                    el = med(k, 6)
                    rate[w] = el > 0 ? med(k, 9) * 1000 / el : 0
                    xw[w] = r(el, e0); xc[w] = r(med(k, 5), c0)
                    printf "  %-26s %10.1f %8.2f %8s %8s %10.0f %10.0f %10d\n", (w == 1 ? "ours cpu=samples," : "asprof event=cpu,") "interval=" iv[i] (w == 1 ? "" : "ms"),
                        el, med(k, 5), xw[w], xc[w], rate[w], (c0 > 0 ? med(k, 9) / c0 : 0), med(k, 8)
                }
                fin[++nf] = sprintf("%-6s %-52s %9s %9s", L, "cpu " iv[i] " ms: x elapsed vs none (ours, asprof)", xw[1], xw[2])
                fin[++nf] = sprintf("%-6s %-52s %9s %9s", L, "cpu " iv[i] " ms: x CPU vs none (ours, asprof)", xc[1], xc[2])
                fin[++nf] = sprintf("%-6s %-52s %9.0f %9.0f %9s", L, "cpu " iv[i] " ms: samples/s, busy thread (asked " 1000 / iv[i] ")", rate[1], rate[2], r(rate[1], rate[2]))
            }
        }
    }
    printf "\n== ratios (medians; see the load above) ==\n%-6s %-52s %9s %9s %9s\n", "JDK", "measure", "ours", "asprof", "ours/ap"
    for (i = 1; i <= nf; i++) print fin[i]
}' "$RAW"
