#!/usr/bin/env bash
# test_agent_net.sh: net=host:port on real JVMs (JDK 17 and 25, -Xcheck:jni),
# against two front ends: NetPeer (tests/integration/NetPeer.java), written
# from the protocol's documentation alone, and hprof-ctl. The program is
# demo-java/NetDemo, driven line by line on stdin (a FIFO), so each command
# meets a known program state.
#  - connecting: a refused port and an unknown host are HPROF ERRORs and the
#    JVM does not start (exit 1);
#  - NetPeer: ALLOC SITES (plain and incremental), HEAP SUMMARY, CONTROL
#    ALLOC OFF/ON, SET DEPTH, unknown and malformed commands (skipped with a
#    message in the stream and on stderr), EXIT (exit status 0): every
#    effect checked in the received file, which passes `hprof verify`;
#  - faults: random bytes, a truncated command, a 2 GiB length, a reset
#    peer: the JVM runs to completion (exit 0) with a clear message;
#  - hprof-ctl: every command of the front end, its effect checked in the
#    file it wrote, in binary and in text; two agents at once; a killed
#    hprof-ctl leaves the JVM running to completion.
#
# usage: bash test_agent_net.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
set -euo pipefail
source "$(dirname "$0")/agent_lib.sh"
CTL=$(dirname "$HPROF")/hprof-ctl
# (checked where hprof-ctl is used)

compile NetDemo
"$FIRST_JDK/bin/javac" --release 17 -d classes "$SRC/tests/integration/NetPeer.java" || fail "javac NetPeer"
L_BLOB=$(line_of NetDemo.java SITE-BLOB)
L_CALL=$(line_of NetDemo.java SITE-CALL)
L_DEEP=$(line_of NetDemo.java SITE-DEEP)
BLOB_CALL="NetDemo.makeBlobs(NetDemo.java:$L_BLOB)|NetDemo.main(NetDemo.java:$L_CALL)"

