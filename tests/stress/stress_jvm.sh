#!/usr/bin/env bash
# stress_jvm.sh: the JVM under the agent in the situations that once froze
# it or cut its output (each case several runs per JDK, see stress_lib.sh):
#  exit-churn-MODE-FMT  System.exit from another thread under GC churn in a
#                       12 MB heap, for heap=sites|dump|all, text and binary;
#                       and with ZGC and Shenandoah; SIGQUIT storms with ZGC
#                       (long tier: with Shenandoah, Serial and Parallel too)
#  gc-flood-*           System.gc() in a loop while the CPU sampler takes a
#                       sample every ms
#  jcmd-storm-*         jcmd JVMTI.data_dump again and again while allocating,
#                       the sampler on
#  sigquit-storm-*      SIGQUIT again and again while allocating, the sampler on,
#                       and System.exit while they arrive
#  exit-in-dump         System.exit from another thread while a heap dump runs
#  exit-in-dump-redact  the same with redact=y
#  classes-dumps(-a)    heap dumps while classes load and unload all the time:
#                       every dump file verifies (classes, ids, serials); text
#  forcegc-flood        a front end (hprof-ctl) sending FORCE GC again and
#                       again, the sampler on, then EXIT
#  hsdump-*             heap=dump (HotSpot's dumper, called by the agent, which
#                       releases its lock meanwhile): System.exit while a dump
#                       runs (binary, text), SIGQUIT and jcmd storms, and a
#                       net= front end that asks for a dump and goes away
#                       while it is made (hsdump-peer-gone)
#  hsdump-parallel-*    heap=dump through the JVM's attach listener (JDK 21+:
#                       GC.heap_dump -parallel=N): the exit's dump, SIGQUITs,
#                       SIGQUITs and jcmd JVMTI.data_dumps at once;
#                       hsdump-noattach-*: -XX:+DisableAttachMechanism
# Each run must exit by its deadline with the program's status, without an
# HPROF ERROR, and leave complete outputs (text: the last section's END line;
# binary: `hprof verify` clean, every heap dump file).
#
# usage: bash stress_jvm.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO HPROF_CTL
# Env: STRESS_TIER=quick|long, STRESS_RUNS, HPROF_TEST_JDKS, STRESS_CASES (a
# regular expression: only the cases whose name matches).
set -uo pipefail

# shellcheck source=stress_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/stress_lib.sh" "$@"

if [ "${STRESS_TIER:-quick}" = long ]; then STORM=40 FLOOD=3000; else STORM=10 FLOOD=400; fi

# run_case CASE DEADLINE STATUS ACTION CHECK JAVA_ARGS... ('@' in JAVA_ARGS
# stands for the run's name): RUNS runs on each JDK; CHECK is a function
# called after an ok run with the run's name in $R.
run_case() {
    local name=$1 deadline=$2 status=$3 action=$4 check=$5
    shift 5
    if [ -n "${STRESS_CASES:-}" ] && ! [[ $name =~ $STRESS_CASES ]]; then return 0; fi
    local jdk v i ok frozen bad
    for jdk in $FOUND_JDKS; do
        v=$(jdk_version "$jdk")
        ok=0 frozen=0 bad=0
        for ((i = 1; i <= RUNS; i++)); do
            R=$name-$v-$i
            rm -rf "$R".*
            local args=() a
            for a in "$@"; do args+=("${a//@/$R}"); done
            srun "$R" "$deadline" "$status" "$action" "$jdk" "${args[@]}"
            [ "$RESULT" = ok ] && $check
            case $RESULT in
            ok) ok=$((ok + 1)); rm -rf "$R".* ;;
            frozen) frozen=$((frozen + 1)); echo "FAIL [$name JDK $v run $i]: frozen: $WHY" >&2 ;;
            *) bad=$((bad + 1)); echo "FAIL [$name JDK $v run $i]: $WHY" >&2 ;;
            esac
        done
        case_report "$name" "$v" "$RUNS" "$ok" "$frozen" "$bad"
    done
}

A="-agentpath:$AGENT"
CP="-cp $WORK/classes"

