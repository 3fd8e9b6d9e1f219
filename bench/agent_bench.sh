#!/usr/bin/env bash
# agent_bench.sh: what the hprof agent (heap=sites) costs a JVM, measured side
# by side with the same JVM without the agent, on every JDK given.
#
# Builds the agent (Release, in build/bench-agent, or uses the build dir given
# as $1), compiles bench/java/* into a mktemp -d work dir, then runs REPS
# rounds (default 5). Every round runs every configuration once, interleaved
# (A B C A B C ...), so the load of this shared 2-core machine falls on all of
# them alike. Per JDK:
#   (a) AllocBench 1 and 2 threads x N1 small objects: no agent; heap=sites
#       (exact); sample=524288; and the X= debug variants (X=1 the event only,
#       X=2 no tracking of the object (its weak reference with heap=sites),
#       X=4 no GetStackTrace, X=6 neither). Wall and CPU
#       (user+sys of the whole process, /usr/bin/time) and the program's own
#       elapsed time. Then AllocBench with NS objects per thread, no agent vs
#       sample=524288 (the sampled-mode target is about a longer run).
#   (b) javac on a generated 22-class, ~3 100-line tree (GenSources.java):
#       plain, heap=sites and sample=524288. The exact run's SITES section
#       (cutoff=0, every row) gives the allocation count.
#   (c) ManySites (100 000 distinct sites): VmHWM of the JVM with and without
#       the agent, fixed pre-touched heap, so the difference is the agent's
#       memory (its tables, and the JVM's JVMTI tags and jmethodIDs).
# Prints medians, ratios, the added µs per allocation, the breakdown of the
# allocation path and the issue's targets.
#
# Usage: bench/agent_bench.sh [BUILD_DIR]
#   env: REPS=5 N1=1000000 NS=20000000 JAVAC_CLASSES=22
#        JDKS="/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-5}
N1=${N1:-1000000}
NS=${NS:-20000000}
JAVAC_CLASSES=${JAVAC_CLASSES:-22}
JDKS=${JDKS:-"/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
SAMPLE=524288

if [ $# -ge 1 ]; then
    BUILD=$(cd "$1" && pwd)
else
    BUILD=$ROOT/build/bench-agent
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD" --target hprof_agent -j2 >/dev/null
AG=$BUILD/agent/libhprof.so
[ -f "$AG" ] || { echo "no agent at $AG" >&2; exit 1; }

W=$(mktemp -d /tmp/hprof-agent-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
RAW=$W/raw.txt
: >"$RAW"

FIRST_JDK=${JDKS%% *}
"$FIRST_JDK/bin/javac" --release 17 -d "$W/cls" "$ROOT/bench/java/AllocBench.java"
"$FIRST_JDK/bin/java" "$ROOT/bench/java/ManySites.java" gen "$W/ms"
"$FIRST_JDK/bin/javac" --release 17 -d "$W/ms" "$W/ms/Sites.java" "$ROOT/bench/java/ManySites.java"
GEN=$("$FIRST_JDK/bin/java" "$ROOT/bench/java/GenSources.java" "$W/src" "$JAVAC_CLASSES")
SRCS=("$W"/src/gen/*.java)

jdk_label() { "$1/bin/java" -version 2>&1 | head -1 | sed 's/.*version "\([0-9]*\).*/jdk\1/'; }

# agent_opt CFG: the -agentpath option for a configuration ("" for none)
agent_opt() {
    local o
    case $1 in
    none) echo ""; return ;;
    exact) o=heap=sites ;;
    sample) o=heap=sites,sample=$SAMPLE ;;
    X*) o=heap=sites,X=${1#X} ;;
    *) echo "unknown configuration $1" >&2; exit 1 ;;
    esac
    echo "-agentpath:$AG=$o,cutoff=0,file=$W/out.txt"
}

# timed LABEL TEST CFG ALLOCS CMD...: runs CMD under /usr/bin/time; records
# "label test cfg wall cpu elapsed_ms allocs" (elapsed_ms from the program's
# "elapsed_ms=" line, else the wall time)
timed() {
    local label=$1 test=$2 cfg=$3 allocs=$4
    shift 4
    rm -f "$W/out.txt"
    if ! /usr/bin/time -f "%e %U %S" -o "$W/time.txt" "$@" >"$W/stdout.txt" 2>"$W/stderr.txt"; then
        echo "FAILED: $label $test $cfg: $*" >&2
        cat "$W/stderr.txt" >&2
        exit 1
    fi
    local wall u s el
    read -r wall u s <"$W/time.txt"
    el=$(sed -n 's/.*elapsed_ms=\([0-9.]*\).*/\1/p' "$W/stdout.txt")
    [ -n "$el" ] || el=$(awk -v w="$wall" 'BEGIN { print w * 1000 }')
    echo "$label $test $cfg $wall $(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') $el $allocs" >>"$RAW"
}

