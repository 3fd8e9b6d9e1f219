#!/usr/bin/env bash
# test_agent_redact.sh: secrets out of heap dumps (docs/redact.md), on JDK 17
# and 25, with demo-java/SecretDemo.java (secrets in a Latin-1 String, a
# UTF-16 String, a char[], a byte[], a long, an int and a double field, a
# long static; harmless Strings in SecretDemo$Config; a thread
# "worker-THREADNAME-6021"):
#  - HotSpot's dump (jcmd GC.heap_dump) holds every secret (secret_scan.py:
#    every encoding HPROF can give it); `hprof redact` leaves none of them,
#    and redact_check.py (a reader of its own) finds the output the input
#    byte for byte but for zeroed primitive values and '*' texts; the same
#    histogram; `hprof verify --hotspot` clean; VisualVM's heap library
#    reads the same classes, instances and roots, every reference resolving;
#  - --keep-thread-names keeps the thread's name (and nothing secret);
#    --keep-strings 'SecretDemo$Config' keeps exactly its 2 Strings; the
#    Java and JVM spellings of a glob give the same file; 'java.lang.Thread*'
#    keeps the names of Threads, not of the SecretDemo$Worker;
#  - gzip input and standard input give the same output as the plain file;
#  - bad input: a cut dump, a cut gzip, a record shorter than its layout,
#    the fuzz corpus and crash files: exit 1 with an "hprof: redact" message
#    and no output file (nor OUT.tmp.PID), or exit 0; never a crash; usage
#    errors exit 2;
#  - what is kept as it is leaks nothing: secrets appended to one record of
#    each kind kept (TRACE, HEAP SUMMARY, HEAP DUMP END, ...), in CLASS
#    DUMP's reserved ids and in UTF8 texts starting "HPROF SITES " that the
#    agent does not write are gone (the agent's own note is kept);
#  - the agent with redact=y: heap=dump and heap=all, format=b and format=a,
#    to a file and (heap=dump, format=b) to net=: no secret in any output
#    (and the same runs with redact=n hold them).
# usage: bash test_agent_redact.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

JAR=${VISUALVM_HEAP_JAR:-/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar}
[ -f "$JAR" ] || fail "VisualVM's heap library is missing: $JAR (apt-get install visualvm)"
compile SecretDemo
"$FIRST_JDK/bin/javac" --release 17 -d classes "$SRC/tests/integration/NetPeer.java" || fail "javac NetPeer"
mkdir -p vvm
"$FIRST_JDK/bin/javac" -cp "$JAR" -d vvm "$SRC/tests/integration/VvmCheck.java" || fail "javac VvmCheck"
vvm() { "$FIRST_JDK/bin/java" -cp "$JAR:vvm" VvmCheck "$@"; }
SECRETS="latin1 utf16 chars bytes long static_long double int"
scan() { python3 "$SRC/tests/integration/secret_scan.py" "$@"; }
# none FILE NAMES...: no secret of NAMES in FILE, in any encoding
none() {
    local f=$1
    shift
    local found
    found=$(scan "$f" "$@" | awk '$2 != 0')
    [ -z "$found" ] || fail "$f still holds: $(echo $found)"
}
# all FILE NAMES...: every secret of NAMES is in FILE (so `none` can fail)
all() {
    local f=$1
    shift
    local missing
    missing=$(scan "$f" "$@" | awk '$2 == 0')
    [ -z "$missing" ] || fail "$f lacks: $(echo $missing)"
}

