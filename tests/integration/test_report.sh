#!/usr/bin/env bash
# test_report.sh: `hprof report` on the agent's real output (JDK 17 and 25,
# -Xcheck:jni), format=a and format=b, read back from the JSON with
# report_check.py (node totals recomputed from the preorder arrays):
#  - CpuDemo: the CPU flame's samples through hotA and through hotB equal
#    those another reader (hprof collapsed) counts in the file, in both
#    formats (the agent's accuracy against the program's CPU clock is
#    test_agent_cpu's check);
#  - the binary file and its `hprof print` text give the same report data
#    (flames and tables equal, whole);
#  - SitesDemo 3 threads x 500 items: Item, Garbage and int[] objects and
#    bytes exact in the allocation flames, live ones too, in both formats;
#    the program's part of the text and binary reports equal; sample= says
#    the figures are estimates;
#  - TimesDemo: calls exact (cpu=times, text only); MonitorDemo: contended
#    entries exact (monitor=y, text only);
#  - HeapDemo: histogram instances exact, the text and binary heap dumps
#    giving the same histogram and roots;
#  - the JDK 8-layout fixture opens with its numbers;
#  - --diff: SitesDemo 200 against 2000 items shows Item grown by exactly
#    the difference; CpuDemo 30/10 against 10/30 shows hotB grown; two runs
#    of LambdaDemo diffed show no hidden-class address and no change;
#  - files cut short give what they hold and a warning;
#  - the binary CpuDemo page in headless Chromium (tests/report's harness,
#    scripts/deps.sh installs it): hotA's share as the data gives it, and the
#    table; the SitesDemo page: the site classes' shares, zoom;
#  - the HTML (-o) holds the data and no http:// or https:// reference;
#  - bad input and bad usage: messages and exit statuses 1 and 2;
#  - scripts/gen_report_perf.py's 100 000 distinct stacks: a page under 6 MB.
#
# usage: bash test_report.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

RC="python3 $SRC/tests/integration/report_check.py"
report() { # report OUT.json FILE... (--diff allowed)
    local out=$1
    shift
    "$HPROF" report "$@" --json "$out" 2>"$out.err" || fail "hprof report $* failed: $(cat "$out.err")"
}
# within A B TOL: |A - B| <= TOL (decimals)
within() {
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}

compile CpuDemo SitesDemo TimesDemo MonitorDemo HeapDemo LambdaDemo

step "the JDK 8-layout fixture"
report j8.json "$SRC/tests/fixtures/jdk8-java.hprof.txt"
expect_eq "jdk8 spin share" 0.7500 "$($RC through j8.json cpu-samples Demo.spin)"
expect_eq "jdk8 Object[] live bytes" 3000 "$($RC leaf j8.json live-bytes 'java.lang.Object[]' Demo.fill)"
expect_eq "jdk8 char[] alloc objects" 40 "$($RC leaf j8.json alloc-objects 'char[]' Demo.name)"
expect_eq "jdk8 spin calls" 3 "$($RC calls j8.json Demo.spin)"
grep -q '"kind":"text-jdk8"' j8.json || fail "the fixture is not named text-jdk8"

step "100 000 distinct stacks: a page well under 10 MB"
python3 "$SRC/scripts/gen_report_perf.py" perf.txt 100000
"$HPROF" report perf.txt -o perf.html || fail "the perf report failed"
size=$(stat -c %s perf.html)
[ "$size" -lt 6000000 ] || fail "the page of 100 000 stacks is $size bytes"
expect_eq "perf leaves" 100000 "$(python3 -c "import json
s = open('perf.html').read(); s = s[s.index('>', s.index('hprof-data')) + 1:s.rindex('</script>')]
d = json.loads(s); n = d['flames'][0]['nodes']; print(sum(1 for x in n['depth'] if x == 6))")"
# rendered in headless Chromium within the issue's 2 s, measured by the page
# itself (script start to first render) and from navigation start to load
node "$SRC/tests/report/check_report.js" perf.html --flame cpu-samples --max-render-ms 2000 \
    --max-load-ms 2000 --search "java.lang.Thread.run:99.9:100" --screenshot shot-perf.png >perf.measure 2>perf.err ||
    fail "the page of 100 000 stacks in Chromium: $(cat perf.err)"
