#!/usr/bin/env bash
# test_convert.sh: `hprof convert` on real files: fixtures of every variant,
# HotSpot's own dumps (jcmd GC.heap_dump, plain and -gz=1, JDK 17 and 25),
# Android 1.0.3 files, and bad input.
#
# usage: bash test_convert.sh HPROF_TOOL PROJECT_DIR WORKDIR   (run by ctest)
# Owns the command's contract: exit codes 0/1/2; outputs that `hprof verify`
# finds clean; byte-identical round trips where a conversion is invertible
# (ids 4 -> 8 -> 4, 1.0.2 -> 1.0.1 -> 1.0.2 on our own segmenting, plain ->
# gzip -> plain), the same histogram and sub-record counts where it is not
# (HotSpot's segment boundaries); refusals that name the id and leave no
# file (and records of unknown tags when ids change); HotSpot's -gz layout read by python3's gzip, zcat, Java's
# GZIPInputStream (GzCheck.java) and hprof; Android
# files that VisualVM's heap library then opens. A missing JDK or VisualVM
# jar is a failure, not a skip.
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
rm -rf "$WORK"
mkdir -p "$WORK/classes"
cd "$WORK"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
step() {
    echo "== $*"
}
# expect_rc WANT CMD...: runs CMD (stdout to out.txt, stderr to err.txt)
expect_rc() {
    local want=$1 rc=0
    shift
    "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want: $(head -c 400 err.txt)"
}
# clean FILE [verify options]: hprof verify finds nothing
clean() {
    local f=$1
    shift
    "$HPROF" verify "$@" "$f" >verify.txt 2>&1 || fail "hprof verify $* $f: $(grep -E 'error|warning' verify.txt | head -5)"
}
# canon FILE: what must survive any conversion: the histogram and the
# sub-record counts (ROOT kinds, dumps), not the bytes
canon() {
    "$HPROF" histo "$1"
    "$HPROF" info "$1" | awk '/^heap sub-record/ { on = 1 } on && NF == 0 { exit } on { $NF = ""; print }'
}
# no_file PATH: nothing at PATH, and no temporary file next to it
no_file() {
    [ ! -e "$1" ] || fail "$1 exists after a failed conversion"
    ! ls "$1".tmp.* >/dev/null 2>&1 || fail "a temporary file of $1 was left behind"
}

[ -f "$JAR" ] || fail "VisualVM's heap library is missing: $JAR (apt-get install visualvm)"
[ -x "$JDK17/bin/java" ] || fail "JDK 17 is missing: $JDK17"
[ -x "$JDK25/bin/java" ] || fail "JDK 25 is missing: $JDK25"

step "usage: --help exits 0, bad options exit 2"
expect_rc 0 "$HPROF" convert --help
grep -q -- "--id-size 4|8" out.txt || fail "convert --help does not list --id-size"
"$HPROF" fixture f.hprof --id-size 4 >/dev/null
for bad in "f.hprof" "f.hprof -o" "-o x.hprof" "f.hprof -o x.hprof --id-size 5" \
           "f.hprof -o x.hprof --id-size 4x" "f.hprof -o x.hprof --id-size 48" \
           "f.hprof -o x.hprof --version 1.0.3" "f.hprof -o x.hprof --segment-size 0" \
           "f.hprof -o x.hprof --level 10" "f.hprof -o x.hprof --bogus" "f.hprof g.hprof -o x.hprof"; do
    # shellcheck disable=SC2086
    expect_rc 2 "$HPROF" convert $bad
    grep -q "^hprof: convert: " err.txt || fail "convert $bad: no 'hprof: convert:' message"
    no_file x.hprof
done

step "a record of an unknown tag: copied with the ids unchanged, refused when they change"
printf 'header "JAVA PROFILE 1.0.2" id-size=4 time=0\nrecord tag=0x99 time=5\n  raw 010203\nend\n' >odd.txt
"$HPROF" asm odd.txt -o odd.hprof
expect_rc 0 "$HPROF" convert odd.hprof -o x.hprof --id-size 4
cmp odd.hprof x.hprof || fail "convert --id-size 4 changed a 4-byte file with an unknown record"
rm -f x.hprof
for opt in "--id-size 8" "--renumber"; do
    # shellcheck disable=SC2086
    expect_rc 1 "$HPROF" convert odd.hprof -o x.hprof $opt
    what=resized
    [ "$opt" = --renumber ] && what=renumbered
    want="hprof: convert: odd.hprof: offset 31: record of unknown tag 0x99 (3 bytes): ids in it, if any, cannot be $what; such a file converts only with its ids unchanged"
    [ "$(cat err.txt)" = "$want" ] || fail "convert $opt: message '$(cat err.txt)', expected '$want'"
    no_file x.hprof
