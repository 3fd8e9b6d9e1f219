#!/usr/bin/env bash
# test_agent_sites.sh: heap=sites on real JVMs (JDK 17 and 25, -Xcheck:jni),
# checked from the TEXT output with awk/grep, independently of the project's
# reader: exact allocated and live counts and bytes per site, trace frames and
# lines, THREAD START/END, the SITES layout (header, columns, ranks, cutoff,
# TRACE blocks once and before use), thread=y, depth=1, lineno=n, sample=,
# and `hprof verify` on every binary run; `hprof redact` keeps the agent's
# HPROF SITES notes (NOTE, SAMPLES, U8): `hprof sites` reads the same after it.
#
# usage: bash test_agent_sites.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
# Env: HPROF_TEST_JDKS="jdk1 jdk2" overrides the JDK list;
#      HPROF_TEST_KEEP_GOING=1 reports every failure instead of stopping at the first.
# The demo is demo-java/SitesDemo.java; its header documents every number used here.
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

# ---------------------------------------------------------------- the test
compile SitesDemo
D=SitesDemo.java
L_ITEM=$(line_of $D SITE-ITEM)
L_KEEP=$(line_of $D SITE-KEEP)
L_GARB=$(line_of $D SITE-GARBAGE)
L_INTS=$(line_of $D SITE-INTS)
L_WI=$(line_of $D SITE-WORK-ITEMS)
L_WG=$(line_of $D SITE-WORK-GARBAGE)
L_RUN=$(line_of $D SITE-RUN)
L_WORKER=$(line_of $D SITE-WORKER)
F_ITEM="SitesDemo.makeItems(SitesDemo.java:$L_ITEM)|SitesDemo.work(SitesDemo.java:$L_WI)|SitesDemo\$Worker.run(SitesDemo.java:$L_RUN)"
F_KEEP="SitesDemo.makeItems(SitesDemo.java:$L_KEEP)|SitesDemo.work(SitesDemo.java:$L_WI)|SitesDemo\$Worker.run(SitesDemo.java:$L_RUN)"
F_GARB="SitesDemo.makeGarbage(SitesDemo.java:$L_GARB)|SitesDemo.work(SitesDemo.java:$L_WG)|SitesDemo\$Worker.run(SitesDemo.java:$L_RUN)"
F_INTS="SitesDemo.makeGarbage(SitesDemo.java:$L_INTS)|SitesDemo.work(SitesDemo.java:$L_WG)|SitesDemo\$Worker.run(SitesDemo.java:$L_RUN)"
F_WORKER="SitesDemo.main(SitesDemo.java:$L_WORKER)"

compile ClassMixDemo
F_MIX="ClassMixDemo.make(ClassMixDemo.java:$(line_of ClassMixDemo.java SITE-MIX))"
# ClassMixDemo (see ClassMixDemo.java): MIX_S String[4] and MIX_I Integer[4]
# of 32 bytes each, alternating, at one line through Array.newInstance
MIX_S=3000 MIX_I=2000 MIX_SZ=32