echo "   ok: 100 000 stacks: $size bytes, $(cat perf.measure)"

step "bad input and usage"
printf 'not a profile at all\n' >junk.txt
rc=0
"$HPROF" report junk.txt --json junk.json 2>junk.err || rc=$?
expect_eq "junk exit status" 1 "$rc"
grep -q '^hprof: report: junk.txt: not an HPROF file' junk.err || fail "junk message: $(cat junk.err)"
rc=0
"$HPROF" report --json x.json 2>usage.err || rc=$?
expect_eq "no FILE exit status" 2 "$rc"
rc=0
"$HPROF" report --diff "$SRC/tests/fixtures/jdk8-java.hprof.txt" --json x.json 2>usage.err || rc=$?
expect_eq "--diff with one file exit status" 2 "$rc"
[ ! -e x.json ] || fail "a failed report left x.json"

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    A="-agentpath:$AGENT"

    # The report must show exactly what the agent wrote: the samples through
    # hotA and hotB are counted from the file by another reader (hprof
    # collapsed, print.c) and must be equal. How close the agent's samples
    # come to the program's own CPU clock is test_agent_cpu's check.
    step "CpuDemo: the flame's samples through hotA and hotB, exactly those of the file"
    for fmt in a b; do
        jrun c$fmt$V 0 no "$A=cpu=samples,interval=5,format=$fmt,file=$WORK/c$fmt$V.prof,cutoff=0" -cp classes CpuDemo 3 30 10
        report c$fmt$V.json "c$fmt$V.prof"
        "$HPROF" collapsed c$fmt$V.prof >c$fmt$V.collapsed || fail "hprof collapsed c$fmt$V.prof"
        for m in CpuDemo.hotA CpuDemo.hotB; do
            want=$(awk -v m="$m" '{ n = split($1, f, ";"); for (i = 1; i <= n; i++) if (f[i] == m) { s += $2; break } }
                END { print s + 0 }' c$fmt$V.collapsed)
            [ "$want" -ge 50 ] || fail "format=$fmt: only $want samples through $m in the file"
            expect_eq "format=$fmt: samples through $m" "$want" "$($RC count c$fmt$V.json cpu-samples $m)"
        done
    done
    step "the run's settings: the agent's options, interval, depth, the JVM (format=a and b alike)"
    for fmt in a b; do
        expect_eq "format=$fmt: settings" \
            "cpu=samples interval=5 depth=4 cutoff=0 options=cpu=samples,interval=5,format=$fmt,file=$WORK/c$fmt$V.prof,cutoff=0 jvm-version=$V" \
            "$(python3 - c$fmt$V.json <<'PY'
import json, re, sys
s = dict(json.load(open(sys.argv[1]))['settings'])
m = re.search(r' (\d+)[.+][^ ]*$', s.get('jvm', ''))
print('cpu=%s interval=%s depth=%s cutoff=%s options=%s jvm-version=%s' % (
    s.get('cpu'), s.get('interval (ms)'), s.get('depth'), s.get('cutoff'), s.get('options'),
    m.group(1) if m else s.get('jvm')))
PY
)"
    done
    grep -q '"kind":"text"' ca$V.json || fail "format=a is not named text"
    grep -q '"kind":"binary"' cb$V.json || fail "format=b is not named binary"

    step "binary and its text (hprof print) give the same report data"
    "$HPROF" print cb$V.prof >cbp$V.txt
    report cbp$V.json cbp$V.txt
    expect_eq "binary vs text" "same 1 flames 1 tables" "$($RC same cb$V.json cbp$V.json)"

    step "SitesDemo: objects and bytes exact in both formats"
    for fmt in a b; do
        jrun s$fmt$V 0 no "$A=heap=sites,cutoff=0,format=$fmt,file=$WORK/s$fmt$V.prof" -cp classes SitesDemo 3 500 4 100
        report s$fmt$V.json "s$fmt$V.prof"
        J=s$fmt$V.json
        expect_eq "$fmt Item objects" 1500 "$($RC leaf $J alloc-objects 'SitesDemo$Item' SitesDemo.makeItems)"
        expect_eq "$fmt Item bytes" 36000 "$($RC leaf $J alloc-bytes 'SitesDemo$Item' SitesDemo.makeItems)"
        expect_eq "$fmt Item live" 1500 "$($RC leaf $J live-objects 'SitesDemo$Item' SitesDemo.makeItems)"
        expect_eq "$fmt Garbage objects" 1500 "$($RC leaf $J alloc-objects 'SitesDemo$Garbage' SitesDemo.makeGarbage)"
        expect_eq "$fmt Garbage bytes" 24000 "$($RC leaf $J alloc-bytes 'SitesDemo$Garbage' SitesDemo.makeGarbage)"
        expect_eq "$fmt Garbage live" 0 "$($RC leaf $J live-objects 'SitesDemo$Garbage' SitesDemo.makeGarbage)"
        expect_eq "$fmt int[] objects" 12 "$($RC leaf $J alloc-objects 'int[]' SitesDemo.makeGarbage)"
        expect_eq "$fmt int[] bytes" 4992 "$($RC leaf $J alloc-bytes 'int[]' SitesDemo.makeGarbage)"
        expect_eq "$fmt sites table Item" 1500 "$($RC table $J sites alloc_objs class 'SitesDemo$Item')"
    done
    expect_eq "SitesDemo text vs binary" "same 4 flames 1 tables" "$($RC same sa$V.json sb$V.json SitesDemo)"

    step "the SitesDemo page in headless Chromium: the site classes with their shares, zoom"
    "$HPROF" report sb$V.prof -o sites$V.html || fail "hprof report -o failed"
    bounds() { # FLAME NAME: the share the data gives, +-0.5 points, as MIN:MAX
        $RC through sb$V.json "$1" "$2" | awk '{ printf "%.2f:%.2f", 100 * $1 - 0.5, 100 * $1 + 0.5 }'
    }
    node "$SRC/tests/report/check_report.js" sites$V.html \
        --flame alloc-bytes --frame "SitesDemo\$Item:$(bounds alloc-bytes 'SitesDemo$Item')" \
        --frame "SitesDemo.makeItems:$(bounds alloc-bytes SitesDemo.makeItems)" --zoom SitesDemo.makeItems \
        --flame alloc-objects --frame "SitesDemo\$Garbage:$(bounds alloc-objects 'SitesDemo$Garbage')" \
        --flame live-objects --no-frame "SitesDemo\$Garbage" \
        --text "SitesDemo\$Item" --screenshot shot-sites$V.png >checks$V.out 2>checks$V.err ||
        fail "the sites page in Chromium: $(cat checks$V.err)"

    step "sample=: the sites are estimates, and say so"
    jrun ss$V 0 no "$A=heap=sites,sample=4096,cutoff=0,file=$WORK/ss$V.prof" -cp classes SitesDemo 3 500 4 100
    report ss$V.json ss$V.prof
    grep -q '"estimate":"estimated from [0-9]* samples (sample=4096 bytes)"' ss$V.json ||
        fail "no estimate in the sample= report"

    step "TimesDemo: calls exact"
    # JDK 17's own JNI local-ref leak under MethodExit (test_agent_times.sh)
    [ "$V" = 17 ] && JRUN_JVM_WARNING='^WARNING: JNI local refs: [0-9]+, exceeds capacity: 32$'
    jrun t$V 0 no "$A=cpu=times,file=$WORK/t$V.prof" -cp classes TimesDemo 1000 7 13 50
    JRUN_JVM_WARNING=""
    report t$V.json t$V.prof
    expect_eq "inner calls" 7000 "$($RC calls t$V.json TimesDemo.inner)"
    expect_eq "outer calls" 1000 "$($RC calls t$V.json TimesDemo.outer)"
    expect_eq "thrower calls" 13 "$($RC calls t$V.json TimesDemo.thrower)"
    expect_eq "inner calls flame" 1.0000 \
        "$(python3 -c "import sys; sys.path.insert(0, '$SRC/tests/integration'); import report_check as r