# ------------------------------------------------------- actions, checks
no_action() { :; }
# each jcmd returns once its dump is written: STORM dumps, then the exit's
jcmd_storm() {
    local k
    for ((k = 0; k < STORM; k++)); do
        timeout 30 "$jdk/bin/jcmd" "$PID" JVMTI.data_dump >/dev/null 2>&1 || break
    done
    MIN_DUMPS=$((k + 1))
    [ $k = "$STORM" ] || echo "   note: jcmd $((k + 1)) of $STORM failed" >&2
    touch "$R.stop"
}
# SIGQUITs every 20 ms; halfway, the program calls System.exit while they
# go on arriving
quit_storm() {
    local k
    for ((k = 0; k < STORM * 3; k++)); do
        kill -QUIT "$PID" 2>/dev/null || break
        [ $k = $((STORM * 3 / 2)) ] && touch "$R.stop"
        sleep 0.02
    done
    MIN_DUMPS=2 # signals coalesce: at least one storm dump and the exit's
    touch "$R.stop"
}
# a dump, and System.exit while it runs
quit_then_exit() {
    kill -QUIT "$PID"
    sleep 0.05
    touch "$R.stop"
}
quit_spaced() {
    local k
    for ((k = 0; k < STORM; k++)); do
        kill -QUIT "$PID" 2>/dev/null || break
        sleep 0.15
    done
    MIN_DUMPS=2
    touch "$R.stop"
}
# every SITES row: live bytes <= allocated bytes, live objects <= allocated
# (columns: rank self accum live-bytes live-objs alloc-bytes alloc-objs ...)
check_rows() {
    [ "$RESULT" = ok ] || return 0
    local badrow
    badrow=$(awk '/^SITES BEGIN/ { s = 1; next } /^SITES END/ { s = 0 }
        s && $1 ~ /^[0-9]+$/ && ($4 + 0 > $6 + 0 || $5 + 0 > $7 + 0) { print; exit }' "$R.txt")
    [ -z "$badrow" ] || { RESULT=bad; WHY="$R.txt: a row with more live than allocated: $badrow"; }
}
check_sites_txt() { check_text "$R.txt" SITES; check_rows; }
check_sites_cpu_txt() { check_text "$R.txt" SITES "CPU SAMPLES"; check_rows; }
check_dump_txt() { check_text "$R.txt" "HEAP DUMP"; }
check_dump_cpu_txt() { check_text "$R.txt" "HEAP DUMP" "CPU SAMPLES"; }
# the output and every later heap dump file (R.hprof.2, .3, ...)
check_bin() { verify_bin "$R.hprof" $(ls "$R".hprof.[0-9]* 2>/dev/null | grep -v verify); }
# ... and every one of them opens in VisualVM's heap library (Debian's
# visualvm, an independent reader), every reference resolving
VVM_JAR=${VISUALVM_HEAP_JAR:-/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar}
[ -f "$VVM_JAR" ] || { echo "FAIL: no VisualVM heap library at $VVM_JAR (scripts/deps.sh installs visualvm)" >&2; exit 1; }
mkdir -p vvm
"$FIRST_JDK/bin/javac" --release 17 -cp "$VVM_JAR" -d vvm "$SRC/tests/integration/VvmCheck.java" ||
    { echo "FAIL: javac VvmCheck.java" >&2; exit 1; }
check_bin_vvm() {
    check_bin_heap
    [ "$RESULT" = ok ] || return 0
    local f
    for f in "$R".hprof "$R".hprof.[0-9]*; do
        case $f in *.verify | *.hwcache) continue ;; esac
        [ -f "$f" ] || continue
        if ! "$FIRST_JDK/bin/java" -cp "$VVM_JAR:vvm" VvmCheck "$f" --check-refs >"$f.vvm" 2>&1; then
            RESULT=bad
            WHY="VisualVM on $f: $(grep -v '^  ok' "$f.vvm" | tail -3 | tr '\n' ';')"
            return
        fi
    done
}
# ... and they hold at least MIN_DUMPS heap dumps (one per file)
check_bin_heap() {
    check_bin
    [ "$RESULT" = ok ] || return 0
    local f n=0
    for f in "$R".hprof "$R".hprof.[0-9]*; do
        case $f in *.verify) continue ;; esac
        [ -f "$f" ] && "$HPROF" info "$f" 2>/dev/null | grep -qE '^HEAP DUMP END +1 ' && n=$((n + 1))
    done
    [ "$n" -ge "$MIN_DUMPS" ] || { RESULT=bad; WHY="$n heap dumps, at least $MIN_DUMPS expected"; }
}

