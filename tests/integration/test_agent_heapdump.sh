#!/usr/bin/env bash
# test_agent_heapdump.sh: heap dumps on real JVMs (JDK 17 and 25, -Xcheck:jni).
# heap=dump is HotSpot's own dumper called by the agent (agent/hsdump.h):
#  - its dump (jcmd JVMTI.data_dump) against jcmd GC.heap_dump of the same
#    moment: verify clean, the program's classes equal, HotSpot's records
#    only, VisualVM reads HeapDemo's graph back, ids are addresses (8-byte
#    aligned: no tag of the agent's); these JVMs run with -Xshare:off: with
#    CDS, HotSpot's dumps name archived objects they do not hold, which the
#    verifier warns of (docs/heap-dump.md);
# heap=all is the JVMTI walk (agent/heapdump.h), tested side by side with
# the dump HotSpot itself makes of the same program at the same moment
# (jcmd GC.heap_dump), read by an independent reader (Debian's VisualVM heap
# library, tests/integration/VvmCheck.java):
#  - HeapDemo holds a known graph (N Items with a field of every type, M
#    SubItems, arrays of every type, strings, statics, an Item[] with 5
#    trailing nulls, 3 Markers held only in a parked thread's locals);
#  - our dump (jcmd JVMTI.data_dump) passes `hprof verify` with no warning;
#  - `hprof histo` of our dump equals HotSpot's exactly for the program's
#    own classes (instances and bytes), and within 10 % overall (our dump
#    also holds the mirrors of CDS-archived classes that are not loaded,
#    which HotSpot's dumper leaves out as dangling references);
#  - VisualVM reads every field value back as set, the statics, the arrays,
#    the trailing nulls, the Markers' JAVA FRAME roots on the parked thread,
#    and resolves every reference; the same checks pass on HotSpot's dump
#    (so they are not checks only our writer satisfies);
#  - heap=all: Items carry their allocation trace (checked with `hprof
#    print`'s OBJ lines against the TRACE of HeapDemo.main at the new);
#  - idsize=4 and the dump at exit (doe=y) verify and read back too;
#  - format=a (heap=dump,format=a, and no option at all: heap=all,format=a,
#    dumped on SIGQUIT): the jcmd/SIGQUIT dump and the exit dump are two
#    complete HEAP DUMP BEGIN ... END sections of the one text file, read by
#    textdump_check.py (independent of the project's reader): every line
#    matches the original's ROOT/CLS/OBJ/ARR grammar, BEGIN counts the
#    lines, every id and trace resolves (each TRACE printed once, before its
#    first use), HeapDemo's graph reads back (ITEMS with its trailing nulls,
#    next chains, names, SUBS' peers, the statics, the arrays, the Markers
#    on parked-holder's stack), the OBJ/ARR counts and bytes of the
#    program's classes equal `hprof histo` of the format=b dump, and with
#    heap=all the Items carry their allocation trace; the SITES sections
#    around them keep their layout; a file size limit (ulimit -f) that the
#    dump's temporary file hits: an HPROF ERROR saying the dump is
#    incomplete, exit 0, and the section says HEAP DUMP INCOMPLETE (why,
#    and what it holds) just before its HEAP DUMP END;
#    in binary, a size limit the dump itself hits: an HPROF ERROR, exit 0,
#    and a file the reader explains as one truncated record.
#
#  - the shape HotSpot's readers expect, against HotSpot's dump of the same
#    moment (MirrorDemo; HeapDemo's too): only the root kinds HotSpot writes
#    (JNI GLOBAL, JNI LOCAL, JAVA FRAME, STICKY CLASS, THREAD OBJECT), and
#    with shape=original the original's (ROOT UNKNOWN among them); the same
#    super class for every class (interfaces: java.lang.Object), and a
#    loader wherever HotSpot's names one, by dump_compare.py over `hprof
#    print`; objects held only by Class objects'
#    own fields: the 20 ClassValue values (MirrorDemo$Val) and the
#    reflection caches (as many Field and Method objects as HotSpot's);
#    int.class an instance of java.lang.Class named "int" (VisualVM);
#    as many JNI LOCAL roots as HotSpot's (none of the agent's own);
#  - JDK 21+: MirrorDemo's two virtual threads (one mounted, spinning, one
#    parked), each holding a MirrorDemo$VMarker in a local: the markers are
#    JAVA FRAME roots of threads whose THREAD OBJECT is the virtual thread,
#    at the frames HotSpot's dump names, and the mounted one's TRACE is
#    HotSpot's (dump_compare.py --vthread-roots);
#
# usage: bash test_agent_heapdump.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

JAR=${VISUALVM_HEAP_JAR:-/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar}
[ -f "$JAR" ] || fail "VisualVM's heap library is missing: $JAR (apt-get install visualvm)"
compile HeapDemo MirrorDemo
mkdir -p vvm
"$FIRST_JDK/bin/javac" -cp "$JAR" -d vvm "$SRC/tests/integration/VvmCheck.java" || fail "javac VvmCheck"
N=2000 M=70
# (the agent's verbose note: "(heap dump K: GC.heap_dump ARGS [N bytes in S
# secs], through the JVM's attach listener)", HotSpot's figures in brackets)
# the CPUs this process may use, as HotSpot (and the agent's -parallel=N) count them
NCPU=$(nproc)
if [ -r /sys/fs/cgroup/cpu.max ]; then
    q=$(awk '$1 != "max" { print int(($1 + $2 - 1) / $2) }' /sys/fs/cgroup/cpu.max)
    [ -n "$q" ] && [ "$q" -lt "$NCPU" ] && NCPU=$q
fi
LNEW=$(grep -n 'ITEMS\[i\] = item(new Item(), i);' "$SRC/demo-java/HeapDemo.java" | cut -d: -f1)

vvm() {
    "$FIRST_JDK/bin/java" -cp "$JAR:vvm" VvmCheck "$@"
}