d = r.load('t$V.json'); f = r.flame(d, 'cpu-times-calls')
print('%.4f' % (sum(w for p, k, w in r.tree(f, d['names']) if p[-1] == 'TimesDemo.inner') / 7000))")"

    step "MonitorDemo: contended entries exact"
    jrun m$V 0 no "$A=monitor=y,file=$WORK/m$V.prof" -cp classes MonitorDemo 4 10 5 100
    want=$(sed -n 's/^contended = //p' m$V.out)
    report m$V.json m$V.prof
    expect_eq "contended entries" "$want" "$($RC table m$V.json monitor-time count monitor 'MonitorDemo$Lock')"
    grep -q '"id":"monitor-ms"' m$V.json || fail "no monitor-ms flame"

    step "HeapDemo: histogram exact, text and binary dumps alike"
    for fmt in a b; do
        jrun h$fmt$V 0 no "$A=heap=dump,format=$fmt,file=$WORK/h$fmt$V.prof" -cp classes HeapDemo 1000 50 1 </dev/null
        # (--no-retained: the text layout gives no dominator tree to compare)
        report h$fmt$V.json h$fmt$V.prof --no-retained
        expect_eq "$fmt Item instances" 1000 "$($RC histo h$fmt$V.json 'HeapDemo$Item' | cut -d' ' -f1)"
        expect_eq "$fmt SubItem instances" 50 "$($RC histo h$fmt$V.json 'HeapDemo$SubItem' | cut -d' ' -f1)"
        expect_eq "$fmt Item[] instances" 1 "$($RC histo h$fmt$V.json 'HeapDemo$Item[]' | cut -d' ' -f1)"
    done
    # two runs: the JDK's own objects vary a little, the program's do not
    expect_eq "HeapDemo text vs binary" "same 0 flames 2 tables" "$($RC same ha$V.json hb$V.json HeapDemo)"
    # one run: the binary dump and its text give the same histogram and roots
    "$HPROF" print hb$V.prof >hbp$V.txt
    report hbp$V.json hbp$V.txt
    expect_eq "HeapDemo binary vs its text" "same 0 flames 2 tables" "$($RC same hb$V.json hbp$V.json)"
    # by default the binary dump also gets its retained tables (test_report_heap.sh)
    report hbr$V.json hb$V.prof
    expect_eq "HeapDemo binary: tables" "['retained-objects', 'retained-classes', 'histogram', 'roots']" \
        "$(python3 -c "import json; print([t['id'] for t in json.load(open('hbr$V.json'))['tables']])")"

    step "diff: SitesDemo 200 against 2000 items"
    jrun d1$V 0 no "$A=heap=sites,cutoff=0,format=b,file=$WORK/d1$V.prof" -cp classes SitesDemo 3 200 4 100
    jrun d2$V 0 no "$A=heap=sites,cutoff=0,format=b,file=$WORK/d2$V.prof" -cp classes SitesDemo 3 2000 4 100
    report d$V.json --diff d1$V.prof d2$V.prof
    expect_eq "Item before/after/change" "14400 144000 129600" \
        "$(python3 -c "import sys; sys.path.insert(0, '$SRC/tests/integration'); import report_check as r