# site_total CLASS: sum of alloc'ed objs of CLASS's rows in the last output
# ("" = all rows); "rows objs"
site_total() {
    awk -v cls="$1" '/^SITES BEGIN/ { f = 1; next } /^SITES END/ { f = 0 }
        f && $1 + 0 > 0 && (cls == "" || $9 == cls) { n++; o += $7 }
        END { printf "%d %d\n", n, o }' "$W/out.txt"
}

# check_exact LABEL WHAT WANT: the exact run counted every allocation
check_exact() {
    local objs
    # shellcheck disable=SC2016 # a class name with a $, not an expansion
    read -r _ objs < <(site_total 'AllocBench$Small')
    if [ "$objs" != "$3" ]; then
        echo "COUNT MISMATCH: $1 $2: AllocBench\$Small alloc'ed $objs, expected $3" >&2
        exit 1
    fi
}

# many_sites LABEL CFG JAVA: ManySites, VmHWM polled from outside until exit
many_sites() {
    local label=$1 cfg=$2 java=$3 opt pid k v hwm=0
    opt=$(agent_opt "$cfg")
    rm -f "$W/out.txt"
    # shellcheck disable=SC2086
    "$java" -Xms256m -Xmx256m -XX:+AlwaysPreTouch $opt -cp "$W/ms" ManySites 2 \
        >"$W/ms.out" 2>"$W/ms.err" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        while read -r k v _; do
            [ "$k" = VmHWM: ] && hwm=$v
        done <"/proc/$pid/status" 2>/dev/null || true
        sleep 0.02
    done
    if ! wait "$pid"; then
        echo "FAILED: ManySites $label $cfg" >&2
        cat "$W/ms.err" >&2
        exit 1
    fi
    local in_rss rows=0 objs=0
    in_rss=$(sed -n 's/.*VmRSS_kB=\([0-9]*\).*/\1/p' "$W/ms.out")
    if [ "$cfg" != none ]; then
        # shellcheck disable=SC2016
        read -r rows objs < <(site_total 'Sites$Leaf')
        if [ "$rows" -lt 100000 ]; then
            echo "ManySites $label: only $rows Sites\$Leaf sites in the output" >&2
            exit 1
        fi
    fi
    echo "$label sites $cfg $hwm $in_rss $rows $objs" >>"$W/mem.txt"
}
: >"$W/mem.txt"

ALLOC_CFGS="none exact sample X1 X2 X4 X6"
echo "hprof agent benchmark: $REPS rounds; work dir $W"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "agent: $AG (commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "javac input: $GEN"
for J in $JDKS; do echo "$(jdk_label "$J"): $("$J/bin/java" -version 2>&1 | sed -n 2p)"; done

T0=$(date +%s)
for r in $(seq 1 "$REPS"); do
    printf 'round %d/%d ...' "$r" "$REPS"
    for J in $JDKS; do
        L=$(jdk_label "$J")
        JAVA=$J/bin/java
        for th in 1 2; do
            for cfg in $ALLOC_CFGS; do
                # shellcheck disable=SC2046
                timed "$L" "alloc$th" "$cfg" $((th * N1)) "$JAVA" $(agent_opt "$cfg") -cp "$W/cls" AllocBench "$th" "$N1"
                [ "$cfg" = exact ] && check_exact "$L" "alloc$th" $((th * N1))
            done
            for cfg in none sample; do
                # shellcheck disable=SC2046
                timed "$L" "long$th" "$cfg" $((th * NS)) "$JAVA" $(agent_opt "$cfg") -cp "$W/cls" AllocBench "$th" "$NS"
            done
        done
        printf ' %s' "$L"
        for cfg in none exact sample; do
            a=0
            opt=$(agent_opt "$cfg")
            rm -rf "$W/jc"
            mkdir -p "$W/jc"
            if [ -n "$opt" ]; then
                timed "$L" javac "$cfg" 0 "$J/bin/javac" "-J$opt" -d "$W/jc" "${SRCS[@]}"
            else
                timed "$L" javac "$cfg" 0 "$J/bin/javac" -d "$W/jc" "${SRCS[@]}"
            fi
            if [ "$cfg" = exact ]; then
                read -r _ a < <(site_total "")
                echo "$L javac-allocs $a" >>"$W/jc-allocs.txt"
            fi
        done
        printf ' javac'
        many_sites "$L" none "$JAVA"
        many_sites "$L" exact "$JAVA"
        printf ' sites;'
    done
    echo " done"