# demo NAME AGENT_OPTS: SecretDemo under the agent (AGENT_OPTS), jcmd
# GC.heap_dump NAME.hs.hprof, jcmd JVMTI.data_dump (the agent's dump, when
# doe=n is in AGENT_OPTS), then stdin closed: the demo ends
demo() {
    local name=$1 opts=$2
    rm -f "$name".* fifo.$name
    mkfifo fifo.$name
    # -Xshare:off: heap=dump is HotSpot's dump, which with CDS names archived
    # objects it does not hold (verify warns of them; docs/heap-dump.md)
    timeout 120 "$JAVA" -Xmx256m -Xshare:off "-agentpath:$AGENT=$opts" -cp classes SecretDemo 90 \
        <fifo.$name >"$name.out" 2>"$name.err" &
    local pid=$!
    exec 7>fifo.$name
    local jpid # the JVM itself, child of timeout
    jpid=$(await_ready "$name" SecretDemo $pid)
    "$JDK/bin/jcmd" $jpid GC.heap_dump "$WORK/$name.hs.hprof" >"$name.jcmd1" ||
        fail "jcmd GC.heap_dump: $(cat "$name.jcmd1")"
    case $opts in
    *doe=n*)
        "$JDK/bin/jcmd" $jpid JVMTI.data_dump >"$name.jcmd2" || fail "jcmd JVMTI.data_dump: $(cat "$name.jcmd2")"
        for _ in $(seq 1 300); do
            grep -q 'done\.' "$name.err" 2>/dev/null && break
            sleep 0.1
        done
        ;;
    esac
    exec 7>&-
    local rc=0
    wait $pid || rc=$?
    rm -f fifo.$name
    [ $rc = 0 ] || fail "$name: java exited $rc: $(head -5 "$name.err")"
    ! grep -q "HPROF ERROR" "$name.err" || fail "$name: $(grep "HPROF ERROR" "$name.err" | head -3)"
}
# vvm_counts FILE: VisualVM's classes, instances and roots of FILE
vvm_counts() {
    vvm "$1" --check-refs >"$1.vvm" || fail "VisualVM on $1: $(grep FAIL "$1.vvm" | head -3)"
    sed -nE 's/^VisualVM read .*: ([0-9]+ classes, [0-9]+ instances, [0-9]+ GC roots).*/\1/p' "$1.vvm"
}

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"

    step "HotSpot's dump, and the agent's heap=dump,format=b,redact=y of the same JVM"
    demo b$V "heap=dump,format=b,redact=y,doe=n,file=$WORK/b$V.hprof"
    hs=b$V.hs.hprof
    all $hs $SECRETS thread config_static config_field

    step "hprof redact: no secret left, the structure the input's"
    "$HPROF" redact $hs -o r$V.hprof >r$V.log || fail "hprof redact: $(cat r$V.log)"
    none r$V.hprof $SECRETS thread config_static config_field
    expect_eq "output size" "$(stat -c %s $hs)" "$(stat -c %s r$V.hprof)"
    python3 "$SRC/tests/integration/redact_check.py" $hs r$V.hprof >r$V.check || fail "$(cat r$V.check)"
    grep -q "structure identical" r$V.check || fail "redact_check: $(cat r$V.check)"
    grep -q "strings kept 0, their arrays kept 0" r$V.log || fail "strings kept without an option: $(cat r$V.log)"
    "$HPROF" histo $hs >hs$V.histo
    "$HPROF" histo r$V.hprof >r$V.histo
    cmp -s hs$V.histo r$V.histo || fail "histograms differ: $(diff hs$V.histo r$V.histo | head -5)"
    "$HPROF" verify --hotspot r$V.hprof >r$V.verify || fail "hprof verify --hotspot: $(tail -5 r$V.verify)"
    grep -q ': 0 error(s), 0 warning(s)$' r$V.verify || fail "hprof verify: $(tail -3 r$V.verify)"
    expect_eq "VisualVM: classes, instances, roots" "$(vvm_counts $hs)" "$(vvm_counts r$V.hprof)"

    step "--keep-thread-names, --keep-strings"
    "$HPROF" redact $hs -o t$V.hprof --keep-thread-names >t$V.log || fail "$(cat t$V.log)"
    all t$V.hprof thread
    none t$V.hprof $SECRETS config_static config_field
    vvm t$V.hprof --string worker-THREADNAME-6021 >t$V.vvm || fail "VisualVM: $(grep FAIL t$V.vvm)"
    "$HPROF" redact $hs -o c$V.hprof --keep-strings 'SecretDemo$Config' >c$V.log || fail "$(cat c$V.log)"
    grep -q "strings kept 2, their arrays kept 2" c$V.log || fail "SecretDemo\$Config: $(cat c$V.log)"
    all c$V.hprof config_static config_field
    none c$V.hprof $SECRETS thread
    python3 "$SRC/tests/integration/redact_check.py" $hs c$V.hprof >c$V.check || fail "$(cat c$V.check)"
    "$HPROF" redact $hs -o g1$V.hprof --keep-strings 'java.lang.Thread*' >g1$V.log || fail "$(cat g1$V.log)"
    "$HPROF" redact $hs -o g2$V.hprof --keep-strings 'java/lang/Thread*' >g2$V.log || fail "$(cat g2$V.log)"
    cmp -s g1$V.hprof g2$V.hprof || fail "the Java and JVM spellings of a glob differ"
    grep -q "strings kept [1-9]" g1$V.log || fail "java.lang.Thread* kept no string: $(cat g1$V.log)"
    # the owner is the instance's class: the worker is a SecretDemo$Worker
    none g1$V.hprof $SECRETS thread

    step "gzip and standard input"
    gzip -c $hs >$hs.gz
    "$HPROF" redact $hs.gz -o z$V.hprof --quiet || fail "hprof redact of the gzip file"
    cmp -s r$V.hprof z$V.hprof || fail "gzip input: another output"
    "$HPROF" redact - -o s$V.hprof --quiet <$hs || fail "hprof redact of standard input"
    cmp -s r$V.hprof s$V.hprof || fail "standard input: another output"

    step "the agent's dumps with redact=y"
    none b$V.hprof $SECRETS thread config_static config_field
    "$HPROF" verify b$V.hprof >b$V.verify || fail "hprof verify: $(tail -5 b$V.verify)"
    grep -q ': 0 error(s), 0 warning(s)$' b$V.verify || fail "hprof verify: $(tail -3 b$V.verify)"
    vvm_counts b$V.hprof >/dev/null
    demo n$V "heap=dump,format=b,doe=n,file=$WORK/n$V.hprof"
    all n$V.hprof $SECRETS
    # the same objects, redacted or not: the same histogram for our classes
    for h in b n; do "$HPROF" histo --normalize $h$V.hprof | awk '$4 ~ /^SecretDemo/ { print $2, $3, $4 }' >$h$V.sd; done
    cmp -s b$V.sd n$V.sd || fail "SecretDemo classes: $(diff b$V.sd n$V.sd | head)"
    expect_eq "SecretDemo classes with instances (its lambda too)" 4 "$(wc -l <b$V.sd)"
    demo ab$V "heap=all,format=b,redact=y,doe=n,file=$WORK/ab$V.hprof"
    none ab$V.hprof $SECRETS thread config_static config_field
    demo at$V "heap=all,format=a,redact=y,doe=n,file=$WORK/at$V.txt"
    none at$V.txt $SECRETS thread config_static config_field
    grep -q '^THREAD START .*name="\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*\*"' at$V.txt ||
        fail "no THREAD START of the worker with its name as 22 '*'"
    demo atn$V "heap=all,format=a,doe=n,file=$WORK/atn$V.txt"
    all atn$V.txt thread
    demo dt$V "heap=dump,format=a,redact=y,doe=n,file=$WORK/dt$V.txt"
    none dt$V.txt $SECRETS thread config_static config_field
    grep -q '^HEAP DUMP BEGIN' dt$V.txt || fail "no heap dump in dt$V.txt"

    step "net=: the dump at exit streamed to a front end (NetPeer), redact=y and n"
    for red in y n; do
        rm -f net$red$V.port net$red$V.bin
        timeout 120 "$JAVA" -cp classes NetPeer net$red$V.port net$red$V.bin >net$red$V.peer 2>&1 &
        peer=$!
        for _ in $(seq 1 300); do
            grep -qE '^[0-9]+$' net$red$V.port 2>/dev/null && break
            sleep 0.1
        done
        grep -qE '^[0-9]+$' net$red$V.port || fail "NetPeer did not listen: $(cat net$red$V.peer)"
        timeout 120 "$JAVA" "-agentpath:$AGENT=heap=dump,format=b,redact=$red,net=localhost:$(cat net$red$V.port)" \
            -cp classes SecretDemo 60 </dev/null >net$red$V.out 2>net$red$V.err || fail "java: $(head -3 net$red$V.err)"
        wait $peer || fail "NetPeer: $(cat net$red$V.peer)"
        [ "$(stat -c %s net$red$V.bin)" -gt 100000 ] || fail "net=: only $(stat -c %s net$red$V.bin) bytes received"
    done
    none nety$V.bin $SECRETS
    all netn$V.bin $SECRETS