# check_hs_route WHAT: check_bin_heap, and on JDK 21+ a dump made by WHAT
# (a regular expression of the agent's verbose note)
check_hs_route() {
    check_bin_heap
    [ "$RESULT" = ok ] || return 0
    if [ "$v" -ge 21 ] && ! grep -qE "$HS_ROUTE" "$R.err"; then
        RESULT=bad
        WHY="no dump by '$HS_ROUTE': $(grep -o '(heap dump [^)]*)' "$R.err" | tail -3 | tr '\n' ';')"
    fi
}
listener_quits() { # a jcmd starts the listener, then SIGQUITs
    timeout 30 "$jdk/bin/jcmd" "$PID" VM.version >/dev/null 2>&1
    quit_spaced
}
quits_and_jcmds() { # SIGQUITs in the background, jcmd data dumps meanwhile
    local k
    (for ((k = 0; k < STORM; k++)); do kill -QUIT "$PID" 2>/dev/null || break; sleep 0.07; done) &
    local qp=$!
    for ((k = 0; k < STORM / 2; k++)); do
        timeout 60 "$jdk/bin/jcmd" "$PID" JVMTI.data_dump >/dev/null 2>&1 || break
    done
    wait $qp
    MIN_DUMPS=2
    touch "$R.stop"
}

# ------------------------------------------------------------ the cases
for mode in sites dump all; do
    for fmt in a b; do
        if [ $fmt = a ]; then
            out="file=@.txt"
            if [ $mode = dump ]; then chk=check_dump_txt; else chk=check_sites_txt; fi
        else
            out="file=@.hprof"
            if [ $mode = sites ]; then chk=check_bin; else chk=check_bin_heap; fi
        fi
        # heap=dump is HotSpot's dump: verified as HotSpot's (CDS dangling-refs)
        vo=""; [ $mode = dump ] && vo=--hotspot
        VERIFY_OPTS=$vo run_case exit-churn-$mode-$fmt 60 42 no_action $chk \
            -Xmx12m "$A=heap=$mode,format=$fmt,$out" $CP StressDemo churn 3 800 42
    done
done

# the concurrent collectors: HotSpot stops their control threads before it
# posts VMDeath (a forced GC then would wait forever)
for gcv in ZGC ShenandoahGC; do
    run_case exit-churn-$gcv-sites-a 60 42 no_action check_sites_txt \
        -XX:+Use$gcv -Xmx64m "$A=heap=sites,format=a,file=@.txt" $CP StressDemo churn 3 800 42
    run_case exit-churn-$gcv-all-b 60 42 no_action check_bin_heap \
        -XX:+Use$gcv -Xmx64m "$A=heap=all,format=b,file=@.hprof" $CP StressDemo churn 3 800 42
    # their dumps' listener is started at start-up, never at VM death (the
    # start allocates: it would wait for the stopped collector)
    HS_ROUTE='heap dump [0-9]+: GC.heap_dump -all -parallel=[0-9]+ \[[0-9]+ bytes in [0-9.]+ secs\], through' VERIFY_OPTS=--hotspot \
        run_case hsdump-exit-churn-$gcv-b 60 42 no_action check_hs_route \
        -XX:+Use$gcv -Xmx64m "$A=heap=dump,format=b,file=@.hprof" $CP StressDemo churn 3 800 42
