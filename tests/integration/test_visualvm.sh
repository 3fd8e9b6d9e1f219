#!/usr/bin/env bash
# test_visualvm.sh: fixtures read back by an independent reader, Debian's
# VisualVM heap library, through tests/integration/VvmCheck.java.
#
# usage: bash test_visualvm.sh HPROF_TOOL PROJECT_DIR WORKDIR   (run by ctest)
# Owns the cross-check of libhprofwriter's output against VisualVM: class
# instance counts implied by --objects (fixture.h), GC roots, strings,
# System.props, thread stack traces, trailing nulls and reference resolution,
# for id sizes 4 and 8, 1.0.1 (one HEAP DUMP) and 1.0.2 (many segments),
# slash and dot class names; on JDK 17 and, if present, JDK 25.
# A missing VisualVM jar or JDK is a failure, not a skip.
set -euo pipefail

if [ $# -lt 3 ]; then  # a 4th argument (the agent) is ignored
    echo "usage: bash $0 HPROF_TOOL PROJECT_DIR WORKDIR" >&2
    exit 2
fi
HPROF=$1
PROJECT=$2
WORK=$3
JAR=${VISUALVM_HEAP_JAR:-/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar}
JDK17=${JDK17_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
JDK25=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
step() {
    echo "== $*"
}

[ -f "$JAR" ] || fail "VisualVM's heap library is missing: $JAR" \
    "(install Debian's package: apt-get install visualvm; the README's test command does)"
[ -x "$JDK17/bin/javac" ] || fail "JDK 17 is missing: $JDK17/bin/javac (apt-get install openjdk-17-jdk-headless)"

rm -rf "$WORK"
mkdir -p "$WORK/classes"
cd "$WORK"

step "compile VvmCheck with JDK 17 against $JAR"
"$JDK17/bin/javac" -Xlint:all -Werror --release 17 -cp "$JAR" -d classes \
    "$PROJECT/tests/integration/VvmCheck.java"

JAVAS=("$JDK17/bin/java")
if [ -x "$JDK25/bin/java" ]; then
    JAVAS+=("$JDK25/bin/java")
else
    echo "   note: no JDK 25 at $JDK25; checking with JDK 17 only"
fi

N=1000
SUB=$((N / 20))
STRINGS=$((16 + N / 10 + 41))
NODE_ARRAY_LEN=$((N + SUB + 3 + N / 8))
TOTAL=1429 # every INSTANCE + ARRAY in the --objects 1000 fixture (hprof histo's total)
# What fixture.h promises for --objects $N, in VisualVM's names (dots, int[]):
# the same for both --names styles, which is itself a check.
EXPECT=(
    "com.example.fixture.Node=$N"
    "com.example.fixture.SubNode=$SUB"
    "com.example.fixture.Marker=3"
    "java.lang.String=$STRINGS"
    "byte[]=$((STRINGS + 3))"
    "int[]=6" "long[]=3" "double[]=3" "float[]=3" "char[]=3" "short[]=3" "boolean[]=3"
    "int[][]=1"
    "java.lang.Object[]=4"
    "java.lang.String[]=1"
    "com.example.fixture.Node[]=1"
    "java.lang.Thread=4" "java.lang.ThreadGroup=2" "java.lang.Class=9"
    "java.util.Properties=1" "java.util.concurrent.ConcurrentHashMap\$Node=8"
    --classes 33
    --roots 42
    --root-kind "thread object=3" --root-kind "Java frame=4" --root-kind "JNI local=1"
    --root-kind "JNI global=2" --root-kind "native stack=1" --root-kind "thread block=1"
    --root-kind "monitor used=1" --root-kind "sticky class=28" --root-kind "unknown=1"
    --string "hprof-fixture"
    --string 'Gr\u00fc\u00dfe, \u4e16\u754c'
    --prop "java.version=17.0.15" --prop "hprof.fixture.objects=$N" --prop 'line.separator=\n'
    --thread "main=2" --thread "worker-1=5" --thread "worker-2=4"
    --array "com.example.fixture.Node[]=$NODE_ARRAY_LEN:$((N + SUB))"
    --total-instances "$TOTAL"
    --summary-instances "$TOTAL"
    --check-refs
)

checked=0
for id in 4 8; do
    for layout in "1.0.1" "1.0.2"; do
        for names in slash dot; do
            f="fx-id$id-$layout-$names.hprof"
            if [ "$layout" = 1.0.1 ]; then
                opts=(--version 1.0.1)
            else
                opts=(--version 1.0.2 --segment-size 2048)
            fi
            step "fixture $f: --id-size $id ${opts[*]} --names $names --objects $N"
            "$HPROF" fixture "$f" --id-size "$id" "${opts[@]}" --names "$names" --objects "$N" \
                --seed $((id * 7 + checked)) | tee sum.txt
            if [ "$layout" = 1.0.2 ]; then
                segs=$(sed -n 's/.* \([0-9]*\) segments.*/\1/p' sum.txt)
                [ "$segs" -ge 20 ] || fail "$f has only $segs segments; expected many"
            fi
            "$HPROF" verify "$f" || fail "hprof verify found problems in $f"
            for java in "${JAVAS[@]}"; do
                echo "-- VisualVM on $("$java" -version 2>&1 | head -1)"
                rm -rf "$f.hwcache"
                "$java" -cp "$JAR:classes" VvmCheck "$f" "${EXPECT[@]}" ||
                    fail "VisualVM disagrees with $f (see above)"
            done
            checked=$((checked + 1))
        done
    done
done

step "scaling: --objects 20000 (id size 8, 16 KiB segments)"
N2=20000
"$HPROF" fixture big.hprof --objects $N2 --segment-size 16K
"$HPROF" verify big.hprof || fail "hprof verify found problems in big.hprof"
rm -rf big.hprof.hwcache
"$JDK17/bin/java" -cp "$JAR:classes" VvmCheck big.hprof \
    "com.example.fixture.Node=$N2" "com.example.fixture.SubNode=$((N2 / 20))" \
    "java.lang.String=$((16 + N2 / 10 + 41))" --roots 42 \
    --array "com.example.fixture.Node[]=$((N2 + N2 / 20 + 3 + N2 / 8)):$((N2 + N2 / 20))" \
    --prop "hprof.fixture.objects=$N2" --check-refs ||
    fail "VisualVM disagrees with big.hprof"

# Android's JNI MONITOR root (0x8E) is id + u4 thread + u4 frame in ART,
# hprof-conv and shark; VisualVM 2.1.5 reads it as an id alone and loses
# its place. Pin that, so a change on either side is noticed.
step "known incompatibility: VisualVM misreads Android's ROOT JNI MONITOR (0x8E)"
"$HPROF" fixture android.hprof --android --objects 10
"$HPROF" verify --ignore android-extension android.hprof ||
    fail "hprof verify found problems in android.hprof besides its Android sub-records"
rc=0
"$HPROF" verify --reader visualvm android.hprof >android-verify.txt || rc=$?
[ "$rc" -eq 1 ] && grep -q "^    rejects: ROOT JNI MONITOR (0x8E, 1 from offset" android-verify.txt ||
    fail "hprof verify --reader visualvm does not say VisualVM stops at 0x8E (exit $rc): $(cat android-verify.txt)"
echo "   hprof verify says: $(grep -m1 -o 'rejects: ROOT JNI MONITOR.*' android-verify.txt | cut -c1-100)"
rm -rf android.hprof.hwcache
rc=0
"$JDK17/bin/java" -cp "$JAR:classes" VvmCheck android.hprof >android.txt 2>&1 || rc=$?
if [ "$rc" -eq 0 ]; then
    fail "VisualVM now reads --android fixtures: update this test and fixture.h"
fi
grep -q "Invalid dump tag" android.txt ||
    fail "VisualVM failed on android.hprof in an unexpected way: $(head -3 android.txt)"
echo "   as expected: $(grep -m1 'Invalid dump tag' android.txt)"

echo "PASS: test_visualvm ($checked fixtures, ${#JAVAS[@]} JDK(s))"
