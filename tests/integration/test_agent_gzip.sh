#!/usr/bin/env bash
# test_agent_gzip.sh: gzip=y (and file=NAME.gz, which implies it) on real
# JVMs (JDK 17 and 25, -Xcheck:jni), heap=all (the JVMTI walk) above all:
#  - heap=all,format=b,file=X.hprof.gz, a dump on request (jcmd
#    JVMTI.data_dump) and one at exit: X.hprof.gz and X.hprof.gz.2, each in
#    HotSpot's -gz layout (gz_layout.py: 1 MiB members, each with the comment
#    HPROF BLOCKSIZE=1048576), `hprof verify` clean, read by
#    java.util.zip.GZIPInputStream (GzCheck) as the bytes gz_layout.py
#    inflates, by VisualVM's heap library (inflated: VisualVM 2.1.5 reads no
#    gzip dump, HotSpot's -gz ones neither) with HeapDemo's graph and every
#    reference resolved, and by `hprof retained` (the same answer as for the
#    inflated file, HeapDemo$Item's 2000 instances);
#  - the same instances per class of HeapDemo as a plain run (file=P.hprof)
#    of the same program, at least 3 times smaller than that run's file;
#  - gzip=y with file=X.hprof (the name kept) and without file= (java.hprof.gz
#    in the working directory); gzip=n with file=X.gz writes plain HPROF;
#  - format=a,gzip=y: the whole text gzip'd (java.hprof.txt.gz), two HEAP
#    DUMP sections, read by `hprof report`;
#  - heap=all with cpu=samples: the one binary file (agent records and the
#    dump) gzip'd whole, `hprof verify` clean;
#  - gzip=y with net=: refused at start-up with a clear message (exit 1);
#  - errors: the output on /dev/full (ENOSPC at once), the output on a full
#    256 KiB tmpfs, TMPDIR (the walk's temporary file) on a full tmpfs: an
#    HPROF ERROR naming the cause, exit 0, no hang (timeout 120);
#  - stress: StressDemo churn and classes (threads allocating, classes
#    loading and unloading) exiting with status 7 while the exit dump is
#    gzip'd: exit 7, verify clean, 3 runs each.
#
# usage: bash test_agent_gzip.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

JAR=${VISUALVM_HEAP_JAR:-/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar}
[ -f "$JAR" ] || fail "VisualVM's heap library is missing: $JAR (apt-get install visualvm)"
compile HeapDemo StressDemo
mkdir -p vvm
"$FIRST_JDK/bin/javac" -cp "$JAR" -d vvm "$SRC/tests/integration/VvmCheck.java" || fail "javac VvmCheck"
"$FIRST_JDK/bin/javac" -d classes "$SRC/tests/integration/GzCheck.java" || fail "javac GzCheck"
N=2000 M=70
LAYOUT="$SRC/tests/integration/gz_layout.py"

# run_demo NAME AGENT_OPTS: HeapDemo under the agent, in the directory
# NAME.d; when it is ready, jcmd JVMTI.data_dump, then EOF on its stdin (the
# exit dump follows); exit 0, no JNI warning, no HPROF ERROR
run_demo() {
    local name=$1 opts=$2
    rm -rf "$name".* "$name.d" fifo.$name
    mkdir "$name.d"
    mkfifo fifo.$name
    (cd "$name.d" && exec timeout 120 "$JAVA" -Xcheck:jni -Xmx512m "-agentpath:$AGENT=$opts" \
        -cp ../classes HeapDemo $N $M 90 <../fifo.$name >"../$name.out" 2>"../$name.err") &
    local pid=$!
    exec 7>fifo.$name
    local jpid # the JVM itself, child of timeout
    jpid=$(await_ready "$name" HeapDemo $pid)
    "$JDK/bin/jcmd" $jpid JVMTI.data_dump >"$name.jcmd" || fail "jcmd JVMTI.data_dump: $(cat "$name.jcmd")"
    for _ in $(seq 1 300); do
        grep -q 'done\.' "$name.err" 2>/dev/null && break
        sleep 0.1
    done
    exec 7>&-
    local rc=0
    wait $pid || rc=$?
    rm -f fifo.$name
    [ $rc = 0 ] || fail "$name: java exited $rc: $(head -5 "$name.err")"
    ! grep -q WARNING "$name.out" "$name.err" || fail "$name: a WARNING: $(grep -h WARNING "$name.out" "$name.err" | head -3)"
    ! grep -q "HPROF ERROR" "$name.err" || fail "$name: $(grep "HPROF ERROR" "$name.err" | head -3)"
}

# counts FILE: "instances class" of HeapDemo's own classes, by `hprof histo`
# (a hidden class's address left out of its name: another in every run)
counts() {
    "$HPROF" histo "$1" | awk '$4 ~ /HeapDemo/ { print $2, $4 }' | sed 's/+0x[0-9a-f]*$//' | sort -k2
}