done
# (ZGC in every tier: a SIGQUIT dump's GC still running when System.exit
# came froze 3 of 8 JVMs on JDK 17 until the agent stopped forcing GCs there)
if [ "${STRESS_TIER:-quick}" = long ]; then GCS="ZGC ShenandoahGC SerialGC ParallelGC"; else GCS=ZGC; fi
if true; then
    for gcv in $GCS; do
        run_case sigquit-storm-$gcv 120 0 quit_storm check_sites_cpu_txt -XX:+Use$gcv -Xmx64m \
            "$A=heap=sites,cpu=samples,interval=1,file=@.txt" $CP StressDemo churn 3 60000 0 @.stop
    done
fi

# quick: two modes; long: every heap mode, text and binary
if [ "${STRESS_TIER:-quick}" = long ]; then FLOODS="sites-a sites-b dump-a dump-b all-a all-b"; else FLOODS="sites-a all-b"; fi
for mf in $FLOODS; do
    mode=${mf%-*} fmt=${mf#*-}
    if [ $fmt = b ] && [ $mode = sites ]; then out="file=@.hprof" chk=check_bin
    elif [ $fmt = b ]; then out="file=@.hprof" chk=check_bin_heap
    elif [ $mode = dump ]; then out="file=@.txt" chk=check_dump_cpu_txt
    else out="file=@.txt" chk=check_sites_cpu_txt; fi
    vo=""; [ $mode = dump ] && vo=--hotspot
    VERIFY_OPTS=$vo run_case gc-flood-$mf 90 0 no_action $chk \
        -Xmx32m "$A=heap=$mode,format=$fmt,cpu=samples,interval=1,$out" $CP StressDemo gc 3 2000 0
done

run_case jcmd-storm-sites 120 0 jcmd_storm check_sites_cpu_txt \
    -Xmx32m "$A=heap=sites,cpu=samples,interval=1,file=@.txt" $CP StressDemo churn 3 60000 0 @.stop
run_case jcmd-storm-all-b 120 0 jcmd_storm check_bin_heap \
    -Xmx32m "$A=heap=all,format=b,cpu=samples,interval=1,file=@.hprof" $CP StressDemo churn 3 60000 0 @.stop

# heap=sites alone: threads come and go (their weak-reference lists orphaned
# and adopted, agent/wlive.c) while the storm counts them
run_case jcmd-storm-threads-sites 120 0 jcmd_storm check_sites_cpu_txt \
    -Xmx32m "$A=heap=sites,cpu=samples,interval=1,file=@.txt" $CP StressDemo threads 2 60000 0 @.stop
run_case exit-churn-threads-sites-b 60 42 no_action check_bin \
    -Xmx12m "$A=heap=sites,format=b,file=@.hprof" $CP StressDemo threads 2 800 42

run_case sigquit-storm-sites 120 0 quit_storm check_sites_cpu_txt \
    -Xmx32m "$A=heap=sites,cpu=samples,interval=1,file=@.txt" $CP StressDemo churn 3 60000 0 @.stop
run_case sigquit-storm-dump-a 120 0 quit_storm check_dump_cpu_txt \
    -Xmx32m "$A=heap=dump,cpu=samples,interval=1,file=@.txt" $CP StressDemo churn 3 60000 0 @.stop

run_case exit-in-dump 90 7 quit_then_exit check_bin_heap \
    -Xmx64m "$A=heap=all,format=b,file=@.hprof" $CP StressDemo churn 3 60000 7 @.stop

# redact=y: values zeroed inside the walk's callbacks; the same exit race
run_case exit-in-dump-redact 90 7 quit_then_exit check_bin_heap \
    -Xmx64m "$A=heap=all,format=b,redact=y,file=@.hprof" $CP StressDemo churn 3 60000 7 @.stop

run_case classes-dumps 120 0 quit_spaced check_bin_vvm \
    -Xmx64m "$A=heap=all,format=b,file=@.hprof" $CP StressDemo classes 2 60000 0 @.stop

run_case classes-dumps-a 120 0 quit_spaced check_dump_txt \
    -Xmx64m "$A=heap=dump,format=a,file=@.txt" $CP StressDemo classes 2 60000 0 @.stop

# heap=dump: HotSpot's dumper, whose dumps are verified as HotSpot's
# (--hotspot: with CDS, and now and then at exit, they name objects they do
# not hold; docs/heap-dump.md)
VERIFY_OPTS=--hotspot run_case hsdump-exit-in-dump-b 90 7 quit_then_exit check_bin_heap \
    -Xmx64m "$A=heap=dump,format=b,file=@.hprof" $CP StressDemo churn 3 60000 7 @.stop
run_case hsdump-exit-in-dump-a 90 7 quit_then_exit check_dump_txt \
    -Xmx64m "$A=heap=dump,format=a,file=@.txt" $CP StressDemo churn 3 60000 7 @.stop
VERIFY_OPTS=--hotspot run_case hsdump-sigquit-storm-b 120 0 quit_storm check_bin_heap \
    -Xmx32m "$A=heap=dump,format=b,cpu=samples,interval=1,file=@.hprof" $CP StressDemo churn 3 60000 0 @.stop
VERIFY_OPTS=--hotspot run_case hsdump-jcmd-storm-b 120 0 jcmd_storm check_bin_heap \
    -Xmx32m "$A=heap=dump,format=b,file=@.hprof" $CP StressDemo churn 3 60000 0 @.stop

# heap=dump through the JVM's own attach listener (GC.heap_dump -parallel=N
# on JDK 21+, agent/hsattach.h): the exit's dump under churn (the agent
# starts the listener at VM death); SIGQUITs once a jcmd started the
# listener (the dumps run on the signal dispatcher); SIGQUITs and jcmd
# JVMTI.data_dumps at once (a data_dump runs on the listener thread and may
# wait for a dump that has sent its request to that very listener: the
# request is given up, dumpHeap0 makes the dump); -XX:+DisableAttachMechanism
# (a SIGQUIT is a thread dump and a data dump: dumpHeap0, never a wait)
HS_ROUTE='heap dump [0-9]+: GC.heap_dump -all -parallel=[0-9]+ \[[0-9]+ bytes in [0-9.]+ secs\], through' VERIFY_OPTS=--hotspot \
    run_case hsdump-parallel-exit-churn-b 60 42 no_action check_hs_route \
    -Xmx64m "$A=heap=dump,format=b,file=@.hprof" $CP StressDemo churn 3 800 42
HS_ROUTE='heap dump [0-9]+: GC.heap_dump -parallel=[0-9]+ \[[0-9]+ bytes in [0-9.]+ secs\], through' VERIFY_OPTS=--hotspot \
    run_case hsdump-parallel-sigquit-b 120 0 listener_quits check_hs_route \
    -Xmx64m "$A=heap=dump,format=b,file=@.hprof" $CP StressDemo churn 3 60000 0 @.stop
HS_ROUTE='heap dump [0-9]+: HotSpotDiagnosticMXBean.dumpHeap, one thread: the request came through the attach listener itself' \
    VERIFY_OPTS=--hotspot run_case hsdump-parallel-data-dump-mix-b 150 0 quits_and_jcmds check_hs_route \
    -Xmx64m "$A=heap=dump,format=b,file=@.hprof" $CP StressDemo churn 3 60000 0 @.stop
HS_ROUTE='heap dump [0-9]+: HotSpotDiagnosticMXBean.dumpHeap, one thread: -XX:\+DisableAttachMechanism' VERIFY_OPTS=--hotspot \
    run_case hsdump-noattach-sigquit-b 120 0 quit_spaced check_hs_route \
    -XX:+DisableAttachMechanism -Xmx64m "$A=heap=dump,format=b,file=@.hprof" $CP StressDemo churn 3 60000 0 @.stop

# a front end that asks for a heap dump at once and closes the connection
# while it is made: the program goes on and ends with its own status; the
# only HPROF ERRORs say that the front end went away
cat >peer_gone.py <<'EOF'
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 0))
s.listen(1)
open(sys.argv[1], "w").write("%d\n" % s.getsockname()[1])
c, _ = s.accept()
c.recv(64)                                    # the header has come: the agent runs
c.sendall(struct.pack(">BII", 0x02, 1, 0))    # DUMP HEAP, serial 1, no body
time.sleep(float(sys.argv[2]))                # the dump is under way
c.close()
EOF
if [ -z "${STRESS_CASES:-}" ] || [[ hsdump-peer-gone =~ $STRESS_CASES ]]; then
    peer_action() { :; }
    for jdk in $FOUND_JDKS; do
        v=$(jdk_version "$jdk")
        ok=0 frozen=0 bad=0
        for ((i = 1; i <= RUNS; i++)); do
            R=hsdump-peer-gone-$v-$i
            rm -rf "$R".*
            python3 peer_gone.py "$R.port" "0.0$i" >"$R.peer" 2>&1 &
            PPID_=$!
            for ((w = 0; w < 50; w++)); do [ -s "$R.port" ] && break; sleep 0.1; done
            SRUN_ALLOW='^HPROF ERROR: (net=localhost:[0-9]+: the front end closed the connection.*|writing net=localhost:[0-9]+ failed: .+)$' \
                srun "$R" 90 0 peer_action "$jdk" -Xmx64m \
                "$A=net=localhost:$(cat "$R.port"),heap=dump,format=b,nettimeout=3" $CP StressDemo churn 3 3000 0
            wait "$PPID_" 2>/dev/null
            case $RESULT in
            ok) ok=$((ok + 1)); rm -rf "$R".* ;;
            frozen) frozen=$((frozen + 1)); echo "FAIL [hsdump-peer-gone JDK $v run $i]: frozen: $WHY" >&2 ;;
            *) bad=$((bad + 1)); echo "FAIL [hsdump-peer-gone JDK $v run $i]: $WHY" >&2 ;;
            esac
        done
        case_report hsdump-peer-gone "$v" "$RUNS" "$ok" "$frozen" "$bad"
    done