t = r.table(r.load('d$V.json'), 'sites-diff'); print(*[x[1:] for x in t['rows'] if x[0] == 'SitesDemo\$Item'][0])")"
    ch=$($RC change d$V.json alloc-bytes SitesDemo.makeItems)
    within "$ch" 0.5 0.5 || fail "makeItems did not grow in the diff flame: $ch"

    step "diff: CpuDemo 30/10 against 10/30"
    jrun cr$V 0 no "$A=cpu=samples,interval=5,format=b,file=$WORK/cr$V.prof,cutoff=0" -cp classes CpuDemo 3 10 30
    report cd$V.json --diff cb$V.prof cr$V.prof
    ch=$($RC change cd$V.json cpu-samples CpuDemo.hotB)
    within "$ch" 0.5 0.25 || fail "hotB should have grown by about 0.5 of the samples: $ch"

    step "diff: two runs of LambdaDemo compare (no hidden-class address)"
    for r in 1 2; do
        jrun l$r$V 0 no "$A=heap=dump,format=b,file=$WORK/l$r$V.prof" -cp classes LambdaDemo 300 200
    done
    report ld$V.json --diff l1$V.prof l2$V.prof
    expect_eq "hidden names" 0 "$($RC hidden ld$V.json)"
    lam=$(python3 -c "import sys; sys.path.insert(0, '$SRC/tests/integration'); import report_check as r
t = r.table(r.load('ld$V.json'), 'histogram-diff')
print(*sorted(' '.join(map(str, x)) for x in t['rows'] if x[0].startswith('LambdaDemo\$\$Lambda')), sep=',')")
    expect_eq "lambda rows" 'LambdaDemo$$Lambda+<hidden> 500 500 0' "$lam"

    step "files cut short: what is there, and a warning"
    # binary: the cut falls in the last record, CPU SAMPLES, which is lost;
    # the records before it (settings, traces) stay
    head -c $(($(stat -c %s cb$V.prof) - 100)) cb$V.prof >cbcut$V.prof
    report cbcut$V.json cbcut$V.prof
    grep -q '"warnings":\["cbcut'"$V"'.prof is cut short or damaged (truncated at byte' cbcut$V.json ||
        fail "binary cut: no warning of the cut"
    grep -q '\["depth","4"\]' cbcut$V.json || fail "binary cut: the settings before the cut are lost"
    # text: the cut falls in the CPU SAMPLES rows: those before it are shown
    head -c $(($(stat -c %s ca$V.prof) - 200)) ca$V.prof >cacut$V.txt
    report cacut$V.json cacut$V.txt
    grep -q "cacut$V.txt is cut short or damaged" cacut$V.json || fail "text cut: no warning of the cut"
    n=$($RC through cacut$V.json cpu-samples CpuDemo.hotA)
    want=$($RC through ca$V.json cpu-samples CpuDemo.hotA)
    within "$n" "$want" 0.05 || fail "text cut: hotA's share $n, whole file $want"

    step "the CpuDemo page in headless Chromium: hotA's share as measured, the table's rows"
    "$HPROF" report cb$V.prof -o cpu$V.html || fail "hprof report -o failed"
    rows=$(python3 -c "import sys; sys.path.insert(0, '$SRC/tests/integration'); import report_check as r
print(len(r.table(r.load('cb$V.json'), 'cpu-samples')['rows']))")
    # the share of all samples through hotA, as the data gives it
    sa=$($RC through cb$V.json cpu-samples CpuDemo.hotA)
    lo=$(awk -v a="$sa" 'BEGIN { printf "%.2f", 100 * a - 0.5 }')
    hi=$(awk -v a="$sa" 'BEGIN { printf "%.2f", 100 * a + 0.5 }')
    node "$SRC/tests/report/check_report.js" cpu$V.html --flame cpu-samples \
        --frame "CpuDemo.hotA:$lo:$hi" --search "CpuDemo.hot:90:100" --table "cpu-samples:$rows" \
        --screenshot shot-cpu$V.png >check$V.out 2>check$V.err ||
        fail "the page in Chromium: $(cat check$V.err)"

    step "the HTML page: the data inside, nothing from the network"
    "$HPROF" report ca$V.prof sa$V.prof -o page$V.html --title "run $V" || fail "hprof report -o failed"
    grep -q 'id="hprof-data"' page$V.html || fail "no data element in the page"
    ! grep -q 'http://\|https://' page$V.html || fail "the page refers to the network"
    expect_eq "page mode" 600 "$(stat -c %a page$V.html)"
    # two inputs: their traces apart, both flames there
    grep -q '"1000300' page$V.html || fail "the second input's traces are not kept apart"
done
echo "test_report: all passed"
