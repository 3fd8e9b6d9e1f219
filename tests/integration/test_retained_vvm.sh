#!/usr/bin/env bash
# test_retained_vvm.sh: retained sizes cross-checked with Debian VisualVM's
# heap library, on jcmd GC.heap_dump dumps of demo-java/RetainDemo (JDK 17
# and 25).
#
# usage: bash test_retained_vvm.sh HPROF_TOOL PROJECT_DIR WORKDIR   (run by ctest)
# Owns:
#  - the Java side, proven on its own: VvmRetained computes hprof's
#    definition (MAT's; docs/heap-analysis.md) from VisualVM's reading of
#    the dump with a dominator algorithm of its own, and its output holds
#    RetainDemo's known answers exactly (retained_compare.py expect: Holder
#    2003 objects, each Owner 402, the chain 5, the ring 50..1, the
#    1 M-element array 1001 and the biggest object); VisualVM's own
#    retained size of every instance and array of the heap is reconciled
#    with it exactly (ours minus what VisualVM's definition leaves out:
#    VvmRetained fails otherwise, and expect checks the listed ones again),
#    and so is VisualVM's retained size of every class, by its own rule;
#  - VisualVM's shallow sizes equal hprof's histogram for every class (so
#    retained bytes compare directly, no mapping needed);
#  - VisualVM's path to RetainDemo's Target ends with the fields CHAIN, b, c,
#    d, target (VvmRetained --paths), and so does `hprof path --json`'s;
#  - `hprof retained --json` against VvmRetained: every object both list
#    has the same label ("class X" for a class object), retained objects
#    and bytes; every class both list the same instances, shallow and
#    retained bytes. A build without `hprof retained` or `hprof path` FAILS
#    here (it is not skipped).
# A missing VisualVM jar or JDK is a failure, not a skip.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/heap_lib.sh" "$@"

JAR=${VISUALVM_HEAP_JAR:-/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar}
[ -f "$JAR" ] || fail "VisualVM's heap library is missing: $JAR (apt-get install visualvm)"
CMP="python3 $SRC/tests/integration/retained_compare.py"

compile RetainDemo
mkdir -p vvm
"$FIRST_JDK/bin/javac" -Xlint:all -Werror --release 17 -cp "$JAR" -d vvm \
    "$SRC/tests/integration/VvmRetained.java" || fail "javac VvmRetained"
NAMED=(--class 'RetainDemo$Holder' --class 'RetainDemo$Owner' --class 'RetainDemo$ChainA'
    --class 'RetainDemo$Target' --class 'RetainDemo$RingNode' --class 'RetainDemo$Leaf')

for JDK in $JDKS; do
    V=$("$JDK/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    step "RetainDemo dumped by jcmd GC.heap_dump"
    demo_start r$V "$JDK" RetainDemo 1000 200 300 100000
    demo_dump r$V "$JDK" "$WORK/retain$V.hprof"
    demo_end r$V

    step "hprof's definition from VisualVM's reading, reconciled with VisualVM's own: RetainDemo's known answers"
    "$JDK/bin/java" -Xmx1g -cp "$JAR:vvm" VvmRetained retain$V.hprof --top 20 "${NAMED[@]}" \
        >vvm$V.json 2>vvm$V.err || fail "VvmRetained exited $?: $(tail -5 vvm$V.err)"
    $CMP expect vvm$V.json || fail "VvmRetained's retained sizes are not RetainDemo's (above)"

    step "VisualVM's shallow sizes are hprof histo's"
    "$JDK/bin/java" -Xmx1g -cp "$JAR:vvm" VvmRetained retain$V.hprof --top 100000 --no-counts \
        >vvmall$V.json 2>vvmall$V.err || fail "VvmRetained --no-counts exited $?: $(tail -5 vvmall$V.err)"
    "$HPROF" diff --json retain$V.hprof retain$V.hprof >histo$V.json || fail "hprof diff --json exited $?"
    $CMP classes vvmall$V.json histo$V.json || fail "shallow sizes differ (above)"

    step "VisualVM's path to RetainDemo\$Target: RetainDemo.CHAIN.b.c.d.target"
    "$JDK/bin/java" -Xmx1g -cp "$JAR:vvm" VvmRetained retain$V.hprof --paths 'RetainDemo$Target' \
        >vvmpath$V.json 2>vvmpath$V.err || fail "VvmRetained --paths exited $?: $(tail -5 vvmpath$V.err)"
    $CMP path vvmpath$V.json 'RetainDemo$Target' CHAIN b c d target || fail "VisualVM's path (above)"
done

# after both JDKs' VisualVM checks, so that they are proven without the command
for JDK in $JDKS; do
    V=$("$JDK/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    step "hprof retained --json against VvmRetained"
    rc=0
    "$HPROF" retained --json --top 100000 retain$V.hprof >ours$V.json 2>ours$V.err || rc=$?
    [ $rc = 0 ] || fail "hprof retained exited $rc (a build without the command fails here): $(head -3 ours$V.err)"
    $CMP compare vvm$V.json ours$V.json || fail "hprof retained and VvmRetained differ (above)"

    step "hprof path --json to RetainDemo\$Target: the fields CHAIN, b, c, d, target in order"
    rc=0
    "$HPROF" path --json retain$V.hprof 'RetainDemo$Target' >ourpath$V.json 2>ourpath$V.err || rc=$?
    [ $rc = 0 ] || fail "hprof path exited $rc (a build without the command fails here): $(head -3 ourpath$V.err)"
    $CMP path ourpath$V.json 'RetainDemo$Target' CHAIN b c d target || fail "hprof path (above)"
done
echo "PASS"