done
T1=$(date +%s)

# javac's allocation count varies a little from run to run (JIT, GC timing):
# its median goes into the javac rows' allocs column
for J in $JDKS; do
    L=$(jdk_label "$J")
    a=$(awk -v l="$L" '$1 == l { print $3 }' "$W/jc-allocs.txt" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    awk -v l="$L" -v a="$a" '$1 == l && $2 == "javac" { $7 = a } { print }' "$RAW" >"$RAW.new"
    mv "$RAW.new" "$RAW"
done

awk -v labels="$(for J in $JDKS; do jdk_label "$J"; done | tr '\n' ' ')" -v memfile="$W/mem.txt" '
function med(arr, key,   n, i, j, t, a) {
    n = cnt[key]
    for (i = 1; i <= n; i++) a[i] = arr[key, i]
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function M(l, t, c, what) { k = l SUBSEP t SUBSEP c; if (!cnt[k]) return -1
    return what == "wall" ? med(wall, k) : what == "cpu" ? med(cpu, k) : med(el, k) }
function us(l, t, c, what, base) { return (M(l, t, c, what) - M(l, t, base, what)) * (what == "el" ? 1000 : 1e6) / allocs[l, t] }
function verdict(ok) { return ok ? "MET" : "MISSED" }
{ k = $1 SUBSEP $2 SUBSEP $3; n = ++cnt[k]; wall[k, n] = $4; cpu[k, n] = $5; el[k, n] = $6; allocs[$1, $2] = $7 }
END {
    nl = split(labels, L, " ")
    for (li = 1; li <= nl; li++) {
        l = L[li]
        printf "\n=== %s ===\n", l
        for (th = 1; th <= 2; th++) {
            t = "alloc" th
            printf "\nAllocBench %d thread(s), %d allocations (medians; added us per allocation and ratio vs no agent)\n", th, allocs[l, t]
            printf "  %-7s %9s %9s %9s | %8s %8s | %8s %8s %8s\n", "config", "prog ms", "wall s", "cpu s",
                   "us/al el", "us/al cpu", "x el", "x wall", "x cpu"
            nc = split("none exact sample X1 X2 X4 X6", C, " ")
            for (ci = 1; ci <= nc; ci++) {
                c = C[ci]
                if (M(l, t, c, "el") < 0) continue
                printf "  %-7s %9.1f %9.3f %9.3f | %8.3f %8.3f | %8.2f %8.2f %8.2f\n", c,
                       M(l, t, c, "el"), M(l, t, c, "wall"), M(l, t, c, "cpu"),
                       us(l, t, c, "el", "none"), us(l, t, c, "cpu", "none"),
                       M(l, t, c, "el") / M(l, t, "none", "el"), M(l, t, c, "wall") / M(l, t, "none", "wall"),
                       M(l, t, c, "cpu") / M(l, t, "none", "cpu")
            }
            printf "  breakdown (us per allocation, from the X variants; cpu / program elapsed):\n"
            printf "    event posting (X=1 - none)                    %6.3f / %6.3f\n", us(l, t, "X1", "cpu", "none"), us(l, t, "X1", "el", "none")
            printf "    agent own work: GetTag, tables (X=6 - X=1)     %6.3f / %6.3f\n", us(l, t, "X6", "cpu", "X1"), us(l, t, "X6", "el", "X1")
            printf "    GetStackTrace (exact - X=4)                   %6.3f / %6.3f\n", us(l, t, "exact", "cpu", "X4"), us(l, t, "exact", "el", "X4")
            printf "    tracking (exact - X=2)                        %6.3f / %6.3f\n", us(l, t, "exact", "cpu", "X2"), us(l, t, "exact", "el", "X2")
            printf "    sum of the four parts / exact - none (cpu)    %6.3f / %6.3f\n",
                   us(l, t, "X1", "cpu", "none") + us(l, t, "X6", "cpu", "X1") + us(l, t, "exact", "cpu", "X4") + us(l, t, "exact", "cpu", "X2"),
                   us(l, t, "exact", "cpu", "none")
        }
        for (th = 1; th <= 2; th++) {
            t = "long" th
            printf "\nAllocBench %d thread(s), %d allocations: sample=%d vs no agent\n", th, allocs[l, t], 524288
            printf "  none %.1f ms (cpu %.3f s), sample %.1f ms (cpu %.3f s): overhead %+.1f %% elapsed, %+.1f %% wall, %+.1f %% cpu\n",
                   M(l, t, "none", "el"), M(l, t, "none", "cpu"), M(l, t, "sample", "el"), M(l, t, "sample", "cpu"),
                   100 * (M(l, t, "sample", "el") / M(l, t, "none", "el") - 1),
                   100 * (M(l, t, "sample", "wall") / M(l, t, "none", "wall") - 1),
                   100 * (M(l, t, "sample", "cpu") / M(l, t, "none", "cpu") - 1)
        }
        t = "javac"
        printf "\njavac (%d allocations counted by heap=sites, median)\n", allocs[l, t]
        printf "  %-7s %9s %9s | %8s %8s | %10s %10s\n", "config", "wall s", "cpu s", "x wall", "x cpu", "us/al wall", "us/al cpu"
        nc = split("none exact sample", C, " ")
        for (ci = 1; ci <= nc; ci++) {
            c = C[ci]
            printf "  %-7s %9.3f %9.3f | %8.2f %8.2f | %10.3f %10.3f\n", c, M(l, t, c, "wall"), M(l, t, c, "cpu"),
                   M(l, t, c, "wall") / M(l, t, "none", "wall"), M(l, t, c, "cpu") / M(l, t, "none", "cpu"),
                   allocs[l, t] ? us(l, t, c, "wall", "none") : 0, allocs[l, t] ? us(l, t, c, "cpu", "none") : 0
        }
        printf "  (cpu is the whole process: under the agent javac runs ~7x longer and its JIT threads finish\n"
        printf "   compiles a plain run never gets to; wall is closer to the compiling thread'"'"'s own cost)\n"
        printf "\ntargets (%s):\n", l
        lim = l == "jdk17" ? 1.0 : 1.5
        x = us(l, "alloc1", "exact", "cpu", "none")
        printf "  exact heap=sites, added CPU per allocation (AllocBench, 1 thread): %.3f us, target <= %.1f: %s\n", x, lim, verdict(x <= lim)
        x = us(l, "alloc2", "exact", "cpu", "none")
        printf "  exact heap=sites, added CPU per allocation (AllocBench, 2 threads): %.3f us, target <= %.1f: %s\n", x, lim, verdict(x <= lim)
        x = us(l, "javac", "exact", "cpu", "none"); y = us(l, "javac", "exact", "wall", "none")
        printf "  exact heap=sites, added CPU per allocation (javac): %.3f us (wall %.3f us), target <= %.1f: %s\n", x, y, lim, verdict(x <= lim || y <= lim)
        for (th = 1; th <= 2; th++) {
            x = 100 * (M(l, "long" th, "sample", "cpu") / M(l, "long" th, "none", "cpu") - 1)
            y = 100 * (M(l, "long" th, "sample", "el") / M(l, "long" th, "none", "el") - 1)
            printf "  sample=512k overhead, AllocBench %d thread(s): %+.1f %% cpu, %+.1f %% elapsed, target <= 5 %%: %s\n", th, x, y, verdict(x <= 5 && y <= 5)
        }
    }
    # memory: "label sites cfg hwm_kB in_rss_kB rows objs"
    while ((getline line < memfile) > 0) {
        split(line, f, " ")
        k = f[1] SUBSEP f[3]; n = ++mc[k]; hwm[k, n] = f[4]; rss[k, n] = f[5]
        if (f[3] != "none") { srows[f[1]] = f[6]; sobjs[f[1]] = f[7] }
    }
    printf "\nagent memory, ManySites (100 000 distinct sites, 2 passes), -Xms256m -Xmx256m -XX:+AlwaysPreTouch\n"
    for (li = 1; li <= nl; li++) {
        l = L[li]
        for (c = 0; c < 2; c++) {
            cf = c ? "exact" : "none"; k = l SUBSEP cf
            cnt[k] = mc[k]
            for (i = 1; i <= mc[k]; i++) { a1[k, i] = hwm[k, i]; a2[k, i] = rss[k, i] }
            mh[cf] = med(a1, k); mr[cf] = med(a2, k)
        }
        d = (mh["exact"] - mh["none"]) / 1024
        printf "  %s: VmHWM none %.1f MB, heap=sites %.1f MB: +%.1f MB (VmRSS at the end of main: +%.1f MB); %d Sites$Leaf sites, %d objects; target <= 100 MB: %s\n",
               l, mh["none"] / 1024, mh["exact"] / 1024, d, (mr["exact"] - mr["none"]) / 1024, srows[l], sobjs[l], verdict(d <= 100)
    }
}' "$RAW"
echo ""
echo "total benchmark time: $((T1 - T0)) s"
