#!/usr/bin/env bash
# test_agent_sites.sh: heap=sites on real JVMs (JDK 17 and 25, -Xcheck:jni),
# checked from the TEXT output with awk/grep, independently of the project's
# reader: exact allocated and live counts and bytes per site, trace frames and
# lines, THREAD START/END, the SITES layout (header, columns, ranks, cutoff,
# TRACE blocks once and before use), thread=y, depth=1, lineno=n, sample=,
# and `hprof verify` on every binary run.
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
    SN=500000
    jrun e$V 0 no "$A=heap=sites,file=$WORK/e$V.txt,sample=524288" -cp classes SitesDemo $T $SN 10 $K
    OUT=e$V.txt
    check_layout $OUT
    grep -q '^SITES BEGIN (ordered by live bytes, estimated from samples every 524288 bytes) ' $OUT ||
        fail "$OUT: the SITES header does not say the figures are estimated: $(grep '^SITES BEGIN (' $OUT)"
    ROWS=$(site $OUT 'SitesDemo$Item' "$F_ITEM")
    EST=$(sum_col "$ROWS" 7)
    # 2 000 000 Items, 48 MB: about 92 samples; accept a factor of 2 either way
    [ "$EST" -ge $((T * SN / 2)) ] && [ "$EST" -le $((T * SN * 2)) ] ||
        fail "$OUT: estimated Item count $EST, expected within a factor 2 of $((T * SN))"
    echo "   ok: estimated $EST Items for $((T * SN)) allocated"
    jrun eb$V 0 no "$A=heap=sites,file=$WORK/eb$V.hprof,format=b,sample=512k" -cp classes SitesDemo $T $SN 10 $K
    "$HPROF" verify eb$V.hprof >eb$V.verify 2>&1 || fail "hprof verify eb$V.hprof: $(tail -5 eb$V.verify)"
done
CTX=""
if [ "$FAILURES" -gt 0 ]; then
    echo "$FAILURES failure(s)" >&2
    exit 1
fi
echo "all agent sites checks passed on:$FOUND_JDKS"
