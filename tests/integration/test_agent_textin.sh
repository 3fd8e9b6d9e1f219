#!/usr/bin/env bash
# test_agent_textin.sh: every view reads the agent's text layout
# (java.hprof.txt, format=a; textprof/). The same program run with format=a
# and format=b gives the same SITES rows (class, counts, bytes, stack; trace
# serials aside) and the same CPU shares within what two runs allow; the
# hand-written JDK 8 layout file (tests/fixtures/jdk8-java.hprof.txt) gives
# the exact outputs in tests/fixtures/jdk8-java.expected/; the binary-only
# commands say what a text file is; cut and garbled text files get a clear
# `hprof: ...` message and exit status 1, never a crash.
#
# usage: bash test_agent_textin.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"
export TZ=UTC

# ------------------------------------------------ the JDK 8 layout fixture
FIX=$SRC/tests/fixtures/jdk8-java.hprof.txt
EXP=$SRC/tests/fixtures/jdk8-java.expected
step "the JDK 8 layout file: every view, exact output"
for v in "sites:sites" "samples:samples" "collapsed:collapsed" "collapsed --sites:collapsed-sites" "print:print"; do
    cmd=${v%%:*} file=${v##*:}
    # shellcheck disable=SC2086
    "$HPROF" $cmd "$FIX" >"fix.$file" 2>"fix.$file.err" || fail "hprof $cmd on the fixture: exit $?: $(cat "fix.$file.err")"
    diff -u "$EXP/$file.txt" "fix.$file" || fail "hprof $cmd on the fixture differs from $file.txt"
    [ ! -s "fix.$file.err" ] || fail "hprof $cmd on the fixture wrote to stderr: $(cat "fix.$file.err")"
done
cp "$FIX" jdk8-java.hprof.txt
"$HPROF" info jdk8-java.hprof.txt >fix.info || fail "hprof info on the fixture: exit $?"
diff -u "$EXP/info.txt" fix.info || fail "hprof info on the fixture differs from info.txt"
expect_eq "collapsed: the sampled stacks" "Demo.main;Demo.spin 30|Demo.main;java.lang.Thread.sleep 10" \
    "$(paste -sd'|' fix.collapsed)"
expect_eq "sites: the three rows" "3000 10 6000 20 java.lang.Object[]|800 20 1600 40 char[]|200 5 200 5 java.lang.String" \
    "$(awk '/^ +[0-9]+ /{print $4, $5, $6, $7, $9}' fix.sites | paste -sd'|')"

step "binary-only commands on a text file: what it is, what to do, exit 1"
for cmd in histo verify retained; do
    rc=0
    "$HPROF" $cmd jdk8-java.hprof.txt >/dev/null 2>err.$cmd || rc=$?
    expect_eq "hprof $cmd on text: exit status" 1 "$rc"
    grep -q "^hprof: jdk8-java.hprof.txt is the agent's text layout (format=a): it holds 1 SITES, 1 CPU SAMPLES, 1 CPU TIME, 6 TRACE and 3 THREAD START; " err.$cmd ||
        fail "hprof $cmd on text: message: $(cat err.$cmd)"
done
for cmd in histo retained; do
    grep -q "hprof $cmd needs a binary heap dump: run the agent with heap=dump,format=b, or take one with jcmd PID GC.heap_dump$" err.$cmd ||
        fail "hprof $cmd on text: message: $(cat err.$cmd)"
done
# disasm takes any bytes: a text file round-trips through it, as raw lines
"$HPROF" disasm jdk8-java.hprof.txt -o fix.disasm || fail "hprof disasm on text: exit $?"
grep -q '^raw ' fix.disasm || fail "hprof disasm on text: no raw lines: $(head -3 fix.disasm)"
"$HPROF" asm fix.disasm -o fix.back || fail "hprof asm of the text file's disasm: exit $?"
cmp fix.back jdk8-java.hprof.txt || fail "asm(disasm(jdk8-java.hprof.txt)) differs from it"

# --------------------------------------------------- real runs, text and binary
compile SitesDemo CpuDemo
# The sites SitesDemo makes on purpose (its // SITE- markers; the same in
# every run: the JVM's own allocations around them vary from run to run)
SITE_LINES="$(line_of SitesDemo.java SITE-WORKER)|$(line_of SitesDemo.java SITE-KEEP)|$(line_of SitesDemo.java SITE-ITEM)|$(line_of SitesDemo.java SITE-GARBAGE)|$(line_of SitesDemo.java SITE-INTS)"
# sites_norm OUT: those rows of `hprof sites` output, trace serial replaced
# by the trace's frames: live bytes, objs, alloc bytes, objs, class, stack
sites_norm() {
    awk -v lines="$SITE_LINES" '
        /^TRACE [0-9]+:/ { cur = $2; sub(/:$/, "", cur); fr[cur] = ""; next }
        cur != "" && /^\t/ { f = substr($0, 2); fr[cur] = (fr[cur] == "" ? f : fr[cur] "|" f); next }
        { cur = "" }
        /^ +[0-9]+ +[0-9.]+% / {
            if (fr[$8] ~ ("^SitesDemo[.$][^|]*[(]SitesDemo[.]java:(" lines ")[)]") &&
                $9 ~ /^(SitesDemo[$](Item|Item[[][]]|Garbage|Worker)|int[[][]])$/)
                print $4, $5, $6, $7, $9, fr[$8]
        }
    ' "$1" | sort
}
for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    A="-agentpath:$AGENT"

    step "heap=sites: text and binary give the same rows"
    jrun st$V 0 no "$A=heap=sites,cutoff=0,file=$WORK/s$V.txt" -cp classes SitesDemo 3 1000 50 16
    jrun sb$V 0 no "$A=heap=sites,cutoff=0,format=b,file=$WORK/s$V.bin" -cp classes SitesDemo 3 1000 50 16
    "$HPROF" sites "s$V.txt" >s$V.txt.sites || fail "hprof sites s$V.txt: exit $?"
    "$HPROF" sites "s$V.bin" >s$V.bin.sites || fail "hprof sites s$V.bin: exit $?"
    sites_norm s$V.txt.sites >s$V.txt.norm
    sites_norm s$V.bin.sites >s$V.bin.norm
    n=$(wc -l <s$V.txt.norm)
    expect_eq "SitesDemo's own sites (Worker, Item[], Item, Garbage, int[])" 5 "$n"
    diff -u s$V.bin.norm s$V.txt.norm || fail "hprof sites: text and binary rows differ"
    # the text's own rows, read with awk, are what hprof sites prints of it
    expect_eq "hprof sites of the text: as many rows as its SITES section" \
        "$(site_rows s$V.txt | wc -l)" "$(grep -cE '^ +[0-9]+ +[0-9.]+% ' s$V.txt.sites)"
    rc=0
    "$HPROF" samples "s$V.txt" >/dev/null 2>s$V.err || rc=$?
    expect_eq "hprof samples on a heap=sites text: exit status" 1 "$rc"
    grep -qE "^hprof: s$V.txt is the agent's text layout \(format=a\) with 1 SITES, [0-9]+ TRACE and [0-9]+ THREAD START, no CPU SAMPLES section \(written with cpu=samples\)$" s$V.err ||
        fail "hprof samples on a heap=sites text: message: $(cat s$V.err)"
    "$HPROF" collapsed --sites "s$V.txt" | grep -E '(^|;)SitesDemo[.](main|makeItems|makeGarbage);(SitesDemo[$](Item|Garbage|Worker)(\[\])?|int\[\]) [0-9]+$' | sort >s$V.txt.col || fail "collapsed --sites text"
    "$HPROF" collapsed --sites "s$V.bin" | grep -E '(^|;)SitesDemo[.](main|makeItems|makeGarbage);(SitesDemo[$](Item|Garbage|Worker)(\[\])?|int\[\]) [0-9]+$' | sort >s$V.bin.col || fail "collapsed --sites binary"
    diff -u s$V.bin.col s$V.txt.col || fail "hprof collapsed --sites: text and binary differ"
    expect_eq "collapsed --sites: SitesDemo's own stacks (those 5 and main's Worker[])" 6 "$(wc -l <s$V.txt.col)"
    echo "   ok: $n SitesDemo rows and stacks, the same"

    step "cpu=samples: text and binary agree on the hot stacks' shares"
    for f in txt bin; do
        fmt=a; [ $f = bin ] && fmt=b
        jrun c$V$f 0 no "$A=cpu=samples,interval=5,format=$fmt,file=$WORK/c$V.$f,cutoff=0" -cp classes CpuDemo 3 30 10
        "$HPROF" collapsed "c$V.$f" >c$V.$f.col || fail "hprof collapsed c$V.$f: exit $?"
        a=$(awk '$1 ~ /CpuDemo\.hotA$/ { s += $NF } END { print s + 0 }' c$V.$f.col)
        b=$(awk '$1 ~ /CpuDemo\.hotB$/ { s += $NF } END { print s + 0 }' c$V.$f.col)
        [ $((a + b)) -ge 200 ] || fail "$f: too few samples in hotA+hotB: $a + $b"
        want=$(grep '^share ' c$V$f.out | sed -E 's/.*hotA=([0-9.]+).*/\1/')
        awk -v a="$a" -v b="$b" -v w="$want" 'BEGIN { d = 100 * (a / (a + b) - w); if (d < 0) d = -d; exit !(d <= 3) }' ||
            fail "$f: hotA share $a/($a+$b) vs the run's measured $want: more than 3 pp apart"
        eval "share_$f=\$(awk -v a=$a -v b=$b 'BEGIN { printf \"%.4f\", a / (a + b) }')"
        grep -qx "CpuDemo.main;CpuDemo.hotA $a" c$V.$f.col || fail "$f: no single stack main;hotA"
        "$HPROF" samples "c$V.$f" >/dev/null || fail "hprof samples c$V.$f: exit $?"
    done
    # shellcheck disable=SC2154
    awk -v x="$share_txt" -v y="$share_bin" 'BEGIN { d = 100 * (x - y); if (d < 0) d = -d; exit !(d <= 6) }' ||
        fail "hotA share: text $share_txt vs binary $share_bin: more than 6 pp apart"
    echo "   ok: hotA share text $share_txt, binary $share_bin"
done
CTX=""

# ------------------------------------------------------ cut and garbled text
step "cut text files: exit 0 or 1 with an hprof: message, never a crash"
T=s$(echo "$FIRST_JDK" | sed -E 's/.*java-([0-9]+).*/\1/;s/.*temurin-([0-9]+).*/\1/').txt
[ -f "$T" ] || T=$(ls s*.txt | head -1)
size=$(stat -c %s "$T")
cuts=0
for off in $(awk -v n="$size" 'BEGIN { for (i = 0; i < 150; i++) print int(n * i / 150) }') $(stat -c %s "$FIX"); do
    for src in "$T" "$FIX"; do
        head -c "$off" "$src" >cut.txt
        for cmd in sites samples collapsed print info; do
            rc=0
            "$HPROF" $cmd cut.txt >/dev/null 2>cut.err || rc=$?
            [ "$rc" -le 1 ] || fail "hprof $cmd on $src cut at $off: exit $rc: $(head -3 cut.err)"
            # (info on a file too short to be text is the binary reader's)
            if [ "$rc" = 1 ] && [ "$cmd" != info ]; then
                grep -q "^hprof: " cut.err || fail "hprof $cmd on $src cut at $off: no hprof: message"
            fi
        done
        cuts=$((cuts + 1))
    done
done
head -c 3000 "$FIX" | head -c -1 >cut.txt
rc=0
"$HPROF" sites cut.txt >/dev/null 2>cut.err || rc=$?
expect_eq "a file cut in a line: exit status" 1 "$rc"
grep -q "^hprof: cut.txt: line [0-9]*: the file is cut" cut.err || fail "a cut file's message: $(cat cut.err)"
printf 'not a profile at all\n' >random.txt
rc=0
"$HPROF" sites random.txt >/dev/null 2>random.err || rc=$?
expect_eq "a file of no kind: exit status" 1 "$rc"
grep -qx "hprof: random.txt is not an HPROF file: neither binary (\"JAVA PROFILE 1.0.x\" and a NUL) nor the agent's text layout (\"JAVA PROFILE 1.0.x, created ...\")" random.err ||
    fail "a file of no kind: message: $(cat random.err)"
step "garbled text: exit 0 or 1, never a crash"
python3 - "$FIX" <<'PY'
import random, sys
src = open(sys.argv[1], 'rb').read()
r = random.Random(14)
for i in range(60):
    b = bytearray(src)
    for _ in range(r.randint(1, 20)):
        b[r.randrange(40, len(b))] = r.choice(b'0123456789:(). \t\n%x-\x00\xff')
    open('garble%02d.txt' % i, 'wb').write(bytes(b))
PY
for g in garble*.txt; do
    for cmd in sites samples collapsed print info histo; do
        rc=0
        "$HPROF" $cmd "$g" >/dev/null 2>g.err || rc=$?
        [ "$rc" -le 1 ] || fail "hprof $cmd $g: exit $rc: $(head -3 g.err)"
    done
done
echo "   ok: $cuts cut files, 60 garbled files"
[ "$FAILURES" = 0 ] || { echo "$FAILURES failure(s)"; exit 1; }
echo "test_agent_textin: all passed"