# run_demo NAME AGENT_OPTS: starts HeapDemo (or $DEMO) under the agent (AGENT_OPTS may
# be empty: no options at all), waits for "ready", then: jcmd GC.heap_dump
# NAME.hotspot.hprof (unless NOHS=1) and our dump (jcmd JVMTI.data_dump, or
# kill -QUIT with SIGNAL=QUIT), then closes its stdin; checks exit 0, no
# JNI warning, no HPROF ERROR
run_demo() {
    local name=$1 opts=$2
    rm -f "$name".* fifo.$name
    mkfifo fifo.$name
    # shellcheck disable=SC2086 # DEMO: the class and its arguments
    # shellcheck disable=SC2086 # JOPTS: JVM options (-Xshare:off)
    timeout 120 "$JAVA" -Xcheck:jni -Xmx512m ${JOPTS:-} "-agentpath:$AGENT${opts:+=$opts}" -cp classes ${DEMO:-HeapDemo $N $M 90} \
        <fifo.$name >"$name.out" 2>"$name.err" &
    local pid=$!
    exec 7>fifo.$name # holds the demo's stdin open
    local jpid # the JVM itself, child of timeout
    jpid=$(await_ready "$name" HeapDemo $pid)
    RUN_JPID=$jpid # the JVM of the last run_demo, for the checks after it
    if [ "${NOHS:-0}" != 1 ]; then
        "$JDK/bin/jcmd" $jpid GC.heap_dump "$WORK/$name.hotspot.hprof" >"$name.jcmd1" ||
            fail "jcmd GC.heap_dump: $(cat "$name.jcmd1")"
    fi
    if [ "${SIGNAL:-}" = QUIT ]; then
        sleep "${QUIT_DELAY:-0}"
        kill -QUIT $jpid
    else
        "$JDK/bin/jcmd" $jpid JVMTI.data_dump >"$name.jcmd2" || fail "jcmd JVMTI.data_dump: $(cat "$name.jcmd2")"
    fi
    for _ in $(seq 1 300); do # the dump is done when the agent says so
        grep -q 'done\.' "$name.err" 2>/dev/null && break
        sleep 0.1
    done
    exec 7>&- # EOF on stdin: the demo ends
    local rc=0
    wait $pid || rc=$?
    rm -f fifo.$name
    [ $rc = 0 ] || fail "$name: java exited $rc: $(head -5 "$name.err")"
    ! grep -q WARNING "$name.out" "$name.err" || fail "$name: a WARNING: $(grep -h WARNING "$name.out" "$name.err" | head -3)"
    ! grep -q "HPROF ERROR" "$name.err" || fail "$name: $(grep "HPROF ERROR" "$name.err" | head -3)"
}

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"

    step "heap=dump (HotSpot's dumper, called by the agent) and jcmd GC.heap_dump of the same moment"
    JOPTS=-Xshare:off run_demo h$V "heap=dump,format=b,doe=n,file=$WORK/h$V.hprof"
    "$HPROF" verify h$V.hprof >h$V.verify || fail "hprof verify: $(tail -5 h$V.verify)"
    grep -q ': 0 error(s), 0 warning(s)$' h$V.verify || fail "hprof verify: $(tail -3 h$V.verify)"
    "$HPROF" histo h$V.hprof >h$V.histo && "$HPROF" histo h$V.hotspot.hprof >h$V.hs.histo || fail "hprof histo"
    for cls in 'HeapDemo$Item' 'HeapDemo$SubItem' 'HeapDemo$Marker' '[LHeapDemo$Item;' '[LHeapDemo$SubItem;' '[[I'; do
        ours=$(awk -v c="$cls" '$4 == c { print $2, $3 }' h$V.histo)
        theirs=$(awk -v c="$cls" '$4 == c { print $2, $3 }' h$V.hs.histo)
        [ -n "$ours" ] || fail "no $cls in the heap=dump histogram"
        expect_eq "$cls instances and bytes (heap=dump vs jcmd's)" "$theirs" "$ours"
    done
    expect_eq "HeapDemo\$Item instances" $N "$(awk '$4 == "HeapDemo$Item" { print $2 }' h$V.histo)"
    "$HPROF" info h$V.hprof | awk '/^record /{on=1; next} on && NF==0 {exit} on && $1 != "total" { NF -= 2; print }' |
        grep -vxE 'UTF8|LOAD CLASS|FRAME|TRACE|HEAP DUMP SEGMENT|HEAP DUMP END' | sed 's/^/   other record kind: /' |
        grep . && fail "h$V.hprof: records HotSpot's dumper does not write"
    "$HPROF" print h$V.hprof >h$V.txt || fail "hprof print h$V.hprof"
    # ids are HotSpot's (addresses, 8-byte aligned), no tag of the agent's
    expect_eq "Items whose id is 8-byte aligned" $N \
        "$(awk '/^OBJ .*class=HeapDemo\$Item@/ { if (substr($2, length($2)) ~ /^[08]$/) n++ } END { print n + 0 }' h$V.txt)"
    # the parked thread's stack: as many frames as in jcmd's dump
    vvm h$V.hotspot.hprof --heapdemo $N:$M --thread parked-holder=-1 >h$V.hs.vvm 2>&1 || true
    hsframes=$(sed -n 's/.*thread "parked-holder": \([0-9]*\) frames.*/\1/p' h$V.hs.vvm)
    [ -n "$hsframes" ] && [ "$hsframes" -ge 3 ] || fail "jcmd's dump: no stack for parked-holder"
    vvm h$V.hprof --heapdemo $N:$M --check-refs --thread parked-holder=$hsframes >h$V.vvm 2>&1 ||
        fail "VisualVM on the heap=dump dump: $(grep -E 'FAIL|Exception' h$V.vvm | head -5)"
    echo "   ok: verify clean, program classes equal jcmd's, HotSpot's records, ids aligned, $(grep -c '^  ok' h$V.vvm) VisualVM checks"

    if [ "$V" -ge 21 ]; then # the listener cannot wait for a request of ours while it runs this one
        grep -q "(heap dump 1: HotSpotDiagnosticMXBean.dumpHeap, one thread: the request came through the attach listener itself)" h$V.err ||
            fail "h$V: jcmd JVMTI.data_dump's dump was not dumpHeap0's: $(grep -o '(heap dump 1[^)]*)' h$V.err)"
    fi

    step "heap=dump through the JVM's attach listener: a SIGQUIT (the listener up: jcmd's) and the exit's dump"
    JOPTS=-Xshare:off SIGNAL=QUIT run_demo p$V "heap=dump,format=b,file=$WORK/p$V.hprof"
    if [ "$V" -ge 21 ]; then # GC.heap_dump -parallel=N, N the CPUs this process may use
        grep -qE "\(heap dump 1: GC.heap_dump -parallel=$NCPU \[[0-9]+ bytes in [0-9.]+ secs\], through the JVM's attach listener\)" p$V.err ||
            fail "p$V: the SIGQUIT's dump: $(grep -o '(heap dump 1[^)]*)' p$V.err), expected GC.heap_dump -parallel=$NCPU"
        grep -qE "\(heap dump 2: GC.heap_dump -all -parallel=$NCPU \[[0-9]+ bytes in [0-9.]+ secs\], through the JVM's attach listener\)" p$V.err ||
            fail "p$V: the exit's dump: $(grep -o '(heap dump 2[^)]*)' p$V.err), expected GC.heap_dump -all -parallel=$NCPU"
    else # JDK 17: no -parallel, HotSpotDiagnosticMXBean.dumpHeap0 as before
        ! grep -q "GC.heap_dump" p$V.err || fail "p$V: JDK 17 used GC.heap_dump: $(grep -o '(heap dump [^)]*)' p$V.err)"
    fi
    "$HPROF" histo p$V.hprof >p$V.histo && "$HPROF" histo p$V.hotspot.hprof >p$V.hs.histo || fail "hprof histo p$V"
    for cls in 'HeapDemo$Item' 'HeapDemo$SubItem' 'HeapDemo$Marker' '[LHeapDemo$Item;' '[[I'; do
        expect_eq "p$V: $cls instances and bytes (vs jcmd's)" "$(awk -v c="$cls" '$4 == c { print $2, $3 }' p$V.hs.histo)" \
            "$(awk -v c="$cls" '$4 == c { print $2, $3 }' p$V.histo)"
    done
    for f in p$V.hprof p$V.hprof.2; do
        "$HPROF" verify $f >$f.verify || fail "hprof verify $f: $(tail -3 $f.verify)"
        grep -q ': 0 error(s), 0 warning(s)$' $f.verify || fail "hprof verify $f: $(tail -3 $f.verify)"
    done
    expect_eq "p$V.hprof.2 (the exit's, -all): HeapDemo\$Item instances" $N "$("$HPROF" histo p$V.hprof.2 | awk '$4 == "HeapDemo$Item" { print $2 }')"
    # (only this JVM's: other tests' JVMs, and jcmd, make theirs meanwhile)
    [ -e "/tmp/.attach_pid$RUN_JPID" ] && fail "p$V: a trigger file is left: /tmp/.attach_pid$RUN_JPID"
    how=dumpHeap0; [ "$V" -ge 21 ] && how="GC.heap_dump -parallel=$NCPU and -all -parallel=$NCPU"
    echo "   ok: $how; both dumps verify, program classes equal jcmd's"
    if [ "$V" -ge 21 ]; then # -parallel=N is the JVM's own count: -XX:ActiveProcessorCount too
        AP=$((NCPU + 1))
        NOHS=1 JOPTS="-Xshare:off -XX:ActiveProcessorCount=$AP" SIGNAL=QUIT run_demo ap$V "heap=dump,format=b,file=$WORK/ap$V.hprof"
        # (the SIGQUIT's dump, before any listener, is dumpHeap0's; the exit's starts it)
        grep -qE "\(heap dump 2: GC.heap_dump -all -parallel=$AP \[[0-9]+ bytes in [0-9.]+ secs\], through the JVM's attach listener\)" ap$V.err ||
            fail "ap$V: -XX:ActiveProcessorCount=$AP: $(grep -o '(heap dump 2[^)]*)' ap$V.err), expected GC.heap_dump -all -parallel=$AP"
        "$HPROF" verify ap$V.hprof.2 >ap$V.verify || fail "ap$V: hprof verify: $(tail -3 ap$V.verify)"
        echo "   ok: -XX:ActiveProcessorCount=$AP gives -parallel=$AP"
    fi

    step "heap=dump with -XX:+DisableAttachMechanism, and with -Xrs: HotSpotDiagnosticMXBean.dumpHeap"
    JOPTS="-Xshare:off -XX:+DisableAttachMechanism" NOHS=1 SIGNAL=QUIT run_demo da$V "heap=dump,format=b,file=$WORK/da$V.hprof"
    jrun xrs$V 0 no -Xrs "-agentpath:$AGENT=heap=dump,format=b,file=$WORK/xrs$V.hprof" -cp classes HeapDemo $N $M 1 </dev/null
    for f in da$V.hprof da$V.hprof.2 xrs$V.hprof; do
        "$HPROF" verify --hotspot $f >$f.verify || fail "hprof verify $f: $(tail -3 $f.verify)"
        expect_eq "$f: HeapDemo\$Item instances" $N "$("$HPROF" histo $f | awk '$4 == "HeapDemo$Item" { print $2 }')"
    done
    if [ "$V" -ge 21 ]; then
        expect_eq "da$V: dumps made by dumpHeap0 for -XX:+DisableAttachMechanism" 2 \
            "$(grep -o 'HotSpotDiagnosticMXBean.dumpHeap, one thread: -XX:+DisableAttachMechanism' da$V.err | wc -l)"
        expect_eq "xrs$V: dumps made by dumpHeap0 for -Xrs" 1 \
            "$(grep -o 'HotSpotDiagnosticMXBean.dumpHeap, one thread: -Xrs (ReduceSignalUsage)' xrs$V.err | wc -l)"
    fi
    # the exit's dump alone: the agent starts the listener itself (its
    # SIGQUIT swallowed by HotSpot: no thread dump, no second dump)
    jrun xs$V 0 no "-agentpath:$AGENT=heap=dump,format=b,file=$WORK/xs$V.hprof" -cp classes HeapDemo $N $M 1 </dev/null
    "$HPROF" verify --hotspot xs$V.hprof >xs$V.verify || fail "hprof verify xs$V.hprof: $(tail -3 xs$V.verify)"
    expect_eq "xs$V: dumps made" 1 "$(grep -c '^Dumping (' xs$V.err)"
    ! grep -q "Full thread dump" xs$V.out || fail "xs$V: the agent's SIGQUIT printed a thread dump"
    if [ "$V" -ge 21 ]; then
        grep -qE "\(heap dump 1: GC.heap_dump -all -parallel=$NCPU \[[0-9]+ bytes in [0-9.]+ secs\], through the JVM's attach listener\)" xs$V.err ||
            fail "xs$V: the exit's dump: $(grep -o '(heap dump 1[^)]*)' xs$V.err)"
    fi
    ! grep -q "GC.heap_dump" da$V.err xrs$V.err || fail "GC.heap_dump with the attach mechanism off: $(grep -ho '(heap dump [^)]*)' da$V.err xrs$V.err)"
    echo "   ok: the SIGQUIT's and the exit's dumps (DisableAttachMechanism), the exit's (-Xrs): dumpHeap0, verified"

    if [ "$V" -ge 21 ]; then
        step "ZGC: the listener started at start-up (the agent's SIGQUIT), then the user's SIGQUIT: a dump"
        # the agent's own SIGQUIT is swallowed by HotSpot as the listener's
        # trigger; a user's a second later was taken for it and dropped
        # (a 10 s window from the agent's SIGQUIT)
        JOPTS="-Xshare:off -XX:+UseZGC" NOHS=1 SIGNAL=QUIT QUIT_DELAY=1 run_demo zq$V "heap=dump,format=b,file=$WORK/zq$V.hprof"
        ! grep -q "taken for it: no dump" zq$V.err || fail "zq$V: the user's SIGQUIT was dropped: $(grep -o 'HPROF: a SIGQUIT[^:]*' zq$V.err)"
        expect_eq "zq$V: dumps made (the SIGQUIT's, the exit's)" 2 "$(grep -c '^Dumping (' zq$V.err)"
        grep -qE "\(heap dump 1: GC.heap_dump -parallel=$NCPU \[[0-9]+ bytes in [0-9.]+ secs\], through the JVM's attach listener\)" zq$V.err ||
            fail "zq$V: the SIGQUIT's dump: $(grep -o '(heap dump 1[^)]*)' zq$V.err)"
        expect_eq "zq$V.hprof: HeapDemo\$Item instances" $N "$("$HPROF" histo zq$V.hprof | awk '$4 == "HeapDemo$Item" { print $2 }')"
        echo "   ok: the SIGQUIT's dump and the exit's, $N Items"
    fi

    step "heap=dump into a directory whose name holds '=' (GC.heap_dump's path quoted)"
    # HotSpot's DCmdArgIter cuts an unquoted word at '=': GC.heap_dump
    # DIR/eq=d/... dumped into DIR/eq, and the agent found no dump
    rm -rf "$WORK/eq$V" "$WORK/eq$V=d" && mkdir "$WORK/eq$V=d"
    jrun eq$V 0 no "-agentpath:$AGENT=heap=dump,format=b,file=$WORK/eq$V=d/x.hprof" -cp classes HeapDemo $N $M 1 </dev/null
    [ ! -e "$WORK/eq$V" ] || fail "eq$V: a dump outside the output's directory: $WORK/eq$V"
    if [ "$V" -ge 21 ]; then
        grep -qE "\(heap dump 1: GC.heap_dump -all -parallel=$NCPU \[[0-9]+ bytes in [0-9.]+ secs\], through the JVM's attach listener\)" eq$V.err ||
            fail "eq$V: the exit's dump: $(grep -o '(heap dump 1[^)]*)' eq$V.err)"
    fi
    expect_eq "eq$V: HeapDemo\$Item instances" $N "$("$HPROF" histo "$WORK/eq$V=d/x.hprof" | awk '$4 == "HeapDemo$Item" { print $2 }')"
    expect_eq "eq$V: files in eq$V=d (no temporary directory left)" "x.hprof" "$(ls -A "$WORK/eq$V=d")"
    echo "   ok: the dump in eq$V=d/x.hprof, $N Items, nothing beside it"

    step "heap=all (the JVMTI walk),format=b: our dump and HotSpot's of the same moment"
    run_demo d$V "heap=all,format=b,doe=n,file=$WORK/d$V.hprof"
    "$HPROF" verify d$V.hprof >d$V.verify || fail "hprof verify: $(tail -5 d$V.verify)"
    grep -q ': 0 error(s), 0 warning(s)$' d$V.verify || fail "hprof verify: $(tail -3 d$V.verify)"
    "$HPROF" histo d$V.hprof >d$V.histo || fail "hprof histo of our dump failed"
    "$HPROF" histo d$V.hotspot.hprof >d$V.hs.histo || fail "hprof histo of HotSpot's dump failed"
    for cls in 'HeapDemo$Item' 'HeapDemo$SubItem' 'HeapDemo$Marker' '[LHeapDemo$Item;' '[LHeapDemo$SubItem;' '[[I'; do
        ours=$(awk -v c="$cls" '$4 == c { print $2, $3 }' d$V.histo)
        theirs=$(awk -v c="$cls" '$4 == c { print $2, $3 }' d$V.hs.histo)
        [ -n "$ours" ] || fail "no $cls in our histogram"
        expect_eq "$cls instances and bytes (ours vs HotSpot's)" "$theirs" "$ours"
    done
    expect_eq "HeapDemo\$Item instances" $N "$(awk '$4 == "HeapDemo$Item" { print $2 }' d$V.histo)"
    tot=$(awk '$1 == "Total" { print $2, $3 }' d$V.histo)
    hst=$(awk '$1 == "Total" { print $2, $3 }' d$V.hs.histo)
    awk -v a="$tot" -v b="$hst" 'BEGIN { split(a, x, " "); split(b, y, " ");
        for (i = 1; i <= 2; i++) { d = x[i] / y[i] - 1; if (d < 0) d = -d; if (d > 0.10) exit 1 } }' ||
        fail "totals (instances bytes): ours $tot, HotSpot's $hst: more than 10 % apart"
    echo "   ok: verify clean; program classes equal HotSpot's; totals $tot vs HotSpot's $hst"

    step "VisualVM reads our dump (and HotSpot's) back: every value, root and reference"
    vvm d$V.hotspot.hprof --heapdemo $N:$M --check-refs --thread parked-holder=-1 >d$V.hs.vvm 2>&1 || true
    grep -q 'FAIL  thread "parked-holder"' d$V.hs.vvm && [ "$(grep -c '^  FAIL' d$V.hs.vvm)" = 1 ] ||
        fail "VisualVM on HotSpot's dump (the checker itself): $(grep -E 'FAIL|Exception' d$V.hs.vvm | head -5)"
    # the parked thread's stack as HotSpot dumps it: ours must have as many frames
    hsframes=$(sed -n 's/.*thread "parked-holder": \([0-9]*\) frames.*/\1/p' d$V.hs.vvm)
    [ -n "$hsframes" ] && [ "$hsframes" -ge 3 ] || fail "HotSpot's dump: no stack for parked-holder"
    vvm d$V.hprof --heapdemo $N:$M --check-refs --thread parked-holder=$hsframes >d$V.vvm 2>&1 ||
        fail "VisualVM on our dump: $(grep -E 'FAIL|Exception' d$V.vvm | head -5)"
    grep -c '^  ok' d$V.vvm | sed 's/^/   ok: /; s/$/ VisualVM checks on our dump, the same on HotSpot'"'"'s/'

    step "HotSpot's shape: root kinds, supers, objects held by Class objects, int.class"
    # hotspot_roots FILE: FILE's root kinds, HotSpot's only
    hotspot_roots() {
        local k
        k=$("$HPROF" info "$1" | awk '$1 == "ROOT" { NF -= 2; print }' | sort -u | tr '\n' ',')
        [ -n "$k" ] || fail "$1: no roots at all"
        echo "$k" | tr ',' '\n' | grep -v '^$' |
            grep -vxE 'ROOT (JNI GLOBAL|JNI LOCAL|JAVA FRAME|STICKY CLASS|THREAD OBJECT)' |
            sed 's/^/   other root kind: /' | grep . && fail "$1: root kinds HotSpot does not write: $k"
        echo "$k"
    }
    DEMO="MirrorDemo 20 90" run_demo m$V "heap=all,format=b,doe=n,file=$WORK/m$V.hprof"
    "$HPROF" verify m$V.hprof >m$V.verify || fail "hprof verify: $(tail -5 m$V.verify)"
    grep -q ': 0 error(s), 0 warning(s)$' m$V.verify || fail "hprof verify: $(tail -3 m$V.verify)"
    # hotspot_records FILE: FILE's top-level record kinds, HotSpot's only
    # (google/hprof-parser stops at CONTROL SETTINGS and THREAD START/END)
    hotspot_records() {
        local k
        k=$("$HPROF" info "$1" | awk '/^record /{on=1; next} on && NF==0 {exit} on && $1 != "total" { NF -= 2; print }' |
            sort -u | tr '\n' ',')
        echo "$k" | grep -q 'HEAP DUMP' || fail "$1: no heap dump record: $k"
        echo "$k" | tr ',' '\n' | grep -v '^$' |
            grep -vxE 'UTF8|LOAD CLASS|FRAME|TRACE|HEAP DUMP|HEAP DUMP SEGMENT|HEAP DUMP END' |
            sed 's/^/   other record kind: /' | grep . && fail "$1: records HotSpot's dumper does not write: $k"
        echo "$k"
    }
    # a file of heap dumps alone is heap=dump's, HotSpot's own; heap=all's
    # walk adds its sites and threads: its root kinds are checked
    for f in m$V.hotspot.hprof h$V.hprof; do
        echo "   $f: records $(hotspot_records $f)"
        "$HPROF" verify --reader go-hprof $f >$f.go || fail "verify --reader go-hprof $f: $(tail -3 $f.go)"
    done
    for f in m$V.hotspot.hprof m$V.hprof d$V.hprof; do
        hotspot_roots $f >$f.kinds
        echo "   $f: $(cat $f.kinds)"
    done
    # the agent's own JNI locals (the dumping thread's) are no roots: as
    # many as HotSpot's, which has only main's (blocked reading stdin)
    jl() { "$HPROF" info "$1" | awk '$1 == "ROOT" && $2 == "JNI" && $3 == "LOCAL" { print $4 }'; }
    expect_eq "ROOT JNI LOCAL records (ours vs HotSpot's)" "$(jl m$V.hotspot.hprof)" "$(jl m$V.hprof)"
    "$HPROF" print m$V.hprof >m$V.txt || fail "hprof print m$V.hprof"
    "$HPROF" print m$V.hotspot.hprof >m$V.hs.txt || fail "hprof print m$V.hotspot.hprof"
    python3 "$SRC/tests/integration/dump_compare.py" m$V.txt m$V.hs.txt --count 'MirrorDemo$Val=20' >m$V.cmp ||
        fail "MirrorDemo, ours vs HotSpot's: $(grep FAIL m$V.cmp | head -5)"
    sed 's/^/   /' m$V.cmp
    "$HPROF" print d$V.hprof >d$V.txt || fail "hprof print d$V.hprof"
    "$HPROF" print d$V.hotspot.hprof >d$V.hs.txt || fail "hprof print d$V.hotspot.hprof"
    python3 "$SRC/tests/integration/dump_compare.py" d$V.txt d$V.hs.txt >d$V.cmp ||
        fail "HeapDemo, ours vs HotSpot's: $(grep FAIL d$V.cmp | head -5)"
    sed 's/^/   HeapDemo: /' d$V.cmp
    "$HPROF" histo m$V.hprof >m$V.histo && "$HPROF" histo m$V.hotspot.hprof >m$V.hs.histo || fail "hprof histo"
    for cls in java/lang/reflect/Field java/lang/reflect/Method 'java/lang/ClassValue$ClassValueMap'; do
        ours=$(awk -v c="$cls" '$4 == c { print $2 }' m$V.histo)
        theirs=$(awk -v c="$cls" '$4 == c { print $2 }' m$V.hs.histo)
        [ -n "$theirs" ] && [ "$theirs" -ge 1 ] || fail "HotSpot's dump has no $cls"
        expect_eq "$cls instances (ours vs HotSpot's)" "$theirs" "$ours"
    done
    echo "   ok: Field, Method and ClassValueMap instances as many as in HotSpot's dump"
    vvm m$V.hprof --mirror-name int --check-refs 'MirrorDemo$Val=20' >m$V.vvm 2>&1 ||
        fail "VisualVM on our MirrorDemo dump: $(grep -E 'FAIL|Exception' m$V.vvm | cut -c1-300 | head -5)"
    vvm m$V.hotspot.hprof --mirror-name int 'MirrorDemo$Val=20' >m$V.hs.vvm 2>&1 ||
        fail "VisualVM on HotSpot's MirrorDemo dump (the checker itself): $(grep -E 'FAIL|Exception' m$V.hs.vvm | cut -c1-300 | head -5)"
    grep '^  ok' m$V.vvm | cut -c1-100 | sed 's/^ */   VisualVM: /'
    NOHS=1 DEMO="MirrorDemo 20 90" run_demo r$V "heap=all,format=b,doe=n,shape=original,file=$WORK/r$V.hprof"
    unknown=$("$HPROF" info r$V.hprof | awk '$1 == "ROOT" && $2 == "UNKNOWN" { print $3 }')
    [ -n "$unknown" ] && [ "$unknown" -gt 0 ] || fail "shape=original: no ROOT UNKNOWN (the original's kinds)"
    "$HPROF" verify --max 1 r$V.hprof >r$V.verify 2>&1 || true
    grep -q 'error(s)' r$V.verify || fail "hprof verify r$V.hprof: $(tail -3 r$V.verify)"
    for rec in 'CONTROL SETTINGS' 'START THREAD'; do
        "$HPROF" info r$V.hprof | grep -q "^$rec " || fail "shape=original: no $rec record (the original's)"
    done
    echo "   ok: shape=original writes the original's kinds ($unknown ROOT UNKNOWN) and records"

    if [ "$V" -ge 21 ]; then
        step "virtual threads: the mounted one's THREAD OBJECT, stack and frame roots, as HotSpot's"
        DEMO="MirrorDemo 20 90 vthreads" run_demo v$V "heap=all,format=b,doe=n,file=$WORK/v$V.hprof"
        "$HPROF" verify v$V.hprof >v$V.verify || fail "hprof verify: $(tail -5 v$V.verify)"
        grep -q ': 0 error(s), 0 warning(s)$' v$V.verify || fail "hprof verify: $(tail -3 v$V.verify)"
        hotspot_roots v$V.hprof >v$V.kinds
        "$HPROF" print v$V.hprof >v$V.txt && "$HPROF" print v$V.hotspot.hprof >v$V.hs.txt || fail "hprof print"
        python3 "$SRC/tests/integration/dump_compare.py" v$V.txt v$V.hs.txt \
            --vthread-roots 'MirrorDemo$VMarker=MirrorDemo.spin' >v$V.cmp ||
            fail "virtual threads, ours vs HotSpot's: $(grep FAIL v$V.cmp | head -5)"
        sed 's/^/   /' v$V.cmp
        vvm v$V.hprof --check-refs 'MirrorDemo$VMarker=2' >v$V.vvm 2>&1 ||
            fail "VisualVM on the virtual threads' dump: $(grep -E 'FAIL|Exception' v$V.vvm | head -5)"
    fi

    step "heap=all: objects carry their allocation trace"
    NOHS=1 run_demo a$V "heap=all,format=b,doe=n,file=$WORK/a$V.hprof"
    "$HPROF" verify a$V.hprof >a$V.verify || fail "hprof verify (heap=all): $(tail -3 a$V.verify)"
    "$HPROF" print a$V.hprof >a$V.txt || fail "hprof print failed"
    traces a$V.txt >a$V.tr
    tr=$(awk -F '\t' -v w="HeapDemo.main(HeapDemo.java:$LNEW)" '{ split($3, f, "|"); if (f[1] == w) print $1 }' a$V.tr | head -1)
    [ -n "$tr" ] || fail "no TRACE with HeapDemo.main(HeapDemo.java:$LNEW) on top"
    n=$(grep -c "^OBJ [0-9a-f]* (sz=[0-9]*, trace=$tr, class=HeapDemo\$Item@" a$V.txt || true)
    expect_eq "Items whose OBJ line names trace $tr (their allocation site)" $N "$n"
    echo "   ok: $n Items carry trace $tr"

    step "heap=dump: idsize=4 (converted), and the dump at exit (doe=y)"
    JOPTS=-Xshare:off NOHS=1 run_demo i$V "heap=dump,format=b,idsize=4,file=$WORK/i$V.hprof"
    # one heap dump per file: the request's in the output, the exit's in <output>.2
    for f in i$V.hprof i$V.hprof.2; do
        [ -f $f ] || fail "no $f"
        "$HPROF" verify $f >$f.verify || fail "hprof verify $f: $(tail -3 $f.verify)"
        grep -q ': 0 error(s), 0 warning(s)$' $f.verify || fail "hprof verify $f: $(tail -3 $f.verify)"
        expect_eq "$f: id size" 4 "$("$HPROF" info $f | sed -n 's/.*id size \([0-9]\).*/\1/p')"
        expect_eq "$f: heap dumps" 1 "$("$HPROF" info $f | awk '$1 == "HEAP" && $3 == "END" { print $4 }')"
        vvm $f --heapdemo $N:$M --check-refs >$f.vvm 2>&1 ||
            fail "VisualVM on $f: $(grep -E 'FAIL|Exception' $f.vvm | head -5)"
    done
    echo "   ok: 4-byte ids; the request's dump and the exit's, one per file, both read back"

    step "heap=dump, file=NAME.hprof.gz: HotSpot's -gz layout, the request's dump and the exit's"
    JOPTS=-Xshare:off NOHS=1 run_demo z$V "heap=dump,format=b,file=$WORK/z$V.hprof.gz"
    for f in z$V.hprof.gz z$V.hprof.gz.2; do
        [ -f $f ] || fail "no $f"
        expect_eq "$f: gzip magic" "1f8b" "$(head -c 2 $f | od -An -tx1 | tr -d ' \n')"
        "$HPROF" verify $f >$f.verify || fail "hprof verify $f: $(tail -3 $f.verify)"
        grep -q ': 0 error(s), 0 warning(s)$' $f.verify || fail "hprof verify $f: $(tail -3 $f.verify)"
        expect_eq "$f: HeapDemo\$Item instances" $N "$("$HPROF" histo $f | awk '$4 == "HeapDemo$Item" { print $2 }')"
        # compressed: HeapDemo's small heap gives ~3x at level 1 (the bench's
        # 1.4 GB heap: bench/BENCHMARKS.md); at least 2.5x here
        plain=$(gzip -dc $f | wc -c)
        [ $(($(stat -c %s $f) * 5)) -le $((plain * 2)) ] ||
            fail "$f: $(stat -c %s $f) bytes, not 2.5 times less than its $plain bytes plain"
    done
    # the request's (jcmd JVMTI.data_dump: dumpHeap0, compressed afterwards)
    # and the exit's (GC.heap_dump -gz=1: compressed by HotSpot)
    ! grep -q "(heap dump 1: GC.heap_dump" z$V.err || fail "z$V: jcmd JVMTI.data_dump's dump went through the listener"
    par=""; [ "$V" -ge 21 ] && par=" -parallel=$NCPU"
    grep -qE "\(heap dump 2: GC.heap_dump -all$par -gz=1 \[[0-9]+ bytes in [0-9.]+ secs\], through the JVM's attach listener\)" z$V.err ||
        fail "z$V: the exit's dump: $(grep -o '(heap dump 2[^)]*)' z$V.err), expected GC.heap_dump -all$par -gz=1"
    echo "   ok: two gzip dumps (the converted one and HotSpot's -gz=1), verify clean, $N Items each, $(stat -c %s z$V.hprof.gz) bytes ($plain plain)"

    step "heap=dump,format=a: the jcmd dump and the exit dump, two text sections"
    JOPTS=-Xshare:off NOHS=1 run_demo t$V "heap=dump,format=a,file=$WORK/t$V.txt"
    expect_eq "t$V.txt: HEAP DUMP BEGIN lines" 2 "$(grep -c '^HEAP DUMP BEGIN (' t$V.txt || true)"
    expect_eq "t$V.txt: HEAP DUMP END lines" 2 "$(grep -cx 'HEAP DUMP END' t$V.txt || true)"
    expect_eq "t$V.txt: OBJ lines of HeapDemo\$Item" $((2 * N)) "$(grep -c '^OBJ [0-9a-f]* (sz=[0-9]*, trace=300000, class=HeapDemo\$Item@' t$V.txt || true)"
    python3 "$SRC/tests/integration/textdump_check.py" t$V.txt --sections 2 --heapdemo $N:$M \
        --histo d$V.histo --no-alloc-traces >t$V.check 2>&1 ||
        fail "text heap dump t$V.txt: $(grep -v '^ok' t$V.check | head -8)"
    sed 's/^/   /' t$V.check

    step "no options (heap=all, format=a): the SIGQUIT dump and the exit dump, sites, allocation traces"
    rm -f java.hprof.txt
    SIGNAL=QUIT NOHS=1 run_demo n$V ""
    mv java.hprof.txt n$V.txt || fail "no options: no java.hprof.txt"
    check_layout n$V.txt
    expect_eq "n$V.txt: SITES sections" 2 "$(grep -c '^SITES BEGIN (' n$V.txt || true)"
    python3 "$SRC/tests/integration/textdump_check.py" n$V.txt --sections 2 --heapdemo $N:$M \
        --histo d$V.histo --alloc-line $LNEW >n$V.check 2>&1 ||
        fail "text heap dump n$V.txt: $(grep -v '^ok' n$V.check | head -8)"
    sed 's/^/   /' n$V.check
    # each dump in order: its HEAP DUMP section, then its SITES section
    order=$(grep -oE '^(HEAP DUMP BEGIN|HEAP DUMP END|SITES BEGIN|SITES END)' n$V.txt | tr '\n' '|')
    expect_eq "n$V.txt: section order" "HEAP DUMP BEGIN|HEAP DUMP END|SITES BEGIN|SITES END|HEAP DUMP BEGIN|HEAP DUMP END|SITES BEGIN|SITES END|" "$order"
    # the SIGQUIT dump forced a GC: its walk counted the live objects (no
    # heap scan after it); the exit's forced none: a scan counted them. The
    # verbose line gives each dump's pause apart from its total
    expect_eq "n$V.err: dumps whose live counts came from the walk" 1 "$(grep -c '(live counts: from the heap walk, [0-9.]* s) done\.' n$V.err || true)"
    expect_eq "n$V.err: dumps whose live counts came from a heap scan" 1 "$(grep -c '(live counts: heap scan, [0-9.]* s) done\.' n$V.err || true)"
    expect_eq "n$V.err: dumps with their pause and total" 2 "$(grep -cE '\(heap dump: pause [0-9]+\.[0-9]{3} s: GC [0-9]+\.[0-9]{3} s, heap walk [0-9]+\.[0-9]{3} s( \(on a CPU [0-9]+\.[0-9]{3} s, waiting for one [0-9]+\.[0-9]{3} s, blocked [0-9]+\.[0-9]{3} s\))?; total [0-9]+\.[0-9]{3} s\)' n$V.err || true)"
    # the first SITES section (the walk's counts): every Item live, and no
    # site with more live objects than it allocated
    awk '/^SITES BEGIN/ { s++ } s == 1 && $NF == "HeapDemo$Item" { live += $5; alloc += $7 }
         s == 1 && $1 ~ /^[0-9]+$/ && NF == 9 && $5 > $7 { bad++ }
         END { print live + 0, alloc + 0, bad + 0 }' n$V.txt >n$V.live
    expect_eq "n$V.txt: first SITES section: HeapDemo\$Item live, allocated, sites with live > allocated" "$N $N 0" "$(cat n$V.live)"

    step "heap=dump, a file size limit HotSpot's dumper hits: HPROF ERROR, exit 0, the output says so"
    # HotSpot ignores SIGXFSZ: its write fails with EFBIG, dumpHeap throws,
    # and no partial dump is left (HotSpot removes it): the output holds no
    # heap dump, only the in-band error, in text and in binary
    # (the exit's dump: JDK 21+ GC.heap_dump through the listener, which
    # says so in its own words; JDK 17 dumpHeap0)
    (ulimit -f 300 && jrun hlim$V 0 allow "-agentpath:$AGENT=heap=dump,file=$WORK/hlim$V.txt" -cp classes HeapDemo $N $M 1 </dev/null)
    if [ "$V" -ge 21 ]; then
        how="GC.heap_dump" why="Dump file is incomplete: File too large"
    else
        how="HotSpotDiagnosticMXBean.dumpHeap" why="java.io.IOException: File too large"
    fi
    grep -qF "HPROF ERROR: heap dump: HotSpot's dumper ($how) made no dump: $why" hlim$V.err ||
        fail "hlim$V: expected an HPROF ERROR about HotSpot's dump, stderr: $(head -3 hlim$V.err)"
    expect_eq "hlim$V.txt: HEAP DUMP BEGIN lines" 0 "$(grep -c '^HEAP DUMP BEGIN (' hlim$V.txt || true)"
    grep -qF "HPROF ERROR: heap dump 1: HotSpot's dumper made no dump: $why" hlim$V.txt ||
        fail "hlim$V.txt: no in-band HPROF ERROR line"
    (ulimit -f 400 && jrun hblim$V 0 allow "-agentpath:$AGENT=heap=dump,format=b,file=$WORK/hblim$V.hprof" -cp classes HeapDemo $N $M 1 </dev/null)
    grep -q "HPROF ERROR: heap dump: HotSpot's dumper .* File too large" hblim$V.err ||
        fail "hblim$V: expected an HPROF ERROR about HotSpot's dump, stderr: $(head -3 hblim$V.err)"
    "$HPROF" verify hblim$V.hprof >hblim$V.verify 2>&1 || true
    grep -q ': 0 error(s)' hblim$V.verify || fail "hblim$V.hprof: $(tail -3 hblim$V.verify)"
    expect_eq "hblim$V.hprof: heap dumps" "" "$("$HPROF" info hblim$V.hprof | awk '$1 == "HEAP" && $3 == "END" { print $4 }')"
    echo "   ok: $(grep -o 'HPROF ERROR.*' hblim$V.err | head -1 | cut -c1-100)..."

    step "heap=all (the walk), format=a, a file size limit the dump's temporary file hits: HPROF ERROR, a closed section"
    # HotSpot ignores SIGXFSZ: the write fails with EFBIG. 1000 KiB holds the
    # text up to the dump (heap=all: the sites' traces), not the temporary
    # file of its objects.
    (ulimit -f 1000 && jrun lim$V 0 allow "-agentpath:$AGENT=heap=all,file=$WORK/lim$V.txt" -cp classes HeapDemo $N $M 1 </dev/null)
    grep -q 'HPROF ERROR: heap dump: writing its temporary file in .*File too large; the dump is incomplete' lim$V.err ||
        fail "lim$V: expected an HPROF ERROR about the temporary file, stderr: $(head -3 lim$V.err)"
    expect_eq "lim$V.txt: HEAP DUMP BEGIN lines" 1 "$(grep -c '^HEAP DUMP BEGIN (' lim$V.txt || true)"
    # and the text says it is cut, with why, not only stderr, just before its end
    grep -B1 -m1 -x 'HEAP DUMP END' lim$V.txt | head -1 | grep -qE '^HEAP DUMP INCOMPLETE: writing the temporary file in .* failed: File too large; this section holds only the [0-9]+ objects \([0-9]+ bytes\) written before that$' ||
        fail "lim$V.txt: no HEAP DUMP INCOMPLETE line before HEAP DUMP END: $(grep -B1 -m1 -x 'HEAP DUMP END' lim$V.txt | head -1)"
    echo "   ok: $(grep -o 'HPROF ERROR.*' lim$V.err | head -1 | cut -c1-100)..."

    step "heap=all (the walk), format=b, a file size limit the dump itself hits: HPROF ERROR, exit 0, a clean prefix"
    # the objects stream into the output after CLASS DUMPs that are
    # overwritten at the end: cut in the middle, the file is still a prefix
    # the reader explains (one truncated record; references past the cut
    # dangle), never a CLASS DUMP half overwritten
    # (the limit leaves room for the 64 KiB kept before the heap dump, and
    # heap=all's records before it)
    (ulimit -f 1000 && jrun blim$V 0 allow "-agentpath:$AGENT=heap=all,format=b,file=$WORK/blim$V.hprof" -cp classes HeapDemo $N $M 1 </dev/null)
    grep -q "HPROF ERROR: writing .*blim$V.hprof failed: .*File too large" blim$V.err ||
        fail "blim$V: expected an HPROF ERROR about the output, stderr: $(head -3 blim$V.err)"
    rc=0
    "$HPROF" verify --max 3 blim$V.hprof >blim$V.verify 2>&1 || rc=$?
    expect_eq "blim$V.hprof: verify exit status" 1 "$rc"
    expect_eq "blim$V.hprof: the only error" "truncated 1" \
        "$(awk '$3 == "error(s)" && $1 !~ /:$/ { print $1, $2 }' blim$V.verify | tr '\n' ' ' | sed 's/ $//')"
    "$HPROF" info blim$V.hprof >blim$V.info 2>&1 || true
    grep -qE '^CLASS DUMP +[1-9]' blim$V.info || fail "blim$V.hprof: no CLASS DUMP before the cut: $(head -20 blim$V.info)"
    grep -qE '^INSTANCE DUMP +[1-9]' blim$V.info || fail "blim$V.hprof: no INSTANCE DUMP before the cut"
    echo "   ok: $(grep -o 'HPROF ERROR.*' blim$V.err | head -1 | cut -c1-90)...; verify: truncated only"
done

if [ "$FAILURES" -gt 0 ]; then
    echo "FAIL: test_agent_heapdump ($FAILURES failure(s))" >&2
    exit 1
fi
echo "PASS: test_agent_heapdump"
