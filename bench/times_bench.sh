#!/usr/bin/env bash
# times_bench.sh: the cost of cpu=times (MethodEntry/MethodExit events) on a
# call-heavy program (bench/java/CallBench.java: ITER iterations, 4 calls
# each) and on the CPU-bound CpuBench (few calls, long loops), side by side
# in one run with no agent and with -Xint (the interpreter alone: JVMTI
# method events keep the threads interpreted while they are on), on JDK 17
# and 25. Configurations are interleaved and medians of REPS rounds are
# reported:
#   overhead     = median elapsed / median elapsed without an agent
#   us/call      = (elapsed under cpu=times - elapsed without) / calls
#   beyond -Xint = (elapsed under cpu=times - elapsed under -Xint) / calls:
#                  the events and our bookkeeping, without the interpreter
#   ours         = (elapsed under cpu=times - elapsed with X=8, whose
#                  callbacks return at once) / calls: our bookkeeping alone
# usage: bench/times_bench.sh [BUILD_DIR]   env: REPS=3 ITER=1000000 ROUNDS=20 JDKS="..."
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench-cpu}
if [ -z "${1:-}" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
    cmake --build "$build" -j2 --target hprof_agent >/dev/null
fi
AGENT=$PWD/$build/agent/libhprof.so
REPS=${REPS:-3}
ITER=${ITER:-1000000}
ROUNDS=${ROUNDS:-20}
JDKS=${JDKS:-"/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
first=$(echo $JDKS | awk '{print $1}')
"$first/bin/javac" --release 17 -d "$work" bench/java/CallBench.java bench/java/CpuBench.java

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "cpu=times benchmark: CallBench $ITER iterations ($((4 * ITER)) calls), CpuBench $ROUNDS rounds; $REPS interleaved rounds, medians; $(nproc) cores"
for jdk in $JDKS; do
    java=$jdk/bin/java
    v=$("$java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    declare -A T=()
    for r in $(seq "$REPS"); do
        for prog in CallBench CpuBench; do
            arg=$ITER
            [ $prog = CpuBench ] && arg=$ROUNDS
            for cfg in none xint x8 times; do
                case $cfg in
                    none) opts=() ;;
                    xint) opts=(-Xint) ;;
                    x8) opts=("-agentpath:$AGENT=cpu=times,X=8,verbose=n,file=$work/t.txt") ;;
                    times) opts=("-agentpath:$AGENT=cpu=times,verbose=n,file=$work/t.txt") ;;
                esac
                out=$("$java" "${opts[@]}" -cp "$work" $prog "$arg" 2>/dev/null | grep elapsed_ms)
                T[$prog.$cfg]+="$(echo "$out" | sed -E 's/elapsed_ms=([0-9.]+).*/\1/') "
            done
        done
    done
    calls=$((4 * ITER))
    for prog in CallBench CpuBench; do
        n=$(echo ${T[$prog.none]} | tr ' ' '\n' | median)
        x=$(echo ${T[$prog.xint]} | tr ' ' '\n' | median)
        t=$(echo ${T[$prog.times]} | tr ' ' '\n' | median)
        e=$(echo ${T[$prog.x8]} | tr ' ' '\n' | median)
        printf "JDK %s %-9s: no agent %8.1f ms, -Xint %8.1f ms (x%.1f), cpu=times %8.1f ms: overhead x%.1f" \
            "$v" "$prog" "$n" "$x" "$(awk -v a="$x" -v b="$n" 'BEGIN { print a / b }')" "$t" \
            "$(awk -v a="$t" -v b="$n" 'BEGIN { print a / b }')"
        if [ $prog = CallBench ]; then
            printf ", %.3f us/call, %.3f beyond -Xint, %.3f ours" \
                "$(awk -v t="$t" -v n="$n" -v c=$calls 'BEGIN { print (t - n) * 1000 / c }')" \
                "$(awk -v t="$t" -v x="$x" -v c=$calls 'BEGIN { print (t - x) * 1000 / c }')" \
                "$(awk -v t="$t" -v e="$e" -v c=$calls 'BEGIN { print (t - e) * 1000 / c }')"
        fi
        echo
    done
    unset T
done