done

step "fixtures: every variant converted every way, verify clean, same histogram"
n=0
for fopts in "--id-size 4" "--id-size 8" "--id-size 4 --version 1.0.1" "--version 1.0.1" \
             "--id-size 4 --segment-size 4096" "--android --id-size 4" "--android"; do
    # shellcheck disable=SC2086
    "$HPROF" fixture in.hprof $fopts --objects 300 >/dev/null
    canon in.hprof >in.canon
    for copts in "" "--id-size 4" "--id-size 8" "--version 1.0.1" "--version 1.0.2" \
                 "--segment-size 700" "--gzip" "--id-size 4 --version 1.0.1 --gzip" \
                 "--id-size 8 --version 1.0.2 --segment-size 100000" "--id-size 4 --renumber"; do
        rm -f out.hprof
        # shellcheck disable=SC2086
        rc=0; "$HPROF" convert in.hprof -o out.hprof $copts 2>err.txt || rc=$?
        if [[ "$fopts" != *"--id-size 4"* && "$copts" == *"--id-size 4"* && "$copts" != *renumber* ]]; then
            # the 8-byte fixture's ids are above 4 GiB (0x7f10...): refused
            [ "$rc" = 1 ] || fail "[$fopts] -> [$copts]: exit $rc, expected a refusal"
            grep -q "^hprof: convert: in.hprof: id 0x7f10000[0-9a-f]* at offset [0-9]* does not fit 4 bytes" err.txt ||
                fail "[$fopts] -> [$copts]: $(cat err.txt)"
            no_file out.hprof
            continue
        fi
        if [[ "$fopts" != *"--id-size 4"* && "$copts" == *renumber* ]]; then
            # renumbering names does not help objects: still refused
            [ "$rc" = 1 ] || fail "[$fopts] -> [$copts]: exit $rc, expected a refusal"
            no_file out.hprof
            continue
        fi
        [ "$rc" = 0 ] || fail "[$fopts] -> [$copts]: exit $rc: $(cat err.txt)"
        if [[ "$fopts" == *android* ]]; then
            clean out.hprof
            "$HPROF" info out.hprof >info.txt
            ! grep -qE "INTERNED|FINALIZING|DEBUGGER|CLEANUP|VM INTERNAL|JNI MONITOR|UNREACHABLE|HEAP DUMP INFO|NODATA" info.txt ||
                fail "[$fopts] -> [$copts]: Android sub-records left: $(grep -E 'INTERNED|INFO' info.txt)"
            grep -q "^ROOT UNKNOWN *8 " info.txt || fail "[$fopts] -> [$copts]: not 8 ROOT UNKNOWN: $(grep UNKNOWN info.txt)"
            "$HPROF" histo out.hprof | cmp -s - <("$HPROF" histo in.hprof) || fail "[$fopts] -> [$copts]: histogram differs"
        else
            clean out.hprof
            canon out.hprof | cmp -s - in.canon || fail "[$fopts] -> [$copts]: histogram or sub-record counts differ"
        fi
        n=$((n + 1))
    done
done
echo "   $n conversions verified clean with the same histogram"

step "invertible: 4 -> 8 -> 4, 1.0.2 -> 1.0.1 -> 1.0.2, plain -> gzip -> plain: the same bytes"
"$HPROF" fixture a.hprof --id-size 4 --objects 2000 >/dev/null
"$HPROF" convert a.hprof -o a8.hprof --id-size 8
"$HPROF" convert a8.hprof -o a84.hprof --id-size 4
cmp a.hprof a84.hprof || fail "4 -> 8 -> 4 differs"
[ "$(stat -c %s a8.hprof)" -gt "$(stat -c %s a.hprof)" ] || fail "a8.hprof is not larger"
for seg in 1M 4096; do
    "$HPROF" fixture b.hprof --id-size 8 --segment-size $seg --objects 2000 >/dev/null
    "$HPROF" convert b.hprof -o b101.hprof --version 1.0.1
    [ "$(head -c 18 b101.hprof)" = "JAVA PROFILE 1.0.1" ] || fail "b101.hprof is not 1.0.1"
    "$HPROF" info b101.hprof | grep -q "^HEAP DUMP  *1 " || fail "b101.hprof has not exactly one HEAP DUMP"
    opt=""; [ $seg = 4096 ] && opt="--segment-size 4096"
    # shellcheck disable=SC2086
    "$HPROF" convert b101.hprof -o b102.hprof --version 1.0.2 $opt
    cmp b.hprof b102.hprof || fail "1.0.2 -> 1.0.1 -> 1.0.2 differs (segments of $seg)"
