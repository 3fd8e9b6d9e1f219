#!/usr/bin/env bash
# test_agent_dumps.sh: dumps of a running JVM and attaching to one, on real
# JVMs (JDK 17 and 25, -Xcheck:jni), checked from the TEXT output with
# awk/grep: a SIGQUIT (kill -QUIT) dump and a `jcmd PID JVMTI.data_dump` dump
# while the program waits (a SITES section appears before exit, exact counts,
# each TRACE block printed once over several dumps, doe=n writes nothing
# more at exit), the same in binary (`hprof verify`, one ALLOC SITES per
# dump), `jcmd PID JVMTI.agent_load` into a running JVM (counts of the
# allocations made after the attach, in the main thread and in a new
# thread), a second load refused with a clear message while the JVM goes on.
#
# usage: bash test_agent_dumps.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
# Env: HPROF_TEST_JDKS, HPROF_TEST_KEEP_GOING=1 (see test_agent_sites.sh).
# Demos: demo-java/SitesDemo.java (with "wait") and demo-java/AttachDemo.java.
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

trap '' PIPE

# ------------------------------------------------ background JVMs on a fifo
BG_PID=""
cleanup() {
    if [ -n "$BG_PID" ] && kill -0 "$BG_PID" 2>/dev/null; then kill -9 "$BG_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT
# bg_start NAME JVM_ARGS...: $JAVA -Xcheck:jni in the background, stdin from
# the fifo NAME.in (held open on fd 3), stdout NAME.out, stderr NAME.err
bg_start() {
    local name=$1
    shift
    rm -f "$name.in"
    mkfifo "$name.in"
    "$JAVA" -Xcheck:jni -Xmx512m "$@" <"$name.in" >"$name.out" 2>"$name.err" &
    BG_PID=$!
    exec 3>"$name.in"
}
# send LINE: one command to the background JVM
send() {
    echo "$1" >&3 || fail "could not send '$1' to the JVM (it exited?)"
}
# wait_for FILE REGEX COUNT [SECONDS]: until FILE has COUNT lines matching REGEX
wait_for() {
    local file=$1 re=$2 count=$3 secs=${4:-60} i
    for i in $(seq 1 $((secs * 10))); do
        if [ -f "$file" ] && [ "$(grep -cE -- "$re" "$file" 2>/dev/null || true)" -ge "$count" ]; then return 0; fi
        if ! kill -0 "$BG_PID" 2>/dev/null; then
            [ -f "$file" ] && [ "$(grep -cE -- "$re" "$file" 2>/dev/null || true)" -ge "$count" ] && return 0
            fail "the JVM exited while waiting for $count x '$re' in $file; stderr: $(tail -5 "$BG_NAME.err" 2>/dev/null)"
            return 0
        fi
        sleep 0.1
    done
    fail "timeout (${secs}s) waiting for $count x '$re' in $file (found $(grep -cE -- "$re" "$file" 2>/dev/null || echo 0))"
}
# wait_records FILE RECORD COUNT: until `hprof info FILE` counts COUNT records
wait_records() {
    local i n
    for i in $(seq 1 300); do
        n=$("$HPROF" info "$1" 2>/dev/null | awk -v r="$2" 'index($0, r) == 1 { x = substr($0, length(r) + 1); split(x, a, " "); print a[1] }' || true)
        [ -n "$n" ] && [ "$n" -ge "$3" ] && return 0
        sleep 0.1
    done
    fail "timeout waiting for $3 $2 record(s) in $1 (found '${n:-}')"
}
# bg_end NAME EXPECTED_RC ALLOW_HPROF_ERROR: close stdin, wait for the exit
bg_end() {
    local name=$1 want=$2 allow=$3 i rc=0
    exec 3>&-
    for i in $(seq 1 600); do
        kill -0 "$BG_PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$BG_PID" 2>/dev/null; then
        kill -9 "$BG_PID" 2>/dev/null || true
        fail "$name: the JVM did not exit within 60 s after its input ended"
    fi
    wait "$BG_PID" || rc=$?
    BG_PID=""
    expect_eq "$name: exit status" "$want" "$rc"
    if grep -q WARNING "$name.out" "$name.err"; then
        fail "$name: -Xcheck:jni or the JVM printed a WARNING: $(grep -h WARNING "$name.out" "$name.err" | head -5)"
    fi
    if [ "$allow" != allow ] && grep -q "HPROF ERROR" "$name.err"; then
        fail "$name: unexpected HPROF ERROR: $(grep "HPROF ERROR" "$name.err" | head -3)"
    fi
}
nsections() {
    grep -c '^SITES BEGIN (' "$1" || true
}

# ---------------------------------------------------------------- the test
compile SitesDemo AttachDemo
D=SitesDemo.java
F_ITEM="SitesDemo.makeItems(SitesDemo.java:$(line_of $D SITE-ITEM))|SitesDemo.work(SitesDemo.java:$(line_of $D SITE-WORK-ITEMS))"
F_GARB="SitesDemo.makeGarbage(SitesDemo.java:$(line_of $D SITE-GARBAGE))|SitesDemo.work(SitesDemo.java:$(line_of $D SITE-WORK-GARBAGE))"
F_LATE="AttachDemo.late(AttachDemo.java:$(line_of AttachDemo.java SITE-LATE))"
F_LATET="AttachDemo.lateInThread(AttachDemo.java:$(line_of AttachDemo.java SITE-LATE-THREAD))"
T=4 N=5000 M=300 K=100 ITEM=24 GARB=16 LATE=16

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    JCMD=$JDK/bin/jcmd
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    A="-agentpath:$AGENT"
    DYN=""
    [ "$V" -ge 21 ] && DYN="-XX:+EnableDynamicAgentLoading" # else JDK 21+ warns on attach

    step "SIGQUIT while the program waits: a SITES section before exit"
    BG_NAME=q$V
    bg_start q$V "$A=heap=sites,file=$WORK/q$V.txt,doe=n,cutoff=0" -cp classes SitesDemo $T $N $M $K wait
    wait_for q$V.out '^ready ' 1
    expect_eq "q$V.txt: SITES sections before any dump" 0 "$(nsections q$V.txt)"
    kill -QUIT "$BG_PID"
    wait_for q$V.txt '^SITES END$' 1 30
    kill -0 "$BG_PID" 2>/dev/null || fail "the JVM exited after SIGQUIT"
    expect_eq "q$V.txt: SITES sections after SIGQUIT" 1 "$(nsections q$V.txt)"
    check_site q$V.txt 'SitesDemo$Item' "$F_ITEM" 0 $((T * N)) $((T * N * ITEM)) $((T * N)) $((T * N * ITEM))
    check_site q$V.txt 'SitesDemo$Garbage' "$F_GARB" 0 $((T * N)) $((T * N * GARB)) 0 0

    step "jcmd JVMTI.data_dump: a second SITES section, no TRACE block repeated"
    "$JCMD" "$BG_PID" JVMTI.data_dump >jd$V.out 2>&1 || fail "jcmd JVMTI.data_dump failed: $(cat jd$V.out)"
    wait_for q$V.txt '^SITES END$' 2 30
    check_site q$V.txt 'SitesDemo$Item' "$F_ITEM" 0 $((T * N)) $((T * N * ITEM)) $((T * N)) $((T * N * ITEM))
    send quit
    bg_end q$V 0 no
    expect_eq "q$V.txt: SITES sections at the end with doe=n" 2 "$(nsections q$V.txt)"
    check_layout q$V.txt
    grep -q '^Full thread dump' q$V.out || fail "SIGQUIT: the JVM's own thread dump is missing from stdout (the agent must not take the signal from the VM)"

    step "the same in binary, doe=y: one ALLOC SITES per dump, hprof verify"
    BG_NAME=qb$V
    bg_start qb$V "$A=heap=sites,format=b,file=$WORK/qb$V.hprof" -cp classes SitesDemo $T $N $M $K wait
    wait_for qb$V.out '^ready ' 1
    kill -QUIT "$BG_PID"
    wait_records qb$V.hprof "ALLOC SITES" 1
    "$JCMD" "$BG_PID" JVMTI.data_dump >jdb$V.out 2>&1 || fail "jcmd JVMTI.data_dump failed: $(cat jdb$V.out)"
    wait_records qb$V.hprof "ALLOC SITES" 2
    "$HPROF" verify qb$V.hprof >qb$V.verify1 2>&1 || fail "hprof verify of the running JVM's qb$V.hprof: $(tail -5 qb$V.verify1)"
    send quit
    bg_end qb$V 0 no
    "$HPROF" verify qb$V.hprof >qb$V.verify 2>&1 || fail "hprof verify qb$V.hprof: $(tail -5 qb$V.verify)"
    "$HPROF" info qb$V.hprof >qb$V.info
    expect_eq "qb$V.hprof: ALLOC SITES records (SIGQUIT, jcmd, exit)" 3 "$(awk '/^ALLOC SITES/ {print $3}' qb$V.info)"
    echo "   ok: 3 ALLOC SITES, verify clean"

    step "attach with jcmd JVMTI.agent_load, then allocations in main and in a new thread"
    BG_NAME=at$V
    bg_start at$V $DYN -cp classes AttachDemo
    wait_for at$V.out '^waiting ' 1
    "$JCMD" "$BG_PID" JVMTI.agent_load "$AGENT" "\"heap=sites,file=$WORK/at$V.txt,cutoff=0\"" >jl$V.out 2>&1 ||
        fail "jcmd JVMTI.agent_load failed: $(cat jl$V.out)"
    grep -q 'return code: 0' jl$V.out || fail "jcmd JVMTI.agent_load: expected 'return code: 0', got: $(cat jl$V.out)"
    [ -f at$V.txt ] || fail "after the attach there is no output file at$V.txt"
    send warm
    wait_for at$V.out '^warm done' 1
    send "alloc 10000"
    wait_for at$V.out '^alloc done' 1
    send "thread 7000"
    wait_for at$V.out '^thread done' 1
    "$JCMD" "$BG_PID" JVMTI.data_dump >jd2$V.out 2>&1 || fail "jcmd JVMTI.data_dump failed: $(cat jd2$V.out)"
    wait_for at$V.txt '^SITES END$' 1 30
    check_site at$V.txt 'AttachDemo$Late' "$F_LATE" 0 10000 $((10000 * LATE)) 10000 $((10000 * LATE))
    check_site at$V.txt 'AttachDemo$Late' "$F_LATET" 0 7000 $((7000 * LATE)) 7000 $((7000 * LATE))
    grep -q '^THREAD START (obj=[0-9a-f]*, id = [0-9]*, name="late-thread", group="main")$' at$V.txt ||
        fail "at$V.txt: no THREAD START for late-thread (started after the attach)"

    step "a second agent_load is refused; the JVM goes on"
    "$JCMD" "$BG_PID" JVMTI.agent_load "$AGENT" "\"heap=sites,file=$WORK/at2$V.txt\"" >jl2$V.out 2>&1 || true
    if grep -q 'return code: 0' jl2$V.out; then fail "the second agent_load reported success: $(cat jl2$V.out)"; fi
    wait_for at$V.err 'HPROF ERROR.*already loaded' 1 10
    [ ! -e at2$V.txt ] || fail "the refused second load created its output file at2$V.txt"
    send "alloc 10000"
    wait_for at$V.out '^alloc done' 2
    send quit
    bg_end at$V 0 allow
    expect_eq "at$V: HPROF ERROR lines (only the refused second load)" 1 "$(grep -c 'HPROF ERROR' at$V.err)"
    expect_eq "at$V.txt: SITES sections (data_dump, exit)" 2 "$(nsections at$V.txt)"
    check_layout at$V.txt
    grep -qi 'attached' at$V.txt || fail "at$V.txt: the header does not say the agent was attached (and from when counts are exact)"
    check_site at$V.txt 'AttachDemo$Late' "$F_LATE" 0 20000 $((20000 * LATE)) 20000 $((20000 * LATE))
    echo "   jcmd said: $(grep -v '^[0-9]*:$' jl2$V.out | head -2 | tr '\n' ' ')"

    step "attach in binary: hprof verify"
    BG_NAME=ab$V
    bg_start ab$V $DYN -cp classes AttachDemo
    wait_for ab$V.out '^waiting ' 1
    "$JCMD" "$BG_PID" JVMTI.agent_load "$AGENT" "\"heap=sites,format=b,file=$WORK/ab$V.hprof\"" >jl3$V.out 2>&1 ||
        fail "jcmd JVMTI.agent_load (format=b) failed: $(cat jl3$V.out)"
    send warm
    send "alloc 1000"
    wait_for ab$V.out '^alloc done' 1
    send quit
    bg_end ab$V 0 no
    "$HPROF" verify ab$V.hprof >ab$V.verify 2>&1 || fail "hprof verify ab$V.hprof: $(tail -5 ab$V.verify)"
    "$HPROF" info ab$V.hprof | grep -qE '^ALLOC SITES +1 ' || fail "ab$V.hprof: expected 1 ALLOC SITES record"
done
CTX=""
if [ "$FAILURES" -gt 0 ]; then
    echo "$FAILURES failure(s)" >&2
    exit 1
fi
echo "all agent dump and attach checks passed on:$FOUND_JDKS"
