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
#    peer: the JVM runs to completion (exit 0) with a clear message; a peer
#    that stops reading, or reads too slowly, is dropped after the send
#    bound (nettimeout=3) with one HPROF ERROR, and the JVM exits in time;
#  - hprof-ctl: every command of the front end, its effect checked in the
#    file it wrote, in binary and in text; two agents at once; a killed
#    hprof-ctl leaves the JVM running to completion.
#
# usage: bash test_agent_net.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
set -euo pipefail
source "$(dirname "$0")/agent_lib.sh"
CTL=$(dirname "$HPROF")/hprof-ctl
[ -x "$CTL" ] || fail "hprof-ctl not built next to $HPROF"

compile NetDemo
"$FIRST_JDK/bin/javac" --release 17 -d classes "$SRC/tests/integration/NetPeer.java" || fail "javac NetPeer"
L_BLOB=$(line_of NetDemo.java SITE-BLOB)
L_CALL=$(line_of NetDemo.java SITE-CALL)
L_DEEP=$(line_of NetDemo.java SITE-DEEP)
L_DEEPCALL=$(line_of NetDemo.java SITE-DEEPCALL)
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
# demo NAME LINE: sends LINE to the demo and waits for one more "done LINE"
demo() {
    local before i
    before=$(grep -cx "done $2" "$1.out" || true)
    echo "$2" >&7
    for i in $(seq 1 600); do
        [ "$(grep -cx "done $2" "$1.out" || true)" -gt "$before" ] && return 0
        sleep 0.1
    done
    fail "NetDemo did not finish '$2': $(tail -3 "$1.err")"
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

# ctl_start NAME ARGS...: hprof-ctl on a free loopback port, commands from
# NAME.cin (a FIFO held open on fd 8), what it shows in NAME.ctl; sets
# CTL_PID and PORT
ctl_start() {
    local name=$1
    shift
    rm -f "$name.port" "$name.cin" && mkfifo "$name.cin"
    # shellcheck disable=SC2086 # CTL_BIND: --loopback, or empty for every address
    timeout 180 "$CTL" listen 0 ${CTL_BIND---loopback} --port-file "$name.port" --timeout 60 "$@" \
        <"$name.cin" >"$name.ctl" 2>"$name.ctlerr" &
    CTL_PID=$!
    exec 8>"$name.cin"
    wait_for "$name.port" '^[0-9]+$' 30
    PORT=$(cat "$name.port")
}
# ctl NAME COMMAND REGEX: sends COMMAND and waits for one more line of
# hprof-ctl matching REGEX (the output the command asked for)
ctl() {
    local before i
    before=$(grep -cE "$3" "$1.ctl" || true)
    echo "$2" >&8
    for i in $(seq 1 600); do
        [ "$(grep -cE "$3" "$1.ctl" || true)" -gt "$before" ] && return 0
        sleep 0.1
    done
    fail "hprof-ctl: no /$3/ after '$2': $(tail -5 "$1.ctl")"
}
# ctl_sync NAME COMMAND: a command without output, followed by HEAP SUMMARY,
# whose arrival proves the agent has run the command (they run in order)
ctl_sync() {
    echo "$2" >&8
    ctl "$1" summary '^\[1\] HEAP SUMMARY'
}
# samples_of OUT N METHOD: hits of METHOD in the N-th CPU SAMPLES section
samples_of() {
    awk -v want="$2" -v m="$3" '/^CPU SAMPLES BEGIN/ { sec++; on = (sec == want); next }
        /^CPU SAMPLES END/ { on = 0 } on && $6 == m { s += $4 } END { print s + 0 }' "$1"
}

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

    step "net=[::1]:PORT: an IPv6 literal (every other run uses a host name, localhost)"
    if grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2>/dev/null; then
        CTL_BIND="" ctl_start six$V --out six$V.hprof
        exec 8>&-
        printf 'alloc 10\nquit\n' | timeout 120 "$JAVA" -Xcheck:jni "$A=net=[::1]:$PORT,heap=sites,format=b" \
            -cp classes NetDemo >six$V.out 2>six$V.err || fail "net=[::1]: java exited $?: $(head -5 six$V.err)"
        wait "$CTL_PID" || fail "hprof-ctl exited $?: $(cat six$V.ctlerr)"
        grep -q '^\[1\] connected from \[::1\]:' six$V.ctl || fail "hprof-ctl saw no IPv6 peer: $(head -3 six$V.ctl)"
        "$HPROF" verify six$V.hprof >six$V.verify || fail "six$V.hprof: $(tail -3 six$V.verify)"
        echo "   ok: $(grep -m1 'connected from' six$V.ctl)"
    else
        echo "   note: this machine has no IPv6 loopback (::1): the IPv6 connection cannot be tried here"
    fi

    step "NetPeer: sites, summary, alloc off/on, incremental sites, depth, bad commands, EXIT"
    rm -f go1.$V go2.$V go2b.$V go3.$V
    # a control command has no answer: an unknown sub-command after it
    # (0x00fd, 0x00fe) gets an in-band message, which NetPeer awaits, so the
    # control was run before the program goes on
    peer_start p$V "waitfile:go1.$V" "cmd:03:0000$F0" "cmd:04" "cmd:08:0002" \
        "cmd:08:00fd" "await:sub-command 0x00fd" \
        "waitfile:go2.$V" "cmd:08:0001" "cmd:08:00fc" "await:sub-command 0x00fc" \
        "waitfile:go2b.$V" "cmd:03:0001$F0" "cmd:08:00070002" \
        "cmd:08:00fe" "await:sub-command 0x00fe" \
        "waitfile:go3.$V" "cmd:03:0004$F0" "cmd:42:abcdef" "cmd:03:0001" "cmd:08:0063" \
        "await:unknown CONTROL sub-command 0x0063" "cmd:05"
    demo_start p$V "net=localhost:$PORT,heap=sites,format=b"
    wait_for p$V.out '^ready$'
    demo p$V "alloc 5000"
    touch go1.$V
    wait_for p$V.peer '^step await:sub-command 0x00fd$'
    demo p$V "alloc 3000" # not counted: allocation tracking is off
    touch go2.$V
    wait_for p$V.peer '^step await:sub-command 0x00fc$'
    demo p$V "deep 0" # one Blob (makeBlobs<-deep<-main) for the incremental sites
    touch go2b.$V
    wait_for p$V.peer '^step await:sub-command 0x00fe$'
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
    [ -n "$(site p$V.txt 'NetDemo$Blob' "NetDemo.makeBlobs(NetDemo.java:$L_BLOB)|NetDemo.deep(NetDemo.java:$L_DEEP)|NetDemo.main(NetDemo.java:$L_DEEPCALL)" 2)" ] ||
        fail "the incremental sites lack the Blob allocated since the last sites: $(site_rows p$V.txt 2 | head -5)"
    [ -z "$(site p$V.txt 'NetDemo$Blob' "$BLOB_CALL" 2)" ] ||
        fail "the incremental sites show the unchanged Blob site: $(site p$V.txt 'NetDemo$Blob' NetDemo.makeBlobs 2)"
    # the deep 5 Blob's row: its trace exactly makeBlobs<-deep (depth 2)
    d2="NetDemo.makeBlobs(NetDemo.java:$L_BLOB)|NetDemo.deep(NetDemo.java:$L_DEEP)"
    traces p$V.txt >p$V.tr # not site's own file: it rewrites that while the pipe reads
    rows=$(site p$V.txt 'NetDemo$Blob' "$d2" 3 | awk -v tf=p$V.tr -v d2="$d2" '
        BEGIN { FS = "\t"; while ((getline l < tf) > 0) { split(l, a, "\t"); fr[a[1]] = a[3] } FS = " " }
        fr[$8] == d2')
    [ -n "$rows" ] || fail "no Blob row with the depth-2 trace makeBlobs<-deep in the 3rd sites: $(site_rows p$V.txt 3 | grep Blob)"
    expect_eq "Blob at makeBlobs<-main in the 3rd sites, after drop and the command's GC" \
        "0 0 120000 5000" "$(site_cols p$V.txt 'NetDemo$Blob' "$BLOB_CALL" 3)"
    expect_eq "the deep Blob in the 3rd sites" "0 0 24 1" "$(echo "$rows" | awk '{print $4, $5, $6, $7}')"
    expect_eq "sites records (3 commands, 1 at exit)" 4 "$(grep -c '^SITES BEGIN' p$V.txt)"
    grep -q '^HEAP SUMMARY' p$V.txt || "$HPROF" info p$V.hprof | grep -q 'HEAP SUMMARY *1 ' ||
        fail "no HEAP SUMMARY record: $("$HPROF" info p$V.hprof | head -20)"
    for m in "command 11 skipped: unknown command tag 0x42 (3-byte payload)" \
        "command 12 skipped: ALLOC SITES takes a 6-byte payload, not 2" \
        "command 13 skipped: unknown CONTROL sub-command 0x0063"; do
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

    step "a front end that stops reading, or reads too slowly, is dropped after the send bound; the JVM exits"
    # nettimeout=3 (the test option: 3 s instead of 30). The exit dump (500 000
    # Blobs, ~18 MB) is far more than the connection holds. stopread: the peer
    # reads nothing; slow: 64 KiB a second, too little for a 1 MiB buffer
    # within the bound. The exit (from the program's last line to the JVM's
    # end: the dump, then the wait) must take the bound and the dump's own
    # time, not a bound per send() call (before the fix: 12-15 s here, and
    # 92-97 s with the 30 s default)
    for how in stopread trickle:65536:1000; do
        nm=${how%%:*}$V
        peer_start $nm "$how"
        rm -f $nm.in && mkfifo $nm.in
        timeout 170 "$JAVA" -Xcheck:jni -Xmx512m "$A=net=localhost:$PORT,heap=all,format=b,nettimeout=3" \
            -cp classes NetDemo <$nm.in >$nm.out 2>$nm.err &
        jp=$!
        printf 'alloc 500000\nquit\n' >$nm.in
        wait_for $nm.out '^done alloc 500000$'
        t0=$(date +%s%N)
        rc=0
        wait $jp || rc=$?
        ms=$((($(date +%s%N) - t0) / 1000000))
        pkill -P "$PEER_PID" java 2>/dev/null || true # NetPeer ($PEER_PID is timeout's)
        wait "$PEER_PID" 2>/dev/null || true
        [ "$rc" = 0 ] || fail "$how: java exited $rc after $ms ms; stderr: $(head -5 $nm.err)"
        [ "$ms" -le 8000 ] || fail "$how: the exit took $ms ms with a 3 s send bound"
        ! grep -q WARNING $nm.out $nm.err || fail "$how: a WARNING: $(grep -h WARNING $nm.out $nm.err | head -3)"
        grep -qxE 'HPROF ERROR: net=localhost:[0-9]+: the front end is not reading: [0-9]+ bytes waited 3\.[0-9] s for room in the connection; it is dropped: at most the first [0-9]+ bytes of the profile reach it, the rest is lost \(the program goes on\)' $nm.err ||
            fail "$how: no HPROF ERROR dropping the front end: $(grep 'HPROF' $nm.err | head -5)"
        expect_eq "$how: HPROF ERROR lines (the drop alone)" 1 "$(grep -c 'HPROF ERROR' $nm.err)"
        echo "   ok: $how: exit 0, $ms ms after the program's end; $(grep -o 'at most the first [0-9]* bytes' $nm.err)"
    done

    step "hprof-ctl: every command, binary"
    ctl_start c$V --out c$V.hprof --report c$V.html
    demo_start c$V "net=localhost:$PORT,heap=all,format=b,cpu=samples,interval=1"
    wait_for c$V.out '^ready$'
    wait_for c$V.ctl '^\[1\] START THREAD [0-9]+ "main"'
    MAIN=$(sed -nE 's/^\[1\] START THREAD ([0-9]+) "main".*/\1/p' c$V.ctl | head -1)
    demo c$V "alloc 4000"
    ctl c$V sites '^\[1\] ALLOC SITES'                              # sites 1
    ctl c$V summary '^\[1\] HEAP SUMMARY'
    hs=$(grep '^\[1\] HEAP SUMMARY' c$V.ctl | tail -1)
    n=$(echo "$hs" | grep -oE 'allocated [0-9]+ bytes in [0-9]+ instances' | awk '{print $5}')
    [ -n "$n" ] && [ "$n" -ge 4000 ] || fail "HEAP SUMMARY shows fewer than the 4000 Blobs allocated: $hs"
    ctl c$V dump '^\[1\] HEAP DUMP'                                 # dump 1: 4000 Blobs
    demo c$V drop
    ctl_sync c$V gc
    ctl c$V sites '^\[1\] ALLOC SITES'                              # sites 2: dead
    ctl_sync c$V "alloc off"
    demo c$V "alloc 1000"
    ctl_sync c$V "alloc on"
    ctl c$V "sites" '^\[1\] ALLOC SITES'                            # sites 3: still 4000
    ctl_sync c$V "depth 2"
    demo c$V "deep 4"
    ctl c$V sites '^\[1\] ALLOC SITES'                              # sites 4: 2 frames
    ctl_sync c$V clear-sites
    demo c$V "alloc 10"
    ctl c$V sites '^\[1\] ALLOC SITES'                              # sites 5: 10 only
    ctl_sync c$V "depth 3"
    demo c$V "deep 6"
    ctl_sync c$V "sites cutoff 0.5"                                   # sites 6: not the deep Blob
    cp c$V.hprof c$V.before
    ctl_sync c$V traces
    cp c$V.hprof c$V.after
    ctl_sync c$V "cpu off"
    demo c$V "spin 400"
    ctl c$V samples '^\[1\] CPU SAMPLES'                            # samples 1: none
    ctl_sync c$V "cpu on"
    demo c$V "spin 400"
    ctl c$V samples '^\[1\] CPU SAMPLES'                            # samples 2: spin
    ctl_sync c$V "cpu off $MAIN"
    demo c$V "spin 400"
    ctl c$V samples '^\[1\] CPU SAMPLES'                            # samples 3: none
    ctl_sync c$V "cpu on $MAIN"
    demo c$V "spin 200"
    ctl_sync c$V "cpu off" # no sample under way when the samples are cleared
    ctl_sync c$V clear-samples
    ctl c$V samples '^\[1\] CPU SAMPLES'                            # samples 4: none
    echo exit >&8
    demo_end c$V 0 open
    exec 8>&-
    wait "$CTL_PID" || fail "hprof-ctl exited $?: $(cat c$V.ctlerr)"
    # the checks, on the files hprof-ctl wrote
    "$HPROF" verify c$V.hprof >c$V.verify || fail "c$V.hprof: $(tail -3 c$V.verify)"
    "$HPROF" verify c$V.hprof.2 >c$V.verify2 || fail "c$V.hprof.2 (the exit dump): $(tail -3 c$V.verify2)"
    # one size convention: histo's bytes are SITES' (24 bytes a Blob, as HotSpot counts them)
    expect_eq "NetDemo\$Blob instances and bytes in the DUMP HEAP dump" "4000 96000" \
        "$("$HPROF" histo c$V.hprof | awk '$NF == "NetDemo$Blob" { print $2, $3 }')"
    "$HPROF" print c$V.hprof >c$V.txt || fail "hprof print c$V.hprof"
    site_cols() { site "$1" "$2" "$3" "$4" | awk '{print $4, $5, $6, $7}'; }
    expect_eq "sites 1: Blob" "96000 4000 96000 4000" "$(site_cols c$V.txt 'NetDemo$Blob' "$BLOB_CALL" 1)"
    expect_eq "sites 2, after drop + gc: Blob" "0 0 96000 4000" "$(site_cols c$V.txt 'NetDemo$Blob' "$BLOB_CALL" 2)"
    expect_eq "sites 3, 1000 more allocated with alloc off: Blob" "0 0 96000 4000" "$(site_cols c$V.txt 'NetDemo$Blob' "$BLOB_CALL" 3)"
    expect_eq "sites 4, depth 2: the deep Blob" "24 1 24 1" \
        "$(site_cols c$V.txt 'NetDemo$Blob' "NetDemo.makeBlobs(NetDemo.java:$L_BLOB)|NetDemo.deep(NetDemo.java:$L_DEEP)" 4)"
    deep2="NetDemo.makeBlobs(NetDemo.java:$L_BLOB)|NetDemo.deep(NetDemo.java:$L_DEEP)"
    tr=$(site c$V.txt 'NetDemo$Blob' "$deep2" 4 | awk '{print $8}')
    expect_eq "frames of the deep Blob's trace at depth 2" 2 "$(awk -F'\t' -v t="$tr" '$1 == t' c$V.txt.traces | awk -F'|' '{print NF}')"
    expect_eq "sites 5, after clear-sites and 10 more: Blob" "240 10 240 10" "$(site_cols c$V.txt 'NetDemo$Blob' "$BLOB_CALL" 5)"
    expect_eq "sites 5: the deep Blob is gone" "" "$(site_cols c$V.txt 'NetDemo$Blob' "$deep2" 5)"
    deep3="NetDemo.makeBlobs(NetDemo.java:$L_BLOB)|NetDemo.deep(NetDemo.java:$L_DEEP)|NetDemo.deep(NetDemo.java:$((L_DEEP - 1)))"
    { "$HPROF" print c$V.before || true; } | traces /dev/stdin | awk -F'\t' -v f="$deep3" '$3 == f' >c$V.tb
    { "$HPROF" print c$V.after || true; } | traces /dev/stdin | awk -F'\t' -v f="$deep3" '$3 == f' >c$V.ta
    [ "$({ "$HPROF" print c$V.before || true; } | grep -c '^TRACE ')" -gt 100 ] || fail "hprof print of the copy before DUMP TRACES shows no traces"
    [ ! -s c$V.tb ] || fail "the depth-3 deep trace was written before DUMP TRACES: $(cat c$V.tb)"
    [ -s c$V.ta ] || fail "DUMP TRACES did not write the depth-3 trace $deep3"
    expect_eq "CPU SAMPLES sections (4 commands, 1 at exit)" 5 "$(grep -c '^CPU SAMPLES BEGIN' c$V.txt)"
    expect_eq "samples 1 (cpu off): NetDemo.spin hits" 0 "$(samples_of c$V.txt 1 NetDemo.spin)"
    sp=$(samples_of c$V.txt 2 NetDemo.spin)
    [ "$sp" -ge 10 ] || fail "samples 2 (cpu on, 400 ms of spin at 1 ms): only $sp hits of NetDemo.spin"
    expect_eq "samples 3 (cpu off main): NetDemo.spin hits" 0 "$(samples_of c$V.txt 3 NetDemo.spin)"
    expect_eq "samples 4 (after clear-samples): NetDemo.spin hits" 0 "$(samples_of c$V.txt 4 NetDemo.spin)"
    grep -q '^\[1\] disconnected: ' c$V.ctl || fail "hprof-ctl did not see the agent go: $(tail -3 c$V.ctl)"
    echo "   ok: sites x5 as commanded, summary, dump (4000 Blobs; the exit dump in c$V.hprof.2), traces, cpu on/off/thread, clear-samples, exit -> 0"
    # --report: the page of what agent 1 sent, written as hprof-ctl exits
    grep -q "^hprof-ctl: report of agent 1: c$V.html\$" c$V.ctl ||
        fail "hprof-ctl --report: no report line: $(tail -3 c$V.ctl)"
    expect_eq "--report page: Blob instances in its histogram, spin samples in its CPU flame" \
        "4000 $(($(samples_of c$V.txt 2 NetDemo.spin)))" "$(python3 - c$V.html <<'PY'
import json, sys
s = open(sys.argv[1]).read()
d = json.loads(s[s.index('>', s.index('id="hprof-data"')) + 1:s.rindex('</script>')])
histo = [t for t in d['tables'] if t['id'] == 'histogram'][0]
cls = [c['key'] for c in histo['columns']].index('class')
inst = [c['key'] for c in histo['columns']].index('instances')
blob = [r[inst] for r in histo['rows'] if r[cls] == 'NetDemo$Blob']
f = [f for f in d['flames'] if f['id'] == 'cpu-samples'][0]
spin = d['names'].index('NetDemo.spin')
n = f['nodes']
print(blob[0] if blob else 'none', sum(s for nm, s in zip(n['name'], n['self']) if nm == spin))
PY
)"
    echo "   ok: hprof-ctl --report c$V.html: the dump's 4000 Blobs, NetDemo.spin's samples"

    step "hprof-ctl: heap=sites alone (live counts by weak references, no tag map): drop, gc, clear-sites"
    ctl_start w$V --out w$V.hprof
    demo_start w$V "net=localhost:$PORT,heap=sites,format=b"
    wait_for w$V.out '^ready$'
    demo w$V "alloc 4000"
    ctl w$V sites '^\[1\] ALLOC SITES'                              # sites 1: 4000 live
    demo w$V drop
    demo w$V "alloc 300"
    ctl_sync w$V gc
    ctl w$V sites '^\[1\] ALLOC SITES'                              # sites 2: 300 of 4300
    ctl_sync w$V clear-sites
    demo w$V "alloc 10"
    ctl w$V sites '^\[1\] ALLOC SITES'                              # sites 3: 10 only
    echo exit >&8
    demo_end w$V 0 open
    exec 8>&-
    wait "$CTL_PID" || fail "hprof-ctl exited $?: $(cat w$V.ctlerr)"
    "$HPROF" verify w$V.hprof >w$V.verify || fail "w$V.hprof: $(tail -3 w$V.verify)"
    "$HPROF" print w$V.hprof >w$V.txt || fail "hprof print w$V.hprof"
    expect_eq "heap=sites, sites 1: Blob" "96000 4000 96000 4000" "$(site_cols w$V.txt 'NetDemo$Blob' "$BLOB_CALL" 1)"
    expect_eq "heap=sites, sites 2, after drop, 300 more, gc: Blob" "7200 300 103200 4300" "$(site_cols w$V.txt 'NetDemo$Blob' "$BLOB_CALL" 2)"
    expect_eq "heap=sites, sites 3, after clear-sites and 10 more: Blob" "240 10 240 10" "$(site_cols w$V.txt 'NetDemo$Blob' "$BLOB_CALL" 3)"
    # (the output caps a site's live count at its allocations since the
    # clear, so it cannot show objects still tracked from before: the clear
    # says how many it let go, the 300 live Blobs and whatever else lives)
    let_go=$(sed -n 's/^HPROF: sites cleared (\([0-9]*\) objects no longer tracked)$/\1/p' w$V.err)
    [ -n "$let_go" ] && [ "$let_go" -ge 300 ] ||
        fail "heap=sites: clear-sites let go of '${let_go}' objects, expected at least the 300 live Blobs: $(grep 'sites cleared' w$V.err)"
    echo "   ok: heap=sites: 4000 live, then 300 of 4300 after a drop and a GC, then 10 of 10 after clear-sites (which let go of $let_go)"

    step "heap=dump over net=: HotSpot's dumps streamed (2 DUMP HEAP and the exit's), split by hprof-ctl; text too"
    ctl_start h$V --out h$V.hprof
    demo_start h$V "net=localhost:$PORT,heap=dump,format=b"
    wait_for h$V.out '^ready$'
    demo h$V "alloc 4000"
    ctl h$V dump '^\[1\] HEAP DUMP 1:'
    ctl h$V dump '^\[1\] HEAP DUMP 2:'
    echo exit >&8
    demo_end h$V 0 open
    exec 8>&-
    wait "$CTL_PID" || fail "hprof-ctl exited $?: $(cat h$V.ctlerr)"
    ! grep -q "HPROF ERROR" h$V.err || fail "h$V: $(grep "HPROF ERROR" h$V.err | head -3)"
    for f in h$V.hprof h$V.hprof.2 h$V.hprof.3; do
        # HotSpot's dumps (CDS: archived objects named, not held): --hotspot
        "$HPROF" verify --hotspot $f >$f.verify || fail "$f: $(tail -3 $f.verify)"
        grep -q ': 0 error(s)' $f.verify || fail "$f: $(tail -3 $f.verify)"
        expect_eq "$f: NetDemo\$Blob instances and bytes" "4000 96000" \
            "$("$HPROF" histo $f | awk '$NF == "NetDemo$Blob" { print $2, $3 }')"
    done
    ctl_start ht$V --out ht$V.txt
    printf 'alloc 300\nquit\n' | timeout 120 "$JAVA" -Xcheck:jni "$A=net=localhost:$PORT,heap=dump" \
        -cp classes NetDemo >ht$V.out 2>ht$V.err || fail "heap=dump text over net=: java exited $?: $(head -3 ht$V.err)"
    exec 8>&-
    wait "$CTL_PID" || fail "hprof-ctl exited $?: $(cat ht$V.ctlerr)"
    ! grep -q "HPROF ERROR" ht$V.err || fail "ht$V: $(grep "HPROF ERROR" ht$V.err | head -3)"
    expect_eq "ht$V.txt: heap dump sections (the exit dump)" "1 1" \
        "$(grep -c '^HEAP DUMP BEGIN' ht$V.txt) $(grep -cx 'HEAP DUMP END' ht$V.txt)"
    expect_eq "ht$V.txt: OBJ lines of NetDemo\$Blob (the empty trace)" 300 \
        "$(grep -cE '^OBJ [0-9a-f]+ \(sz=24, trace=300000, class=NetDemo\$Blob@[0-9a-f]+\)$' ht$V.txt || true)"
    echo "   ok: 3 binary dumps, each in its file, 4000 Blobs in each, verify --hotspot clean; text: 300 Blobs"

    step "hprof-ctl: text output, and two agents at once"
    ctl_start t$V --out t$V.txt --agents 2
    ( printf 'alloc 300\nspin 200\nquit\n' | timeout 120 "$JAVA" -Xcheck:jni "$A=net=localhost:$PORT,heap=all,cpu=samples,interval=1" \
        -cp classes NetDemo >t$V.a.out 2>t$V.a.err ) &
    pa=$!
    ( printf 'alloc 700\nquit\n' | timeout 120 "$JAVA" -Xcheck:jni "$A=net=localhost:$PORT,heap=sites,format=b" \
        -cp classes NetDemo >t$V.b.out 2>t$V.b.err ) &
    pb=$!
    wait $pa || fail "agent a exited $?: $(head -5 t$V.a.err)"
    wait $pb || fail "agent b exited $?: $(head -5 t$V.b.err)"
    exec 8>&-
    wait "$CTL_PID" || fail "hprof-ctl exited $?: $(cat t$V.ctlerr)"
    # which agent got which file depends on who connected first
    for f in t$V.txt t$V-2.txt; do
        if head -1 $f | grep -q '^JAVA PROFILE 1.0.1, created '; then
            check_layout $f
            expect_eq "$f: the text agent's Blobs" "7200 300 7200 300" "$(site_cols $f 'NetDemo$Blob' "$BLOB_CALL" 0)"
            grep -q '^CPU SAMPLES BEGIN' $f || fail "$f: no CPU SAMPLES"
            expect_eq "$f: text heap dump sections (the exit dump)" "1 1" \
                "$(grep -c '^HEAP DUMP BEGIN' $f) $(grep -cx 'HEAP DUMP END' $f)"
            grep -qE '^OBJ [0-9a-f]+ \(sz=[0-9]+, trace=[0-9]+, class=NetDemo\$Blob@[0-9a-f]+\)$' $f ||
                fail "$f: no OBJ line of a NetDemo\$Blob in the text heap dump"
        else
            "$HPROF" verify $f >$f.verify || fail "$f: $(tail -3 $f.verify)"
            "$HPROF" print $f >$f.print
            expect_eq "$f: the binary agent's Blobs" "16800 700 16800 700" "$(site_cols $f.print 'NetDemo$Blob' "$BLOB_CALL" 0)"
        fi
    done
    echo "   ok: a text and a binary agent at once, one file each"

    step "net= by attach (jcmd JVMTI.agent_load) into a running JVM, driven by hprof-ctl"
    ctl_start at$V --out at$V.hprof
    rm -f at$V.in && mkfifo at$V.in
    dyn=""
    [ "$V" -ge 21 ] && dyn=-XX:+EnableDynamicAgentLoading # else JDK 21+ warns about the attach
    timeout 180 "$JAVA" -Xcheck:jni $dyn -cp classes NetDemo <at$V.in >at$V.out 2>at$V.err &
    DEMO_PID=$!
    exec 7>at$V.in
    wait_for at$V.out '^ready$'
    jpid=$(pgrep -P "$DEMO_PID" java || true)
    [ -n "$jpid" ] || fail "no java process under $DEMO_PID"
    "$JDK/bin/jcmd" "$jpid" JVMTI.agent_load "$AGENT" "\"net=localhost:$PORT,heap=sites,format=b\"" >at$V.jcmd 2>&1 ||
        fail "jcmd JVMTI.agent_load: $(cat at$V.jcmd)"
    wait_for at$V.ctl '^\[1\] connected from '
    # JVMTI applies the new sampling interval to a thread at its next sample
    # point: 2.4 MB of Blobs arm main's, after which every allocation counts
    demo at$V "alloc 100000"
    for _ in 1 2 3; do demo at$V "deep 0"; done
    ctl at$V sites '^\[1\] ALLOC SITES'
    echo exit >&8
    demo_end at$V 0 open
    exec 8>&-
    wait "$CTL_PID" || fail "hprof-ctl exited $?: $(cat at$V.ctlerr)"
    "$HPROF" verify at$V.hprof >at$V.verify || fail "at$V.hprof: $(tail -3 at$V.verify)"
    "$HPROF" print at$V.hprof >at$V.txt
    expect_eq "after the attach: the 3 Blobs of 'deep 0' (sites on command)" "72 3 72 3" \
        "$(site_cols at$V.txt 'NetDemo$Blob' "NetDemo.makeBlobs(NetDemo.java:$L_BLOB)|NetDemo.deep(NetDemo.java:$L_DEEP)|NetDemo.main(NetDemo.java:$L_DEEPCALL)" 1)"
    echo "   ok: attached over jcmd, sites on command, exit -> 0"

    step "hprof-ctl killed mid-run: the JVM runs to completion"
    ctl_start k$V --out k$V.hprof
    demo_start k$V "net=localhost:$PORT,heap=sites,cpu=samples,interval=1,format=b"
    wait_for k$V.out '^ready$'
    demo k$V "alloc 1000"
    pkill -9 -P "$CTL_PID" # hprof-ctl itself ($! is timeout's pid)
    wait "$CTL_PID" 2>/dev/null || true
    exec 8>&-
    demo k$V "spin 300"
    demo k$V "alloc 5000"
    demo_end k$V 0
    grep -qE '^HPROF ERROR: (net=localhost:[0-9]+: the front end (closed the connection|connection failed)|writing net=localhost:[0-9]+ failed)' k$V.err ||
        fail "no clear message about the lost front end: $(cat k$V.err)"
    echo "   ok: exit 0; $(grep -m1 'HPROF ERROR' k$V.err)"
done

if [ "$FAILURES" -gt 0 ]; then
    echo "FAIL: test_agent_net ($FAILURES failure(s))" >&2
    exit 1
fi
echo "PASS: test_agent_net"