done
"$HPROF" convert a.hprof -o a.hprof.gz
[ "$(head -c 2 a.hprof.gz | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "-o X.gz did not write gzip"
"$HPROF" convert a.hprof.gz -o a-back.hprof
cmp a.hprof a-back.hprof || fail "plain -> gzip -> plain differs"
"$HPROF" convert a.hprof -o a-gz.hprof --gzip
"$HPROF" convert a.hprof.gz -o a-plain.gz --plain
cmp a.hprof a-plain.gz || fail "--plain to a .gz name did not write plain bytes"
echo "   all byte-identical"

step "HotSpot dumps (jcmd GC.heap_dump, plain and -gz=1) of demo-java/HeapDemo"
"$JDK17/bin/javac" --release 17 -d classes "$PROJECT/demo-java/HeapDemo.java"
"$JDK17/bin/javac" -Xlint:all -Werror --release 17 -cp "$JAR" -d classes \
    "$PROJECT/tests/integration/VvmCheck.java" "$PROJECT/tests/integration/GzCheck.java"
# hs_dump JDK NAME JVM_OPTS...: NAME.hprof and NAME.hprof.gz of one JVM
hs_dump() {
    local jdk=$1 name=$2
    shift 2
    rm -f "$name.in"
    mkfifo "$name.in"
    "$jdk/bin/java" "$@" -cp classes HeapDemo 1000 50 120 <"$name.in" >"$name.out" 2>"$name.err" &
    local pid=$!
    exec 9>"$name.in"
    for _ in $(seq 200); do
        grep -q ready "$name.out" && break
        sleep 0.1
    done
    grep -q ready "$name.out" || fail "HeapDemo ($name) did not start: $(head -5 "$name.err")"
    "$jdk/bin/jcmd" "$pid" GC.heap_dump "$PWD/$name.hprof" >/dev/null || fail "jcmd GC.heap_dump failed"
    "$jdk/bin/jcmd" "$pid" GC.heap_dump -gz=1 "$PWD/$name.hprof.gz" >/dev/null || fail "jcmd -gz=1 failed"
    exec 9>&-
    wait "$pid" || fail "HeapDemo ($name) exited $?"
    [ -s "$name.hprof" ] && [ -s "$name.hprof.gz" ] || fail "no dump from $name"
}
for jdk in "$JDK17" "$JDK25"; do
    v=$(basename "$jdk")
    step "[$v] small heap below 4 GiB (-Xmx64m)"
    hs_dump "$jdk" "hs-$v" -Xmx64m
    h="hs-$v.hprof"
    # HotSpot's -gz -> plain: exactly zcat's bytes
    "$HPROF" convert "$h.gz" -o "hs-$v-gunzip.hprof"
    zcat "$h.gz" | cmp - "hs-$v-gunzip.hprof" || fail "[$v] -gz=1 -> plain differs from zcat"
    # 8 -> 4: HotSpot's names are Symbol* addresses: refused ...
    expect_rc 1 "$HPROF" convert "$h" -o "$h.4" --id-size 4
    grep -q "id 0x[0-9a-f]* at offset [0-9]* does not fit 4 bytes: it is a name's (UTF8) id.*--renumber" err.txt ||
        fail "[$v] $(cat err.txt)"
    echo "   without --renumber: $(cut -c1-110 err.txt)"
    no_file "$h.4"
    # ... and converted when names, frames and JNI refs are renumbered
    "$HPROF" convert "$h" -o "$h.4" --id-size 4 --renumber
    clean "$h.4" --hotspot
    [ "$("$HPROF" info "$h.4" | sed -n 's/^format: .*id size \([48]\).*/\1/p')" = 4 ] || fail "[$v] $h.4 is not id size 4"
    "$HPROF" histo "$h" | cmp -s - <("$HPROF" histo "$h.4") || fail "[$v] id 4 histogram differs"
    rm -rf "$h.4.hwcache"
    "$jdk/bin/java" -cp "$JAR:classes" VvmCheck "$h.4" --heapdemo 1000:50 >vvm.txt 2>&1 ||
        fail "[$v] VisualVM disagrees with $h.4: $(grep -v '^  ok' vvm.txt | head -5)"
    # 1.0.2 -> 1.0.1 -> 1.0.2: HotSpot's segment boundaries are not ours:
    # the same histogram and counts, not the same bytes
    "$HPROF" convert "$h" -o "$h.101" --version 1.0.1
    clean "$h.101" --hotspot
    "$HPROF" convert "$h.101" -o "$h.102" --version 1.0.2
    clean "$h.102" --hotspot
    canon "$h" >a.canon
    canon "$h.102" | cmp -s - a.canon || fail "[$v] 1.0.2 -> 1.0.1 -> 1.0.2 lost something"
    # our gzip of HotSpot's dump: python3's gzip, zcat, hprof info read it
    "$HPROF" convert "$h" -o "$h.our.gz"
    zcat "$h.our.gz" | cmp - "$h" || fail "[$v] zcat of our gzip differs"
    python3 - "$h.our.gz" "$h" <<'EOF' || fail "[$v] our gzip layout is not HotSpot's"
import gzip, sys, zlib
data = open(sys.argv[1], 'rb').read()
plain = open(sys.argv[2], 'rb').read()
assert gzip.decompress(data) == plain, "python3 gzip reads other bytes"
pos, sizes = 0, []
while pos < len(data):
    assert data[pos:pos + 3] == b'\x1f\x8b\x08', "member %d: no gzip magic" % len(sizes)
    assert data[pos + 3] == 0x10, "member %d: FLG %#x, want FCOMMENT only" % (len(sizes), data[pos + 3])
    end = data.index(b'\0', pos + 10)
    assert data[pos + 10:end] == b'HPROF BLOCKSIZE=1048576', "member %d comment" % len(sizes)
    d = zlib.decompressobj(31)
    sizes.append(len(d.decompress(data[pos:])))
    pos = len(data) - len(d.unused_data)
want = [1 << 20] * (len(plain) >> 20) + ([len(plain) % (1 << 20)] if len(plain) % (1 << 20) else [])
assert sizes == want, "member sizes %s, want %s" % (sizes, want)
print("   %d members of %s bytes, each with FCOMMENT HPROF BLOCKSIZE=1048576" % (len(sizes), sorted(set(sizes))))
EOF
    "$HPROF" info "$h.our.gz" | grep -q "^file: .*(gzip)" || fail "[$v] hprof info does not read our gzip"
    clean "$h.our.gz" --hotspot
    "$jdk/bin/java" -cp classes GzCheck "$h.our.gz" "$h" >gzcheck.txt 2>&1 ||
        fail "[$v] java.util.zip.GZIPInputStream: $(cat gzcheck.txt)"
    "$HPROF" convert "$h.our.gz" -o "$h.again" --plain
    cmp "$h" "$h.again" || fail "[$v] plain -> our gzip -> plain differs"

    step "[$v] heap above 4 GiB (-XX:HeapBaseMinAddress=8g): refused even with --renumber"
    hs_dump "$jdk" "hs-high-$v" -Xmx64m -XX:HeapBaseMinAddress=8g
    expect_rc 1 "$HPROF" convert "hs-high-$v.hprof" -o high4.hprof --id-size 4 --renumber
    grep -q "^hprof: convert: hs-high-$v.hprof: id 0x[2-9a-f][0-9a-f]\{8\} at offset [0-9]* does not fit 4 bytes: it is an object's id" err.txt ||
        fail "[$v] unexpected message: $(cat err.txt)"
    no_file high4.hprof
    echo "   $(cut -c1-120 err.txt)"
done

step "Android 1.0.3 -> standard 1.0.2: verify clean, VisualVM opens it"
"$HPROF" fixture an.hprof --android --version 1.0.3 --objects 1000 >/dev/null
"$HPROF" convert an.hprof -o an2.hprof
[ "$(head -c 18 an2.hprof)" = "JAVA PROFILE 1.0.2" ] || fail "Android output is not 1.0.2"
clean an2.hprof
rm -rf an2.hprof.hwcache
"$JDK17/bin/java" -cp "$JAR:classes" VvmCheck an2.hprof com.example.fixture.Node=1000 \
    com.example.fixture.SubNode=50 com.example.fixture.Marker=3 --classes 33 --roots 49 \
    --root-kind "unknown=8" --total-instances 1429 --check-refs >vvm.txt 2>&1 ||
    fail "VisualVM disagrees with an2.hprof: $(grep -v '^  ok' vvm.txt | head -5)"
echo "   VisualVM: 33 classes, 1429 instances, 49 roots (8 unknown)"
# the corpus's minimal Android file: only the Android problems go away
C="$PROJECT/tests/fuzz/corpus/android-103.hprof"
"$HPROF" convert "$C" -o c2.hprof
probs() { "$HPROF" verify "$@" | awk '/^problems|^  [a-z-]+ +[0-9]+ (error|warning)/ { print $1, $2 }'; }
{ probs "$C" || true; } | grep -v '^android-extension ' >in.probs
probs c2.hprof >out.probs || true
cmp -s in.probs out.probs || fail "android-103: problems besides the Android ones changed: $(diff in.probs out.probs)"
! grep -q android-extension out.probs || fail "android-103: Android sub-records left"
"$HPROF" info c2.hprof | grep -q "^ROOT UNKNOWN *7 " || fail "android-103: not 7 ROOT UNKNOWN"

step "bad input: the fuzz corpus, its crashes, truncations: exit 0 or 1, never a crash"
for f in "$PROJECT"/tests/fuzz/corpus/* "$PROJECT"/tests/fuzz/crashes/*; do
    for opts in "" "--id-size 4 --renumber" "--id-size 8 --version 1.0.1" "--gzip --segment-size 64"; do
        rm -f bad.out
        # shellcheck disable=SC2086
        rc=0; "$HPROF" convert "$f" -o bad.out $opts 2>err.txt || rc=$?
        [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$(basename "$f") [$opts]: exit $rc"
        if [ "$rc" = 1 ]; then
            grep -q "^hprof: convert: " err.txt || fail "$(basename "$f"): no message"
            no_file bad.out
        fi
    done
done
size=$(stat -c %s a.hprof)
for cut in 10 40 $((size / 2)) $((size - 1)); do
    head -c "$cut" a.hprof >cut.hprof
    expect_rc 1 "$HPROF" convert cut.hprof -o cut.out --version 1.0.1
    grep -qE "truncated|not an HPROF file" err.txt || fail "cut at $cut: $(cat err.txt)"
    no_file cut.out
done
gsize=$(stat -c %s a.hprof.gz)
head -c $((gsize / 2)) a.hprof.gz >cut.gz
expect_rc 1 "$HPROF" convert cut.gz -o cut.out
no_file cut.out
echo "   $(cat err.txt)"

step "standard input and output"
"$HPROF" convert - -o p.hprof <a.hprof
cmp a.hprof p.hprof || fail "stdin -> file differs"
"$HPROF" convert a.hprof -o - --id-size 8 | "$HPROF" convert - -o - --id-size 4 | cmp - a.hprof ||
    fail "4 -> 8 -> 4 through pipes differs"
gzip -c a.hprof | "$HPROF" convert - -o p.hprof
cmp a.hprof p.hprof || fail "gzip on stdin -> file differs"
"$HPROF" fixture m.hprof --id-size 4 --objects 300000 >/dev/null
# 1.0.1 reads a dump twice: from a pipe only when it fits the 4 MiB window
rc=0; "$HPROF" convert - -o p101.hprof --version 1.0.1 <a.hprof || rc=$?
[ "$rc" = 0 ] || fail "a small dump from a pipe to 1.0.1: exit $rc"
rc=0; cat m.hprof | "$HPROF" convert - -o m101.hprof --version 1.0.1 2>err.txt || rc=$?
[ "$rc" = 1 ] && grep -q "cannot be read again" err.txt || fail "a 30 MB dump from a pipe to 1.0.1: exit $rc: $(cat err.txt)"
no_file m101.hprof
echo "   $(cat err.txt)"

step "outputs that are no regular file: /dev/null and a FIFO in place, a symbolic link refused"
"$HPROF" convert a.hprof -o /dev/null --id-size 8
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
mkfifo fifo
cat fifo >fifo.out &
"$HPROF" convert a.hprof -o fifo --gzip
wait $!
zcat fifo.out | cmp - a.hprof || fail "through a FIFO: other bytes"
[ -p fifo ] || fail "the FIFO was replaced"
echo keep >target.txt
ln -s target.txt link.hprof
expect_rc 1 "$HPROF" convert a.hprof -o link.hprof
grep -q "cannot write link.hprof: it is a symbolic link; refusing to write through it" err.txt ||
    fail "symbolic link: $(cat err.txt)"
[ "$(cat target.txt)" = keep ] && [ -L link.hprof ] || fail "the link or its target was touched"

step "streaming: memory does not grow with the file"
/usr/bin/time -f %M -o rss.txt "$HPROF" convert m.hprof -o m8.hprof --id-size 8 --version 1.0.1
rss=$(cat rss.txt)
echo "   $(stat -c %s m.hprof)-byte file to 1.0.1 with 8-byte ids: max RSS $rss KB"
[ "$rss" -lt 20000 ] || fail "max RSS $rss KB for a $(stat -c %s m.hprof)-byte file"

echo "PASS: test_convert"