# clean FILE: hprof verify with no error and no warning
clean() {
    "$HPROF" verify "$1" >"$1.verify" 2>&1 || fail "hprof verify $1: $(tail -3 "$1.verify")"
    grep -q ': 0 error(s), 0 warning(s)$' "$1.verify" || fail "hprof verify $1: $(tail -3 "$1.verify")"
}

# has_error NAME PATTERN: NAME.err has an HPROF ERROR matching PATTERN
has_error() {
    grep "HPROF ERROR" "$1.err" | grep -Eq "$2" || fail "$1: no HPROF ERROR matching '$2': $(head -3 "$1.err")"
}

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"

    step "heap=all, plain and file=X.hprof.gz: a dump on request and one at exit"
    run_demo p$V "heap=all,format=b,file=$WORK/p$V.hprof"
    run_demo z$V "heap=all,format=b,file=$WORK/z$V.hprof.gz"
    [ ! -e z$V.hprof ] && [ ! -e z$V.hprof.2 ] || fail "plain files beside the gzip ones"
    for k in "" .2; do
        f=z$V.hprof.gz$k
        [ -f $f ] || fail "no $f"
        python3 "$LAYOUT" $f $f.plain >$f.layout 2>&1 || fail "$f: not HotSpot's -gz layout: $(cat $f.layout)"
        "$JAVA" -cp classes GzCheck $f $f.plain >$f.gzcheck 2>&1 || fail "GZIPInputStream: $(cat $f.gzcheck)"
        clean $f
        expect_eq "$f: heap dumps" 1 "$("$HPROF" info $f | awk '$1 == "HEAP" && $3 == "END" { print $4 }')"
        counts $f >$f.counts
        counts p$V.hprof$k >p$V$k.counts
        expect_eq "$f: HeapDemo\$Item instances" "$N HeapDemo\$Item" "$(grep ' HeapDemo\$Item$' $f.counts)"
        cmp -s $f.counts p$V$k.counts ||
            fail "$f: instances per class differ from the plain run's: $(diff $f.counts p$V$k.counts | head -5)"
        plain=$(stat -c %s p$V.hprof$k) packed=$(stat -c %s $f)
        [ $((packed * 3)) -le "$plain" ] || fail "$f: $packed bytes, not 3 times less than the plain run's $plain bytes"
        "$JAVA" -cp "$JAR:vvm" VvmCheck $f.plain --heapdemo $N:$M --check-refs >$f.vvm 2>&1 ||
            fail "VisualVM on $f inflated: $(grep -E 'FAIL|Exception' $f.vvm | head -5)"
        "$HPROF" retained $f --json --top 20 >$f.ret 2>&1 || fail "hprof retained $f: $(head -3 $f.ret)"
        "$HPROF" retained $f.plain --json --top 20 >$f.plain.ret 2>&1 || fail "hprof retained $f.plain"
        cmp -s $f.ret $f.plain.ret || fail "hprof retained: another answer for $f than for its bytes"
        python3 - $f.ret $N <<'EOF' || fail "hprof retained $f: no class row of $N HeapDemo\$Item"
import json, sys
rows = json.load(open(sys.argv[1]))["classes"]
sys.exit(0 if any(r["class"] == "HeapDemo$Item" and r["instances"] == int(sys.argv[2]) for r in rows) else 1)
EOF
        echo "   ok: $f: $(cat $f.layout), $packed bytes (the plain run's $plain: $((plain / packed)).$((plain * 10 / packed % 10))x), verify clean, VisualVM, retained"
    done

    step "gzip=y with file=X.hprof, gzip=y without file=, gzip=n with file=X.gz"
    run_demo o$V "heap=all,format=b,gzip=y,file=$WORK/o$V.hprof"
    for f in o$V.hprof o$V.hprof.2; do
        python3 "$LAYOUT" $f >$f.layout 2>&1 || fail "$f: not HotSpot's -gz layout: $(cat $f.layout)"
        clean $f
        counts $f | cmp -s - p$V.counts || fail "$f: other instances per class than the plain run's"
    done
    run_demo d$V "heap=all,format=b,gzip=y"
    ls d$V.d >d$V.ls
    expect_eq "files written without file=" "java.hprof.gz java.hprof.gz.2" "$(tr '\n' ' ' <d$V.ls | sed 's/ $//')"
    python3 "$LAYOUT" d$V.d/java.hprof.gz >/dev/null || fail "java.hprof.gz: not HotSpot's -gz layout"
    clean d$V.d/java.hprof.gz
    run_demo n$V "heap=all,format=b,gzip=n,file=$WORK/n$V.hprof.gz"
    expect_eq "gzip=n: the header" "JAVA PROFILE 1.0.2" "$(head -c 18 n$V.hprof.gz)"
    echo "   ok: the option's names and layout"

    step "format=a,gzip=y: the text gzip'd whole, read by hprof report"
    run_demo t$V "heap=all,format=a,gzip=y"
    f=t$V.d/java.hprof.txt.gz
    python3 "$LAYOUT" $f $f.plain >$f.layout 2>&1 || fail "$f: not HotSpot's -gz layout: $(cat $f.layout)"
    expect_eq "$f: first line" "JAVA PROFILE 1.0.1," "$(head -1 $f.plain | cut -c1-19)"
    expect_eq "$f: HEAP DUMP sections" 2 "$(grep -c '^HEAP DUMP BEGIN (' $f.plain)"
    expect_eq "$f: HEAP DUMP END" 2 "$(grep -cx 'HEAP DUMP END' $f.plain)"
    "$HPROF" report $f --json t$V.json >t$V.report 2>&1 || fail "hprof report $f: $(head -3 t$V.report)"
    "$HPROF" report $f.plain --json t$V.plain.json >t$V.plain.report 2>&1 || fail "hprof report $f.plain"
    python3 - t$V.json t$V.plain.json <<'EOF' || fail "hprof report: another report for $f than for its text"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["inputs"][0]["kind"] == "text", a["inputs"]