compile LiveDemo
LD=LiveDemo.java
F_KEPT="LiveDemo.main(LiveDemo.java:$(line_of $LD SITE-KEPT))"
F_DROP="LiveDemo.main(LiveDemo.java:$(line_of $LD SITE-DROPPED))"
F_LATE="LiveDemo.lambda\$main\$0(LiveDemo.java:$(line_of $LD SITE-LATE))"
F_BIG="LiveDemo.main(LiveDemo.java:$(line_of $LD SITE-BIG))"
# LiveDemo (see LiveDemo.java): KEEP Kept and DROP Dropped of 16 bytes each;
# BIG long[1048576] of 8388624 bytes each, 5 033 174 400 bytes in all
KEEP=10000 DROP=100000 LATE=1000 BIG=600 LONGS=8388624
# a young generation that no run fills: no GC of the JVM's own collects the
# Dropped before the exit (G1's default first heap here is ~10 MB, and the
# agent's warm-up allocates a random amount: a young GC could come first)
LIVE_HEAP=-Xms256m
# redacted_sites FILE KIND ARGS...: the agent's notes of KIND ("NOTE: ",
# "SAMPLES: ", "U8: ") are in the binary FILE, `hprof redact` keeps every
# one of them (it keeps only the texts the agent writes), and `hprof sites
# ARGS` reads the same from the redacted file as from FILE
redacted_sites() {
    local f=$1 kind=$2
    shift 2
    local n
    n=$(grep -ac "HPROF SITES $kind" "$f" || true)
    [ "$n" -gt 0 ] || fail "$f: no HPROF SITES $kind note"
    "$HPROF" redact "$f" -o "$f.red" --quiet || fail "hprof redact $f"
    expect_eq "$f: HPROF SITES notes kept by hprof redact" "$(grep -ac 'HPROF SITES ' "$f")" \
        "$(grep -ac 'HPROF SITES ' "$f.red")"
    "$HPROF" sites "$@" "$f" >"$f.sites" || fail "hprof sites $f"
    "$HPROF" sites "$@" "$f.red" >"$f.red.sites" || fail "hprof sites $f.red"
    cmp -s "$f.sites" "$f.red.sites" ||
        fail "hprof sites of $f redacted: $(diff "$f.sites" "$f.red.sites" | head -5)"
}
# the flags of the last ALLOC SITES record of a binary file (independent of
# the project's reader)
sites_flags() {
    python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read()
p = d.index(b"\0") + 13
f = None
while p + 9 <= len(d):
    tag, _, n = struct.unpack(">BII", d[p:p + 9])
    if tag == 0x06:
        f = struct.unpack(">H", d[p + 9:p + 11])[0]
    p += 9 + n
print(f)' "$1"
}

