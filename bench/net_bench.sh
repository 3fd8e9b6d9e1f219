#!/usr/bin/env bash
# net_bench.sh: a large heap dump streamed over loopback to hprof-ctl
# (net=localhost:PORT) against the same dump written to a file, on the same
# heap (bench/java/HeapBench.java), JDK 17 and 25. Each round starts two JVMs
# in turn (file first or net first, alternating), each dumping once on
# `jcmd PID JVMTI.data_dump`:
#   - file: from the request to the agent's verbose "done." (the file is
#     complete in the page cache);
#   - net: from the request to hprof-ctl's "HEAP DUMP 1" line, shown when
#     the dump's HEAP DUMP END has been received and written to its file.
# Prints the medians of REPS rounds, MB/s, and net/file throughput.
# usage: bench/net_bench.sh [BUILD_DIR]   env: REPS=3 NODES=4000000 ARRAYS=250000 JDKS="..."
set -euo pipefail
trap 'echo "net_bench.sh: failed at line $LINENO" >&2' ERR
cd "$(dirname "$0")/.."
build=${1:-build/bench-net}
if [ -z "${1:-}" ]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
    cmake --build "$build" -j2 --target hprof_agent hprof hprof-ctl >/dev/null
fi
AGENT=$PWD/$build/agent/libhprof.so
HPROF=$PWD/$build/tools/hprof
CTL=$PWD/$build/tools/hprof-ctl
REPS=${REPS:-3}
NODES=${NODES:-4000000}
ARRAYS=${ARRAYS:-250000}
JDKS=${JDKS:-"/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
DIR=${DIR:-$(mktemp -d)}
trap 'pkill -P $$ 2>/dev/null || true; rm -rf "$DIR"/*.hprof* "$DIR"/fifo' EXIT
first=$(echo $JDKS | awk '{print $1}')
"$first/bin/javac" --release 17 -d "$DIR" bench/java/HeapBench.java

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }
# wait_line FILE REGEX: polls every 10 ms, at most 10 minutes
wait_line() {
    for _ in $(seq 1 60000); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.01; done
    echo "timed out waiting for /$2/ in $1" >&2
    exit 1
}

# one_dump JDK MODE: starts HeapBench under the agent (file or net), takes
# one dump, prints "seconds bytes"
one_dump() {
    local jdk=$1 mode=$2 opt out pid ctl=""
    rm -f "$DIR"/fifo "$DIR"/*.hprof* "$DIR"/port
    mkfifo "$DIR/fifo"
    if [ "$mode" = net ]; then
        "$CTL" listen 0 --loopback --port-file "$DIR/port" --out "$DIR/net.hprof" --timeout 600 \
            </dev/null >"$DIR/ctl.txt" 2>&1 &
        ctl=$!
        wait_line "$DIR/port" '^[0-9]+$'
        opt="net=localhost:$(cat "$DIR/port")"
        out=$DIR/net.hprof
    else
        opt="file=$DIR/file.hprof"
        out=$DIR/file.hprof
    fi
    "$jdk/bin/java" -Xms2g -Xmx2g "-agentpath:$AGENT=heap=dump,format=b,doe=n,$opt" \
        -cp "$DIR" HeapBench "$NODES" "$ARRAYS" <"$DIR/fifo" >"$DIR/out.txt" 2>"$DIR/err.txt" &
    pid=$!
    exec 7>"$DIR/fifo"
    wait_line "$DIR/out.txt" '^ready'
    local t0 t1
    t0=$(now)
    "$jdk/bin/jcmd" $pid JVMTI.data_dump >/dev/null
    if [ "$mode" = net ]; then wait_line "$DIR/ctl.txt" '^\[1\] HEAP DUMP 1'; else wait_line "$DIR/err.txt" 'done\.'; fi
    t1=$(now)
    exec 7>&-
    wait $pid || true
    [ -z "$ctl" ] || wait $ctl || true
    # heap=dump is HotSpot's dump: verified as HotSpot's (CDS leaves dangling refs)
    "$HPROF" verify --hotspot "$out" >/dev/null || { echo "$mode: the dump does not verify: $("$HPROF" verify --hotspot "$out" | tail -2)" >&2; exit 1; }
    echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') $(stat -c %s "$out")"
}

echo "net= streaming benchmark: HeapBench $NODES nodes + $ARRAYS int[100]; $REPS rounds, medians; $(nproc) cores"
for jdk in $JDKS; do
    v=$("$jdk/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    tf="" tn="" bf="" bn=""
    for r in $(seq "$REPS"); do
        if [ $((r % 2)) = 1 ]; then order="file net"; else order="net file"; fi
        for mode in $order; do
            read -r t b < <(one_dump "$jdk" "$mode")
            if [ "$mode" = file ]; then tf+="$t " bf+="$b "; else tn+="$t " bn+="$b "; fi
        done
    done
    mf=$(echo $tf | tr ' ' '\n' | median) mn=$(echo $tn | tr ' ' '\n' | median)
    sf=$(echo $bf | tr ' ' '\n' | median) sn=$(echo $bn | tr ' ' '\n' | median)
    printf "JDK %s: file %.2f s (%.0f MB, %.0f MB/s); net to hprof-ctl %.2f s (%.0f MB, %.0f MB/s): net/file throughput %.2f\n" \
        "$v" "$mf" "$(awk -v b="$sf" 'BEGIN { print b / 1e6 }')" "$(awk -v b="$sf" -v t="$mf" 'BEGIN { print b / 1e6 / t }')" \
        "$mn" "$(awk -v b="$sn" 'BEGIN { print b / 1e6 }')" "$(awk -v b="$sn" -v t="$mn" 'BEGIN { print b / 1e6 / t }')" \
        "$(awk -v f="$sf" -v tf="$mf" -v n="$sn" -v tn="$mn" 'BEGIN { print (n / tn) / (f / tf) }')"
    echo "   runs: file [$tf] net [$tn]"
done