for k in ("settings", "tables", "heap", "traces", "flames"):
    if k != "settings":
        assert a[k] == b[k], k
assert ["options", "heap=all,format=a,gzip=y"] in a["settings"], a["settings"]
EOF
    echo "   ok: $(cat $f.layout), 2 sections, hprof report reads it"

    step "heap=all with cpu=samples: one binary file, gzip'd whole"
    run_demo c$V "heap=all,cpu=samples,format=b,file=$WORK/c$V.hprof.gz"
    python3 "$LAYOUT" c$V.hprof.gz >/dev/null || fail "c$V.hprof.gz: not HotSpot's -gz layout"
    clean c$V.hprof.gz
    "$HPROF" info c$V.hprof.gz | grep -q "CPU SAMPLES" || fail "c$V.hprof.gz: no CPU SAMPLES: $("$HPROF" info c$V.hprof.gz | head)"
    echo "   ok"

    step "gzip=y with net=: refused at start-up"
    jrun net$V 1 allow "-agentpath:$AGENT=heap=all,gzip=y,net=localhost:9" -cp classes HeapDemo 1 1 1 </dev/null
    grep -q "gzip=y cannot be combined with net=" net$V.err || fail "no message: $(head -3 net$V.err)"
    echo "   ok: $(grep -m1 'gzip=y' net$V.err | cut -c1-120)"

    step "errors: /dev/full, a full output file system, a full TMPDIR: an HPROF ERROR, exit 0, no hang"
    jrun full$V 0 allow "-agentpath:$AGENT=heap=all,format=b,gzip=y,file=/dev/full" -cp classes HeapDemo $N $M 1 </dev/null
    has_error full$V "writing /dev/full failed: .*No space left on device"
    mkdir -p small$V
    # the JVM in a mount namespace of its own, a 256 KiB tmpfs at small$V;
    # TMPDIR there too with TMPFS_TMP=1
    cat >tmpfs-java$V <<EOF
#!/bin/sh
unshare -m sh -c 'mount -t tmpfs -o size=256k hprof-test "$WORK/small$V" || { echo "tmpfs-java: cannot mount a tmpfs (root and mount namespaces needed)" >&2; exit 97; }; [ "\${TMPFS_TMP:-0}" = 1 ] && export TMPDIR="$WORK/small$V"; exec "\$0" "\$@"' "$JAVA" "\$@"
EOF
    chmod +x tmpfs-java$V
    JAVA=$WORK/tmpfs-java$V jrun outfull$V 0 allow "-agentpath:$AGENT=heap=all,format=b,file=$WORK/small$V/x.hprof.gz" \
        -cp classes HeapDemo 20000 $M 1 </dev/null
    has_error outfull$V "writing $WORK/small$V/x.hprof.gz failed: .*No space left on device"
    TMPFS_TMP=1 JAVA=$WORK/tmpfs-java$V jrun tmpfull$V 0 allow "-agentpath:$AGENT=heap=all,format=b,file=$WORK/tmpfull$V.hprof.gz" \
        -cp classes HeapDemo 20000 $M 1 </dev/null
    has_error tmpfull$V "writing its temporary file in $WORK/small$V failed: .*No space left on device; the dump is incomplete"
    gzip -t tmpfull$V.hprof.gz || fail "tmpfull$V.hprof.gz: gzip -t fails (the output itself had room)"
    echo "   ok: $(grep -m1 'HPROF ERROR' outfull$V.err | cut -c1-120)"

    step "stress: the exit dump gzip'd while threads allocate (churn) and classes come and go (classes)"
    for mode in churn classes; do
        for r in 1 2 3; do
            s=s$V-$mode-$r
            jrun $s 7 no -Xmx64m "-agentpath:$AGENT=heap=all,format=b,file=$WORK/$s.hprof.gz" \
                -cp classes StressDemo $mode 3 1500 7 </dev/null
            python3 "$LAYOUT" $s.hprof.gz >$s.layout 2>&1 || fail "$s: not HotSpot's -gz layout: $(cat $s.layout)"
            clean $s.hprof.gz
        done
    done
    echo "   ok: 6 runs, exit 7, verify clean"
done
echo "PASS"