# T=4 N=5000 M=300 K=100 (see SitesDemo.java): sizes on 64-bit HotSpot with
# compressed oops (-Xmx512m): Item 24, Garbage 16, int[100] 416, Item[5000] 20016
T=4 N=5000 M=300 K=100
ITEM=24 GARB=16 INTS=$((16 + 4 * K)) KEEPSZ=$((16 + 4 * N))

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    A="-agentpath:$AGENT"

    step "exact sites, text, cutoff=0: every site listed"
    jrun s$V 0 no "$A=heap=sites,file=$WORK/s$V.txt,cutoff=0" -cp classes SitesDemo $T $N $M $K
    grep -q '^ready ' s$V.out || fail "s$V: the demo did not print ready"
    OUT=s$V.txt
    check_layout $OUT
    check_site $OUT 'SitesDemo$Item' "$F_ITEM" 1 $((T * N)) $((T * N * ITEM)) $((T * N)) $((T * N * ITEM))
    check_site $OUT 'SitesDemo$Item[]' "$F_KEEP" 1 $T $((T * KEEPSZ)) $T $((T * KEEPSZ))
    check_site $OUT 'SitesDemo$Garbage' "$F_GARB" 1 $((T * N)) $((T * N * GARB)) 0 0
    check_site $OUT 'int[]' "$F_INTS" 1 $((T * M)) $((T * M * INTS)) 0 0
    check_threads $OUT sites- $T
    # trace 300000 is the empty system trace; no thread serial 200000 is started
    if grep -q '^THREAD START (.*id = 200000,' $OUT; then fail "$OUT: a THREAD START uses the reserved serial 200000"; fi
    grep -q '^THREAD START (obj=[0-9a-f]*, id = [0-9]*, name="main", group="main")$' $OUT ||
        fail "$OUT: no THREAD START for main"
    # the main thread's own allocations: T Worker objects at SITE-WORKER, all live
    WROWS=$(site $OUT 'SitesDemo$Worker' "$F_WORKER")
    expect_eq "$OUT: SitesDemo\$Worker (allocated by the main thread at line $L_WORKER) allocated objects" \
        $T "$(sum_col "$WROWS" 7)"
    expect_eq "$OUT: SitesDemo\$Worker live objects" $T "$(sum_col "$WROWS" 5)"

    step "two classes of one size at one trace: one row each, exact (the site cache checks the class)"
    jrun mix$V 0 no "$A=heap=sites,file=$WORK/mix$V.txt,cutoff=0" -cp classes ClassMixDemo $MIX_S $MIX_I
    OUT=mix$V.txt
    check_layout $OUT
    traces $OUT >$OUT.traces
    # rows of CLASS whose trace holds the SITE-MIX frame: "count alloc_n alloc_bytes live_n live_bytes traces"
    mix_rows() {
        site_rows $OUT | awk -v cls="$1" -v f="$F_MIX" -v tf="$OUT.traces" '
            BEGIN { FS = "\t"; while ((getline l < tf) > 0) { split(l, a, "\t"); fr[a[1]] = a[3] } FS = " " }
            $9 == cls && index("|" fr[$8] "|", "|" f "|") { n++; an += $7; ab += $6; ln += $5; lb += $4; t = t $8 " " }
            END { printf "%d %d %d %d %d %s\n", n, an, ab, ln, lb, t }'
    }
    RS_=$(mix_rows 'java.lang.String[]')
    RI_=$(mix_rows 'java.lang.Integer[]')
    expect_eq "$OUT: String[] at SITE-MIX: rows, allocated, bytes, live, bytes" \
        "1 $MIX_S $((MIX_S * MIX_SZ)) $MIX_S $((MIX_S * MIX_SZ))" "$(echo "$RS_" | cut -d' ' -f1-5)"
    expect_eq "$OUT: Integer[] at SITE-MIX: rows, allocated, bytes, live, bytes" \
        "1 $MIX_I $((MIX_I * MIX_SZ)) $MIX_I $((MIX_I * MIX_SZ))" "$(echo "$RI_" | cut -d' ' -f1-5)"
    expect_eq "$OUT: String[] and Integer[] share their trace" "$(echo "$RS_" | cut -d' ' -f6)" \
        "$(echo "$RI_" | cut -d' ' -f6)"

    step "cutoff=0.01, depth=1: short traces, rows under 1% of live bytes left out"
    jrun c$V 0 no "$A=heap=sites,file=$WORK/c$V.txt,cutoff=0.01,depth=1" -cp classes SitesDemo $T $N $M $K
    OUT=c$V.txt
    check_layout $OUT
    check_site $OUT 'SitesDemo$Item' "SitesDemo.makeItems(SitesDemo.java:$L_ITEM)" 1 $((T * N)) $((T * N * ITEM)) $((T * N)) $((T * N * ITEM))
    check_site $OUT 'SitesDemo$Item[]' "SitesDemo.makeItems(SitesDemo.java:$L_KEEP)" 1 $T $((T * KEEPSZ)) $T $((T * KEEPSZ))
    awk -F'\t' '$3 ~ /\|/ {print}' $OUT.traces >c$V.deep
    [ ! -s c$V.deep ] || fail "$OUT: depth=1 but traces with more frames: $(head -2 c$V.deep)"
    site_rows $OUT | awk '$2 + 0 < 1.00 {print}' >c$V.small
    [ ! -s c$V.small ] || fail "$OUT: cutoff=0.01 but rows below 1%: $(head -3 c$V.small)"
    if site_rows $OUT | awk '$9 == "SitesDemo$Garbage"' | grep -q .; then
        fail "$OUT: the dropped Garbage site (0 live bytes) is listed despite cutoff=0.01"
    fi
    NA=$(site_rows s$V.txt | wc -l)
    NC=$(site_rows $OUT | wc -l)
    [ "$NC" -lt "$NA" ] && [ "$NC" -ge 2 ] || fail "$OUT: cutoff=0.01 kept $NC rows (cutoff=0 listed $NA)"
    echo "   ok: $NC rows kept of $NA"

    step "default cutoff, thread=y: one trace per thread, (thread=N) on each"
    jrun t$V 0 no "$A=heap=sites,file=$WORK/t$V.txt,thread=y" -cp classes SitesDemo $T $N $M $K
    OUT=t$V.txt
    check_layout $OUT
    check_threads $OUT sites- $T
    site_rows $OUT | awk '$4 == 0 {print}' >t$V.zero
    [ ! -s t$V.zero ] || fail "$OUT: rows with 0 live bytes survive the default cutoff 0.0001: $(head -2 t$V.zero)"
    ROWS=$(site $OUT 'SitesDemo$Item' "$F_ITEM")
    expect_eq "$OUT: Item rows with thread=y" $T "$(echo "$ROWS" | grep -c .)"
    expect_eq "$OUT: Item allocated over all threads" $((T * N)) "$(sum_col "$ROWS" 7)"
    for i in $(seq 0 $((T - 1))); do
        tid=$(grep "name=\"sites-$i\"" $OUT | sed -E 's/.*id = ([0-9]+),.*/\1/')
        r=$(echo "$ROWS" | awk -v t="$tid" '$10 == t')
        [ -n "$r" ] || fail "$OUT: no Item row whose trace says (thread=$tid) (sites-$i)"
        expect_eq "$OUT: Item allocated by sites-$i" "$N $((N * ITEM)) $N" "$(echo "$r" | awk '{print $7, $6, $5}')"
        grep -qE "^TRACE [0-9]+: \(thread=$tid\)\$" $OUT || fail "$OUT: no 'TRACE n: (thread=$tid)' line"
    done
    echo "   ok: $T Item rows, one per thread, $N each"

    step "lineno=n: every frame says Unknown line"
    jrun l$V 0 no "$A=heap=sites,file=$WORK/l$V.txt,lineno=n,cutoff=0" -cp classes SitesDemo $T $N $M $K
    OUT=l$V.txt
    check_layout $OUT
    U="SitesDemo.makeItems(SitesDemo.java:Unknown line)|SitesDemo.work(SitesDemo.java:Unknown line)|SitesDemo\$Worker.run(SitesDemo.java:Unknown line)"
    check_site $OUT 'SitesDemo$Item' "$U" 1 $((T * N)) $((T * N * ITEM)) $((T * N)) $((T * N * ITEM))
    if grep -P '^\t.*:[0-9]+\)$' $OUT | head -1 | grep -q .; then
        fail "$OUT: lineno=n but a frame has a line number: $(grep -P '^\t.*:[0-9]+\)$' $OUT | head -1)"
    fi

    step "format=b (idsize 8 and 4): hprof verify, records present"
    for ids in 8 4; do
        jrun b$V-$ids 0 no "$A=heap=sites,format=b,idsize=$ids,file=$WORK/b$V-$ids.hprof" -cp classes SitesDemo $T $N $M $K
        "$HPROF" verify b$V-$ids.hprof >b$V-$ids.verify 2>&1 || fail "hprof verify b$V-$ids.hprof: $(tail -5 b$V-$ids.verify)"
        "$HPROF" info b$V-$ids.hprof >b$V-$ids.info 2>&1 || fail "hprof info b$V-$ids.hprof failed"
        grep -q "id size $ids" b$V-$ids.info || fail "b$V-$ids.hprof: info does not say id size $ids: $(grep format b$V-$ids.info)"
        for rec in "ALLOC SITES" "LOAD CLASS" "TRACE" "FRAME" "START THREAD" "END THREAD" "UTF8" "CONTROL SETTINGS"; do
            grep -qE "^$rec +[1-9]" b$V-$ids.info || fail "b$V-$ids.hprof: no $rec record ($(tr '\n' ';' <b$V-$ids.info))"
        done
        expect_eq "b$V-$ids.hprof: ALLOC SITES records" 1 "$(awk '/^ALLOC SITES/ {print $3}' b$V-$ids.info)"
        echo "   ok: idsize=$ids verifies"
    done

    step "sample=524288: estimated figures, labelled as such"
    # (a sample taken after the GC of the exit, by the JVM's own exit code,
    # adds the live note to the header: both say what they must)
    SN=500000
    jrun e$V 0 no "$A=heap=sites,file=$WORK/e$V.txt,sample=524288" -cp classes SitesDemo $T $SN 10 $K
    OUT=e$V.txt
    check_layout $OUT
    grep -qE '^SITES BEGIN \(ordered by live bytes, estimated from samples every 524288 bytes(\) |; live as of the GC forced when the exit began at [0-9:]+: [0-9]+ sampled objects? allocated after it counts? as live\) )' $OUT ||
        fail "$OUT: the SITES header does not say the figures are estimated: $(grep '^SITES BEGIN (' $OUT)"
    ROWS=$(site $OUT 'SitesDemo$Item' "$F_ITEM")
    EST=$(sum_col "$ROWS" 7)
    # 2 000 000 Items, 48 MB: about 92 samples; accept a factor of 2 either way
    [ "$EST" -ge $((T * SN / 2)) ] && [ "$EST" -le $((T * SN * 2)) ] ||
        fail "$OUT: estimated Item count $EST, expected within a factor 2 of $((T * SN))"
    echo "   ok: estimated $EST Items for $((T * SN)) allocated"
    # each row says how many samples it comes from; the figures are those
    # samples scaled by sample / (the row's object size), no more, no less
    check_samples() { # FILE: rows of its SITES sections
        site_rows "$1" | awk '
            { if ($10 !~ /^\[[0-9]+$/) { print "no sample count: " $0; bad = 1; next }
              ns = substr($10, 2) + 0; nl = $12 + 0; size = $6 / $7
              w = (size < 524288) ? int(524288 / size) : 1
              if ($7 != ns * w || $5 != nl * w) { print "not " ns "/" nl " samples x " w ": " $0; bad = 1 }
              n++ }
            END { if (!n) { print "no rows"; bad = 1 } exit bad }' >"$1.samples" ||
            fail "$1: sample counts: $(head -3 "$1.samples")"
    }
    check_samples $OUT
    jrun eb$V 0 no "$A=heap=sites,file=$WORK/eb$V.hprof,format=b,sample=512k" -cp classes SitesDemo $T $SN 10 $K
    "$HPROF" verify eb$V.hprof >eb$V.verify 2>&1 || fail "hprof verify eb$V.hprof: $(tail -5 eb$V.verify)"
    "$HPROF" sites --cutoff 0 eb$V.hprof >eb$V.txt 2>eb$V.err || fail "hprof sites eb$V.hprof: $(cat eb$V.err)"
    grep -qE '^SITES BEGIN \(ordered by live bytes, estimated from samples every 524288 bytes(\) |; live as of the GC forced when the exit began at [0-9:]+: [0-9]+ sampled objects? allocated after it counts? as live\) )' eb$V.txt ||
        fail "eb$V.txt: hprof sites does not say the figures are estimated: $(grep '^SITES BEGIN' eb$V.txt)"
    check_samples eb$V.txt
    redacted_sites eb$V.hprof "SAMPLES: " --cutoff 0
    echo "   ok: every row shows its samples (text and hprof sites), figures = samples x sample/size"

    step "live counts at exit: exact after main returns and System.exit, said when not"
    for how in return exit; do
        jrun x$how$V 0 no "$A=heap=sites,file=$WORK/x$how$V.txt,cutoff=0" -Xlog:gc:file=$WORK/x$how$V.gc \
            $LIVE_HEAP -cp classes LiveDemo $how $KEEP $DROP
        OUT=x$how$V.txt
        check_layout $OUT
        # the JVM ran no GC of its own: without the agent's at exit, every
        # Dropped would still be in the heap
        expect_eq "$OUT: GCs in the run (only the agent's at exit)" \
            "1 1" "$(grep -c 'Pause' x$how$V.gc) $(grep -c 'Pause.*JvmtiEnv ForceGarbageCollection' x$how$V.gc)"
        check_site $OUT 'LiveDemo$Kept' "$F_KEPT" 1 $KEEP $((KEEP * 16)) $KEEP $((KEEP * 16))
        check_site $OUT 'LiveDemo$Dropped' "$F_DROP" 1 $DROP $((DROP * 16)) 0 0
        # exact: no note, or (a daemon thread such as the Common-Cleaner may
        # allocate after the exit's GC, seen under load on JDK 25) the count
        # of those objects; never "not exact"
        hdr=$(sed -n 's/^SITES BEGIN \(([^)]*)\) [A-Z].*/\1/p' $OUT)
        [[ $hdr =~ ^\(ordered\ by\ live\ bytes(\;\ live\ as\ of\ the\ GC\ forced\ when\ the\ exit\ began\ at\ [0-9:]+:\ [0-9]+\ objects?\ allocated\ after\ it\ counts?\ as\ live)?\)$ ]] ||
            fail "$OUT: SITES header of an exact exit: $hdr"
    done
    jrun xb$V 0 no "$A=heap=sites,format=b,file=$WORK/xb$V.hprof,cutoff=0" $LIVE_HEAP -cp classes LiveDemo exit $KEEP $DROP
    expect_eq "xb$V.hprof: ALLOC SITES flags (4: a GC before the counts)" 4 "$(sites_flags xb$V.hprof)"
    "$HPROF" sites xb$V.hprof >xb$V.txt || fail "hprof sites xb$V.hprof"
    check_site xb$V.txt 'LiveDemo$Dropped' "$F_DROP" 1 $DROP $((DROP * 16)) 0 0
    # Runtime.halt runs no shutdown hook: no GC, and the header says so
    jrun xhalt$V 0 no "$A=heap=sites,file=$WORK/xhalt$V.txt,cutoff=0" $LIVE_HEAP -cp classes LiveDemo halt $KEEP $DROP
    OUT=xhalt$V.txt
    check_layout $OUT
    grep -q '^SITES BEGIN (ordered by live bytes; live not exact: no GC forced before this output as the JVM exits: objects not yet collected count as live) ' $OUT ||
        fail "$OUT: the header does not say live counts are not exact: $(grep '^SITES BEGIN' $OUT)"
    check_site $OUT 'LiveDemo$Dropped' "$F_DROP" 1 $DROP $((DROP * 16)) $DROP $((DROP * 16))
    # a hook that allocates after the agent's GC: counted live, and said
    jrun xhook$V 0 no "$A=heap=sites,file=$WORK/xhook$V.txt,cutoff=0" $LIVE_HEAP -cp classes LiveDemo hook $KEEP $DROP $LATE
    OUT=xhook$V.txt
    check_layout $OUT
    check_site $OUT 'LiveDemo$Dropped' "$F_DROP" 1 $DROP $((DROP * 16)) 0 0
    check_site $OUT 'LiveDemo$Late' "$F_LATE" 0 $LATE $((LATE * 16)) $LATE $((LATE * 16))
    after=$(sed -n 's/^SITES BEGIN (ordered by live bytes; live as of the GC forced when the exit began at [0-9:]*: \([0-9]*\) objects allocated after it count as live) .*/\1/p' $OUT)
    [ -n "$after" ] && [ "$after" -ge $LATE ] ||
        fail "$OUT: the header does not count the $LATE objects allocated after the exit's GC: $(grep '^SITES BEGIN' $OUT)"
    # ZGC: no GC is ever forced; text and binary say so
    jrun xz$V 0 no "$A=heap=sites,file=$WORK/xz$V.txt,cutoff=0" -XX:+UseZGC -cp classes LiveDemo return $KEEP $DROP
    NOTE_Z="live not exact: no GC is forced with ZGC or Shenandoah: objects not yet collected count as live"
    grep -q "^SITES BEGIN (ordered by live bytes; $NOTE_Z) " xz$V.txt ||
        fail "xz$V.txt: the header does not say live counts are not exact under ZGC: $(grep '^SITES BEGIN' xz$V.txt)"
    check_layout xz$V.txt
    jrun xzb$V 0 no "$A=heap=sites,format=b,file=$WORK/xzb$V.hprof" -XX:+UseZGC -cp classes LiveDemo return $KEEP $DROP
    expect_eq "xzb$V.hprof: ALLOC SITES flags (no GC before the counts)" 0 "$(sites_flags xzb$V.hprof)"
    "$HPROF" verify xzb$V.hprof >xzb$V.verify 2>&1 || fail "hprof verify xzb$V.hprof: $(tail -5 xzb$V.verify)"
    "$HPROF" sites xzb$V.hprof >xzb$V.txt || fail "hprof sites xzb$V.hprof"
    grep -q "^SITES BEGIN (ordered by live bytes; $NOTE_Z) " xzb$V.txt ||
        fail "hprof sites xzb$V.hprof: no note in the header: $(grep '^SITES BEGIN' xzb$V.txt)"
    redacted_sites xzb$V.hprof "NOTE: "
    echo "   ok: exact at return and exit (1 GC, the agent's), halt/hook/ZGC say why not (text, binary)"

    step "more than 4 GiB at one site: true figures in text and hprof sites, verify warns"
    jrun big$V 0 no "$A=heap=sites,file=$WORK/big$V.txt" -cp classes LiveDemo big $BIG
    check_layout big$V.txt
    check_site big$V.txt 'long[]' "$F_BIG" 1 $BIG $((BIG * LONGS)) 1 $LONGS
    jrun bigb$V 0 no "$A=heap=sites,format=b,file=$WORK/bigb$V.hprof" -cp classes LiveDemo big $BIG
    "$HPROF" sites bigb$V.hprof >bigb$V.txt || fail "hprof sites bigb$V.hprof"
    check_site bigb$V.txt 'long[]' "$F_BIG" 1 $BIG $((BIG * LONGS)) 1 $LONGS
    redacted_sites bigb$V.hprof "U8: "
    rc=0; "$HPROF" verify bigb$V.hprof >bigb$V.verify 2>&1 || rc=$?
    expect_eq "hprof verify bigb$V.hprof: exit status (a warning)" 1 $rc
    grep -q '^warning at offset [0-9]* \[u4-saturated\]: ALLOC SITES .* holds 1 value(s) at the u4 maximum 4294967295 (first: allocated bytes of site #' bigb$V.verify ||
        fail "hprof verify bigb$V.hprof: no u4-saturated warning: $(tail -3 bigb$V.verify)"
    "$HPROF" verify --ignore u4-saturated bigb$V.hprof >/dev/null 2>&1 ||
        fail "hprof verify --ignore u4-saturated bigb$V.hprof: other problems"
    # histo needs a heap dump; a sites-only file has none
    rc=0; "$HPROF" histo bigb$V.hprof >bigb$V.histo 2>bigb$V.histoerr || rc=$?
    expect_eq "hprof histo of a file without a heap dump: exit status" 1 $rc
    grep -q "has no heap dump" bigb$V.histoerr || fail "hprof histo: no message: $(cat bigb$V.histoerr)"
    [ ! -s bigb$V.histo ] || fail "hprof histo without a heap dump printed a table: $(head -3 bigb$V.histo)"
    echo "   ok: $((BIG * LONGS)) bytes in text and hprof sites; verify warns u4-saturated; histo exits 1"
done
CTX=""
if [ "$FAILURES" -gt 0 ]; then
    echo "$FAILURES failure(s)" >&2
    exit 1
fi
echo "all agent sites checks passed on:$FOUND_JDKS"