# wait_for FILE REGEX [SECONDS]: until a line of FILE matches
wait_for() {
    local i
    for i in $(seq 1 $((${3:-60} * 10))); do
        grep -qE "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "timed out waiting for /$2/ in $1: $(tail -5 "$1" 2>/dev/null)"
}
# demo_start NAME AGENT_OPTS: NetDemo under the agent, stdin from NAME.in
# (a FIFO held open on fd 7), stdout NAME.out; sets DEMO_PID
demo_start() {
    local name=$1
    rm -f "$name.in" && mkfifo "$name.in"
    timeout 180 "$JAVA" -Xcheck:jni -Xmx256m "$A=$2" -cp classes NetDemo <"$name.in" >"$name.out" 2>"$name.err" &
    DEMO_PID=$!
    exec 7>"$name.in"
}
# demo NAME LINE: sends LINE to the demo and waits for "done LINE"
demo() {
    echo "$2" >&7
    wait_for "$1.out" "^done $2\$"
}
# demo_end NAME WANT_RC [open]: closes stdin (unless "open": then the JVM
# must end by itself, e.g. on EXIT), waits for the JVM, checks its status
demo_end() {
    [ "${3:-}" = open ] || exec 7>&-
    local rc=0
    wait "$DEMO_PID" || rc=$?
    exec 7>&- || true
    [ "$rc" = "$2" ] || fail "$1: java exited $rc, expected $2; stderr: $(head -10 "$1.err")"
    ! grep -q WARNING "$1.out" "$1.err" || fail "$1: a WARNING: $(grep -h WARNING "$1.out" "$1.err" | head -3)"
    ! ls hs_err_pid*.log >/dev/null 2>&1 || fail "$1: the JVM crashed: $(ls hs_err_pid*.log)"
}
# peer_start NAME STEPS...: NetPeer listening; sets PEER_PID and PORT
peer_start() {
    local name=$1
    shift
    rm -f "$name.port"
    timeout 180 "$JAVA" -cp classes NetPeer "$name.port" "$name.hprof" "$@" >"$name.peer" 2>&1 &
    PEER_PID=$!
    wait_for "$name.port" '^[0-9]+$' 30
    PORT=$(cat "$name.port")
}
# float bits of a cutoff, for NetPeer payloads
F0=00000000

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | sed -nE '1s/.*version "([0-9]+).*/\1/p')
    CTX="JDK $V"
    A="-agentpath:$AGENT"

    step "net=: a refused connection and an unknown host stop the JVM"
    jrun refused$V 1 allow "$A=net=127.0.0.1:1,heap=sites" -cp classes NetDemo
    grep -q '^HPROF ERROR: net=127.0.0.1:1: cannot connect to 127.0.0.1:1: Connection refused$' refused$V.err ||
        fail "no clear refusal: $(cat refused$V.err)"
    jrun unknown$V 1 allow "$A=net=no-such-host.invalid:9000,heap=sites" -cp classes NetDemo
    grep -q '^HPROF ERROR: net=no-such-host.invalid:9000: cannot resolve no-such-host.invalid: ' unknown$V.err ||
        fail "no clear resolver error: $(cat unknown$V.err)"
    echo "   ok: $(head -1 refused$V.err)"

    step "NetPeer: sites, summary, alloc off/on, incremental sites, depth, bad commands, EXIT"
    rm -f go1.$V go2.$V go3.$V
    peer_start p$V "waitfile:go1.$V" "cmd:03:0000$F0" "cmd:04" "cmd:08:0002" \
        "waitfile:go2.$V" "cmd:08:0001" "cmd:03:0001$F0" "cmd:08:00070002" \
        "waitfile:go3.$V" "cmd:03:0004$F0" "cmd:42:abcdef" "cmd:03:0001" "cmd:08:0063" \
        "await:unknown CONTROL sub-command 0x0063" "cmd:05"
    demo_start p$V "net=localhost:$PORT,heap=sites,format=b"
    wait_for p$V.out '^ready$'
    demo p$V "alloc 5000"
    touch go1.$V
    wait_for p$V.peer '^step cmd:08:0002$'
    demo p$V "alloc 3000" # not counted: allocation tracking is off
    touch go2.$V
    wait_for p$V.peer '^step cmd:08:00070002$'
    demo p$V "deep 5"
    demo p$V "drop"
    touch go3.$V
    demo_end p$V 0 open # EXIT: System.exit(0) while main still reads stdin
    wait "$PEER_PID" || fail "NetPeer failed: $(cat p$V.peer)"
    "$HPROF" verify p$V.hprof >p$V.verify || fail "received file: $(tail -3 p$V.verify)"
    "$HPROF" print p$V.hprof >p$V.txt || fail "hprof print of the received file"
    # 1st sites: 5000 Blobs, all live; 2nd (incremental): no Blob row, the
    # Blob site did not change while tracking was off; 3rd (after a GC):
    # the dropped Blobs are dead, the deep Blob's trace has 2 frames
    # site_cols OUT CLASS FRAMES N: "live_bytes live_n alloc_bytes alloc_n" of the row in section N
    site_cols() { site "$1" "$2" "$3" "$4" | awk '{print $4, $5, $6, $7}'; }
    expect_eq "Blob at makeBlobs<-main in the 1st sites (live bytes/objs, alloc bytes/objs)" \
        "120000 5000 120000 5000" "$(site_cols p$V.txt 'NetDemo$Blob' "$BLOB_CALL" 1)"
    [ -z "$(site p$V.txt 'NetDemo$Blob' "NetDemo.makeBlobs" 2)" ] ||
        fail "the incremental sites show the unchanged Blob site: $(site p$V.txt 'NetDemo$Blob' NetDemo.makeBlobs 2)"
    rows=$(site p$V.txt 'NetDemo$Blob' "NetDemo.makeBlobs(NetDemo.java:$L_BLOB)|NetDemo.deep(NetDemo.java:$L_DEEP)" 3)
    [ -n "$rows" ] || fail "no Blob row with the depth-2 trace makeBlobs<-deep in the 3rd sites: $(site_rows p$V.txt 3 | grep Blob)"
    tr=$(echo "$rows" | awk '{print $8}')
    expect_eq "frames of the deep Blob's trace after depth 2" 2 "$(awk -F'\t' -v t="$tr" '$1 == t' p$V.txt.traces | awk -F'|' '{print NF}')"
    expect_eq "Blob at makeBlobs<-main in the 3rd sites, after drop and the command's GC" \
        "0 0 120000 5000" "$(site_cols p$V.txt 'NetDemo$Blob' "$BLOB_CALL" 3)"
    expect_eq "the deep Blob in the 3rd sites" "0 0 24 1" "$(echo "$rows" | awk '{print $4, $5, $6, $7}')"
    expect_eq "sites records (3 commands, 1 at exit)" 4 "$(grep -c '^SITES BEGIN' p$V.txt)"
    grep -q '^HEAP SUMMARY' p$V.txt || "$HPROF" info p$V.hprof | grep -q 'HEAP SUMMARY *1 ' ||
        fail "no HEAP SUMMARY record: $("$HPROF" info p$V.hprof | head -20)"
    for m in "command 8 skipped: unknown command tag 0x42 (3-byte payload)" \
        "command 9 skipped: ALLOC SITES takes a 6-byte payload, not 2" \
        "command 10 skipped: unknown CONTROL sub-command 0x0063"; do
        grep -qaF "HPROF ERROR: $m" p$V.hprof || fail "no in-band message '$m'"
        grep -qF "HPROF ERROR: net $m" p$V.err || fail "no stderr message '$m': $(cat p$V.err)"
    done
    echo "   ok: 3 sites records (5000 Blobs, incremental without them, depth 2), summary, 3 bad commands reported, EXIT -> 0"

    step "faults: random commands, random bytes, then the peer closes (format=a)"
    peer_start r$V "frames:300:$V" "random:4000:$V" "sleep:300" "close"
    demo_start r$V "net=localhost:$PORT,heap=sites,cpu=samples,interval=1"
    wait_for r$V.out '^ready$'
    demo r$V "alloc 2000"
    demo r$V "spin 500"
    demo r$V "alloc 1000"
    demo_end r$V 0
    wait "$PEER_PID" || fail "NetPeer failed: $(cat r$V.peer)"
    head -1 r$V.hprof | grep -q '^JAVA PROFILE 1.0.1, created ' || fail "the text stream does not start with its header"
    grep -q 'HPROF ERROR: net command [0-9]* skipped: ' r$V.err || fail "no skipped command reported: $(head -5 r$V.err)"
    grep 'HPROF ERROR' r$V.err | grep -vE '^HPROF ERROR: (net command [0-9]+ skipped: .+|net command [0-9]+ \(DUMP HEAP\): heap dumps need heap=dump or heap=all|net=localhost:[0-9]+: the front end closed the connection(: .+)?; the program goes on, its profile output stops when the connection is gone|writing net=localhost:[0-9]+ failed: .+)$' &&
        fail "an unexpected message: $(grep 'HPROF ERROR' r$V.err | head -5)"
    echo "   ok: $(grep -c 'skipped' r$V.err) commands skipped, exit 0"

    step "faults: a command announcing a 2 GiB payload, then the peer closes"
    peer_start h$V "raw:03000000017fffffff0102" "sleep:300" "close"
    demo_start h$V "net=localhost:$PORT,heap=sites"
    wait_for h$V.out '^ready$'
    demo h$V "alloc 100"
    wait_for h$V.err "the connection ended inside a command's payload \(2 of 2147483647 bytes\)"
    demo h$V "alloc 100"
    demo_end h$V 0
    wait "$PEER_PID" || fail "NetPeer failed: $(cat h$V.peer)"
    echo "   ok: $(grep -o "the front end closed.*bytes)" h$V.err)"

    step "faults: the peer resets the connection while the program runs"
    peer_start x$V "cmd:03:0000$F0" "await:SITES END" "rst"
    demo_start x$V "net=localhost:$PORT,heap=sites,cpu=samples,interval=1,format=a"
    wait_for x$V.out '^ready$'
    demo x$V "alloc 3000"
    wait "$PEER_PID" || fail "NetPeer failed: $(cat x$V.peer)"
    demo x$V "spin 300"
    demo x$V "alloc 3000"
    demo_end x$V 0
    grep -qE '^HPROF ERROR: (net=localhost:[0-9]+: the front end (closed the connection|connection failed)|writing net=localhost:[0-9]+ failed)' x$V.err ||
        fail "no clear message about the lost front end: $(cat x$V.err)"
    echo "   ok: exit 0; $(grep -m1 'HPROF ERROR' x$V.err)"
done

if [ "$FAILURES" -gt 0 ]; then
    echo "FAIL: test_agent_net ($FAILURES failure(s))" >&2
    exit 1
fi
echo "PASS: test_agent_net"