fi

# a front end sending FORCE GC over and over, then EXIT
forcegc_action() { :; }
if [ -n "${STRESS_CASES:-}" ] && ! [[ forcegc-flood =~ $STRESS_CASES ]]; then
    :
elif [ -n "$CTL" ] && [ -x "$CTL" ]; then
    # the program allocates by then (it starts in well under 1.5 s)
    { echo "sleep 1500"; for ((k = 0; k < FLOOD; k++)); do echo gc; done; echo exit; } >flood.cmds
    forcegc_check() {
        wait "$CPID" 2>/dev/null
        grep -qx ready "$R.out" || { RESULT=bad; WHY="the flood ended the program before it allocated"; return; }
        verify_bin "$R.recv.hprof"
    }
    for jdk in $FOUND_JDKS; do
        v=$(jdk_version "$jdk")
        ok=0 frozen=0 bad=0
        for ((i = 1; i <= RUNS; i++)); do
            R=forcegc-flood-$v-$i
            rm -rf "$R".*
            "$CTL" listen 0 --port-file "$R.port" --script flood.cmds --agents 1 \
                --out "$R.recv.hprof" >"$R.ctl.out" 2>"$R.ctl.err" &
            CPID=$!
            for ((w = 0; w < 50; w++)); do [ -s "$R.port" ] && break; sleep 0.1; done
            srun "$R" 120 0 forcegc_action "$jdk" -Xmx32m \
                "$A=net=localhost:$(cat "$R.port"),heap=sites,format=b,cpu=samples,interval=1" \
                $CP StressDemo churn 3 120000 0
            [ "$RESULT" = ok ] && forcegc_check
            kill "$CPID" 2>/dev/null
            wait "$CPID" 2>/dev/null
            case $RESULT in
            ok) ok=$((ok + 1)); rm -rf "$R".* ;;
            frozen) frozen=$((frozen + 1)); echo "FAIL [forcegc-flood JDK $v run $i]: frozen: $WHY" >&2 ;;
            *) bad=$((bad + 1)); echo "FAIL [forcegc-flood JDK $v run $i]: $WHY" >&2 ;;
            esac
        done
        case_report forcegc-flood "$v" "$RUNS" "$ok" "$frozen" "$bad"
    done
else
    echo "FAIL: no hprof-ctl given: the forcegc-flood case cannot run" >&2
    FAILED=$((FAILED + 1))
fi

stress_end