done
CTX=""

step "bad input: exit 1 with a message and no output, never a crash"
hs=$(ls b*.hs.hprof | head -1)
# cut 100 bytes before the end: inside HotSpot's last HEAP DUMP SEGMENT
# (only the 9-byte HEAP DUMP END follows it), so always within a record.
# The half, as before, sometimes fell exactly between two UTF8 records
# (seen once: 895 319 bytes, all of them whole records), a valid prefix
head -c $(($(stat -c %s $hs) - 100)) $hs >cut.hprof
rc=0
"$HPROF" redact cut.hprof -o cut.out 2>cut.err || rc=$?
expect_eq "exit status on a cut file" 1 $rc
grep -q '^hprof: redact cut.hprof: offset [0-9]*: .*(nothing written)$' cut.err || fail "message: $(cat cut.err)"
[ ! -e cut.out ] && ! ls cut.out.tmp* >/dev/null 2>&1 || fail "a cut file left an output"
n=0
for f in "$SRC"/tests/fuzz/corpus/* "$SRC"/tests/fuzz/crashes/*; do
    [ -f "$f" ] || continue
    rc=0
    "$HPROF" redact "$f" -o fz.out --quiet 2>fz.err || rc=$?
    case $rc in
    0) rm -f fz.out ;;
    1)
        grep -q '^hprof: redact ' fz.err || fail "$f: exit 1 without a message"
        [ ! -e fz.out ] && ! ls fz.out.tmp* >/dev/null 2>&1 || fail "$f: exit 1 left an output"
        n=$((n + 1))
        ;;
    *) fail "$f: exit $rc: $(head -3 fz.err)" ;;
    esac
done
[ $n -gt 0 ] || fail "no corpus file was refused: is the corpus there?"
echo "   $n corpus/crash files refused with a message"
step "what is kept as it is holds no secret: bytes past a record's layout, HPROF SITES texts"
# SECRETnn in hex: 8 bytes appended to one record of each kind kept as it
# is (id size 8), and in a CLASS DUMP's reserved ids
sec() { printf 'SECRET%02d' "$1" | od -An -tx1 | tr -d ' \n'; }
{
    echo 'header "JAVA PROFILE 1.0.2" id-size=8 time=1700000000000'
    echo 'UTF8 id=0x1 "java/lang/Object"'
    echo 'UTF8 id=0x9 "HPROF SITES password=hunter2SECRET30"'
    echo 'UTF8 id=0xa "HPROF SITES SAMPLES: 524288 3/1 SECRET31"'
    echo 'UTF8 id=0xb "HPROF SITES SAMPLES: 524288 3/1 1/0"'
    i=1
    for rec in "02 00000001 0000000000000100 00000000 0000000000000001" \
        "03 00000001" \
        "04 0000000000000050 0000000000000001 0000000000000001 0000000000000001 00000001 0000002a" \
        "05 00000001 00000001 00000001 0000000000000050" \
        "06 0000 00000000 00000030 00000002 0000000000000060 0000000000000004 00000001 00 00000001 00000001 00000018 00000018 00000018 00000018" \
        "07 00000030 00000002 0000000000000060 0000000000000004" \
        "0a 00000001 0000000000004000 00000001 0000000000000001 0000000000000001 0000000000000001" \
        "0b 00000001" \
        "0d 00000005 00000001 00000005 00000001" \
        "0e 00000000 0004" \
        "2c"; do
        tag=${rec%% *}
        echo "record tag=0x$tag"
        [ "$rec" = "$tag" ] || echo "  raw ${rec#"$tag" }"
        echo "  raw $(sec $i)"
        i=$((i + 1))
    done
    echo 'HEAP_DUMP_SEGMENT'
    echo "  CLASS_DUMP id=0x100 trace=1 reserved1=0x$(sec 20) reserved2=0x$(sec 21) size=0"
    echo 'HEAP_DUMP_END'
} >kept.txt
"$HPROF" asm kept.txt -o kept.hprof || fail "hprof asm kept.txt"
expect_eq "secrets in the file made to leak" 15 "$(grep -ao 'SECRET[0-9][0-9]' kept.hprof | wc -l)"
"$HPROF" redact kept.hprof -o kept.red >kept.log || fail "hprof redact kept.hprof: $(cat kept.log)"
expect_eq "secrets left by hprof redact" 0 "$(grep -ao 'SECRET' kept.red | wc -l)"
expect_eq "output size" "$(stat -c %s kept.hprof)" "$(stat -c %s kept.red)"
grep -q "bytes outside a record's layout zeroed 104 (in 12 records)" kept.log ||
    fail "summary of the bytes past a layout: $(cat kept.log)"
grep -q "UTF8 records redacted 2," kept.log || fail "summary of UTF8 records: $(cat kept.log)"
grep -aq 'HPROF SITES SAMPLES: 524288 3/1 1/0' kept.red || fail "the agent's own note was not kept"
# one byte short of its layout: refused
printf '%s\n' 'header "JAVA PROFILE 1.0.2" id-size=8 time=1700000000000' 'record tag=0x0e' '  raw 00000000 00' >short.txt
"$HPROF" asm short.txt -o short.hprof || fail "hprof asm short.txt"
rc=0
"$HPROF" redact short.hprof -o short.out 2>short.err || rc=$?
expect_eq "exit status on a record shorter than its layout" 1 $rc
expect_eq "message" "hprof: redact short.hprof: offset 31: CONTROL SETTINGS record of length 5, its layout needs 6 (nothing written)" "$(cat short.err)"
[ ! -e short.out ] && [ ! -e short.out.tmp ] || fail "a refused file left an output"

step "a gzip input cut short: refused, as gzip -t and hprof convert do"
gzip -c $hs >whole.gz
{ cat whole.gz; head -c 12 whole.gz; } >cutz.gz
head -c $(($(stat -c %s whole.gz) - 1)) whole.gz >cutz2.gz
for z in cutz.gz cutz2.gz; do
    ! gzip -t $z 2>/dev/null || fail "gzip -t accepts $z: not a cut file"
    rc=0
    "$HPROF" redact $z -o $z.out 2>$z.err || rc=$?
    expect_eq "exit status on $z" 1 $rc
    expect_eq "message" "hprof: redact $z: gzip input: unexpected end of file (nothing written)" "$(cat $z.err)"
    [ ! -e $z.out ] && [ ! -e $z.out.tmp ] || fail "$z left an output"
done
"$HPROF" redact whole.gz -o whole.out --quiet || fail "hprof redact of the whole gzip file"

for args in "" "$hs" "$hs -o" "$hs -o x --bogus" "$hs $hs -o x"; do
    rc=0
    # shellcheck disable=SC2086 # the arguments as words
    "$HPROF" redact $args >/dev/null 2>&1 || rc=$?
    expect_eq "exit status of 'hprof redact $args'" 2 $rc
done
rc=0
"$HPROF" redact "$hs" -o x --keep-strings '' >/dev/null 2>ks.err || rc=$?
expect_eq "exit status of hprof redact --keep-strings ''" 2 $rc
grep -q "^hprof: redact: --keep-strings needs a non-empty GLOB" ks.err || fail "--keep-strings '': $(cat ks.err)"
[ ! -e x ] || fail "--keep-strings '': x was written"
echo "test_agent_redact: all checks passed"
