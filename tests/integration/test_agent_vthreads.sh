#!/usr/bin/env bash
# test_agent_vthreads.sh: virtual threads (JDK 21+) in every mode, on real
# JVMs (-Xcheck:jni), checked from the TEXT output with awk. JDK 17 has no
# virtual threads: these checks run on the JDKs of HPROF_TEST_JDKS that
# have them (JDK 25 here) and the test says which it skipped; the demo is
# compiled with that JDK's javac --release 21. (The platform-thread parts
# of the same rules, which run on JDK 17 too, are in test_agent_cpu.sh and
# test_agent_times.sh: IdleDemo.)
#  - cpu=samples: VThreadDemo's tasks run hotA and hotB (3:1 of the same
#    loop, shares 0.75 / 0.25 by construction) in virtual threads: the
#    samples of traces through hotA / hotB give hotA's share within 5 pp of
#    0.75, and within 5 pp of a run of the same tasks on platform threads;
#    with thread=y every virtual thread that has a THREAD START is one a
#    sampled trace refers to, and has a THREAD END (they all ended);
#  - heap=sites: TASKS virtual threads allocate exactly ALLOCS Blobs each:
#    the Blob site counts exactly TASKS*ALLOCS; with thread=y the Blob rows
#    belong to exactly TASKS thread serials, each with a THREAD START and a
#    THREAD END, and no virtual thread record is alive at exit (they are
#    freed at VirtualThreadEnd: without that, TASKS would be);
#  - cpu=samples without thread=y gives virtual threads no THREAD START;
#  - monitor=y: TASKS virtual threads contend once each for a monitor the
#    main thread holds: MONITOR TIME has exactly TASKS contentions at the
#    synchronized line, and each writes one WAIT: and one WAITED: line
#    (timeout 50 ms) under its own serial;
#  - cpu=times: virtual threads compute (spin) then sleep, park and wait:
#    spin is the top row, idle() and its callees count (almost) no work,
#    and their rows show at least 90 % of the idle time as waited;
#  - every mode (heap=dump, heap=all, format=b, cpu=old) exits 0 with
#    virtual threads and no HPROF ERROR.
#
# usage: bash test_agent_vthreads.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
# Env: HPROF_TEST_JDKS, HPROF_TEST_KEEP_GOING=1 (see agent_lib.sh).
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

# time_rows OUT > "rank self accum count trace method selfms totalms waitedms" (last CPU TIME)
time_rows() {
    awk '/^CPU TIME \(ms\) BEGIN/ { n = 0; delete r; on = 1; next }
         /^CPU TIME \(ms\) END$/ { on = 0; next }
         on && /^ *[0-9]+ / { w = 0; if ($(NF - 1) == "waited") w = $NF
                              gsub(/[\[\]\/]/, ""); r[++n] = $1 " " $2 " " $3 " " $4 " " $5 " " $6 " " $7 " " $8 " " w }
         END { for (i = 1; i <= n; i++) print r[i] }' "$1"
}
# vt_starts OUT > serials of THREAD STARTs of virtual threads (group "VirtualThreads")
vt_starts() {
    sed -n 's/^THREAD START (obj=[0-9a-f]*, id = \([0-9]*\), name="[^"]*", group="VirtualThreads")$/\1/p' "$1"
}
ends() {
    sed -n 's/^THREAD END (id = \([0-9]*\))$/\1/p' "$1"
}

VT_JDKS=""
for JDK in $FOUND_JDKS; do
    v=$("$JDK/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    if [ "$v" -ge 21 ]; then VT_JDKS="$VT_JDKS $JDK"; else echo "note: JDK $v has no virtual threads: its checks are skipped"; fi
done
[ -n "$VT_JDKS" ] || fail "no JDK 21+ among$FOUND_JDKS: virtual threads cannot be tested"

TASKS=2000 ALLOCS=100
LA=$(line_of VThreadDemo.java SITE-VT-HOT-A)
LL=$(line_of VThreadDemo.java SITE-VT-LOCK)
LB=$(line_of VThreadDemo.java SITE-VT-BLOB)

for JDK in $VT_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    A="-agentpath:$AGENT"
    rm -rf "classes$V" && mkdir -p "classes$V"
    "$JDK/bin/javac" --release 21 -d "classes$V" "$SRC/demo-java/VThreadDemo.java" || fail "javac VThreadDemo.java failed"
    CP="classes$V"

    step "cpu=samples: the shares of hotA/hotB in virtual threads, as on platform threads"
    for mode in virtual platform; do
        jrun c$mode$V 0 no "$A=cpu=samples,interval=5,cutoff=0,file=$WORK/c$mode$V.txt" -cp $CP VThreadDemo cpu $mode 320
    done
    sv_a=$(samples_through cvirtual$V.txt "VThreadDemo.hotA(") sv_b=$(samples_through cvirtual$V.txt "VThreadDemo.hotB(")
    sp_a=$(samples_through cplatform$V.txt "VThreadDemo.hotA(") sp_b=$(samples_through cplatform$V.txt "VThreadDemo.hotB(")
    [ $((sv_a + sv_b)) -ge 300 ] || fail "virtual threads: too few samples in hotA+hotB: $sv_a + $sv_b (~4 s of CPU at 5 ms)"
    [ $((sp_a + sp_b)) -ge 300 ] || fail "platform threads: too few samples in hotA+hotB: $sp_a + $sp_b"
    awk -v a="$sv_a" -v b="$sv_b" -v c="$sp_a" -v d="$sp_b" 'BEGIN {
        v = a / (a + b); p = c / (c + d)
        dv = v - 0.75; if (dv < 0) dv = -dv; dp = p - 0.75; if (dp < 0) dp = -dp; dd = v - p; if (dd < 0) dd = -dd
        exit !(dv <= 0.05 && dp <= 0.05 && dd <= 0.05) }' ||
        fail "hotA share: virtual $sv_a/($sv_a+$sv_b), platform $sp_a/($sp_a+$sp_b): not both within 5 pp of 0.75 and of each other"
    grep -qE "^[[:space:]]VThreadDemo\.hotA\(VThreadDemo\.java:($((LA - 1))|$LA|$((LA + 1))|$((LA + 2))|$((LA + 3)))\)$" cvirtual$V.txt ||
        fail "no TRACE frame VThreadDemo.hotA at its loop in cvirtual$V.txt"
    expect_eq "cpu=samples,thread=n: THREAD STARTs of virtual threads" 0 "$(vt_starts cvirtual$V.txt | wc -l)"
    echo "   ok: hotA share $(awk -v a="$sv_a" -v b="$sv_b" 'BEGIN { printf "%.2f%%", 100 * a / (a + b) }') in virtual threads ($sv_a + $sv_b samples), $(awk -v a="$sp_a" -v b="$sp_b" 'BEGIN { printf "%.2f%%", 100 * a / (a + b) }') on platform threads"

    step "cpu=samples,thread=y: a virtual thread has a THREAD START only when a trace refers to it"
    jrun cy$V 0 no "$A=cpu=samples,interval=5,thread=y,cutoff=0,file=$WORK/cy$V.txt" -cp $CP VThreadDemo cpu virtual 160
    traces cy$V.txt >cy$V.traces
    vt_starts cy$V.txt | sort -u >cy$V.vts
    awk -F '\t' '$2 != "" { print $2 }' cy$V.traces | sort -u >cy$V.referred
    [ -s cy$V.vts ] || fail "no THREAD START of a virtual thread with thread=y"
    unref=$(comm -23 cy$V.vts cy$V.referred | head -3)
    [ -z "$unref" ] || fail "virtual threads with a THREAD START that no trace refers to: $unref"
    noend=$(ends cy$V.txt | sort -u | comm -23 cy$V.vts - | head -3)
    [ -z "$noend" ] || fail "virtual threads with a THREAD START and no THREAD END: $noend"
    hot=$(traces cy$V.txt | awk -F '\t' 'index($3, "VThreadDemo.hotA(") == 1 { print $2 }' | sort -u | comm -12 - cy$V.vts | wc -l)
    [ "$hot" -ge 2 ] || fail "hotA's traces belong to $hot virtual threads (thread=y keys them by thread)"
    echo "   ok: $(wc -l <cy$V.vts) virtual threads named, each referred to by a trace and ended; hotA sampled in $hot of them"

    step "heap=sites: exact counts from $TASKS virtual threads; records freed at their end"
    jrun s$V 0 no "$A=heap=sites,thread=y,cutoff=0,file=$WORK/s$V.txt" -cp $CP VThreadDemo alloc $TASKS
    expect_eq "the demo's count" "blobs=$((TASKS * ALLOCS))" "$(cat s$V.out)"
    rows=$(site s$V.txt VThreadDemo\$Blob "VThreadDemo.allocTask(VThreadDemo.java:$LB)")
    expect_eq "Blobs allocated at SITE-VT-BLOB (all threads)" $((TASKS * ALLOCS)) "$(sum_col "$rows" 7)"
    expect_eq "thread serials of the Blob rows" $TASKS "$(echo "$rows" | awk '{ print $NF }' | sort -u | wc -l)"
    vt_starts s$V.txt | sort -u >s$V.vts
    expect_eq "THREAD STARTs of virtual threads" $TASKS "$(wc -l <s$V.vts)"
    expect_eq "of them, THREAD ENDs" $TASKS "$(ends s$V.txt | sort -u | comm -12 - s$V.vts | wc -l)"
    expect_eq "virtual thread records alive at exit" "HPROF: 0 virtual thread records alive at exit" \
        "$(grep 'virtual thread records alive' s$V.err)"
    jrun sn$V 0 no "$A=heap=sites,cutoff=0,file=$WORK/sn$V.txt" -cp $CP VThreadDemo alloc $TASKS
    rows=$(site sn$V.txt VThreadDemo\$Blob "VThreadDemo.allocTask(VThreadDemo.java:$LB)")
    expect_eq "thread=n: Blobs allocated" $((TASKS * ALLOCS)) "$(sum_col "$rows" 7)"
    expect_eq "thread=n: THREAD STARTs of virtual threads" 0 "$(vt_starts sn$V.txt | wc -l)"
    echo "   ok: $((TASKS * ALLOCS)) Blobs in $TASKS threads, each started and ended; no record left"

    step "monitor=y: contention and waits of virtual threads"
    M=8
    jrun m$V 0 no "$A=monitor=y,cutoff=0,file=$WORK/m$V.txt" -cp $CP VThreadDemo monitor $M
    traces m$V.txt >m$V.traces
    got=$(sed -n '/^MONITOR TIME BEGIN/,/^MONITOR TIME END/p' m$V.txt | awk -v tf=m$V.traces -v l1="$LL" '
        BEGIN { FS = "\t"; while ((getline l < tf) > 0) { split(l, a, "\t"); split(a[3], f, "|"); top[a[1]] = f[1] } FS = " " }
        /^ *[0-9]+ / && $6 == "java.lang.Object" {
            if (top[$5] ~ "^VThreadDemo\\.lambda\\$monitor\\$[0-9]+\\(VThreadDemo\\.java:(" l1 "|" l1 + 1 ")\\)$") n += $4 }
        END { print n + 0 }')
    expect_eq "contentions at SITE-VT-LOCK" $M "$got"
    vs=$(vt_starts m$V.txt | sort -u)
    w=$(sed -n 's/^WAIT: MONITOR Ljava\/lang\/Object;, timeout=50, thread \([0-9]*\)$/\1/p' m$V.txt | sort -u)
    wd=$(sed -n 's/^WAITED: MONITOR Ljava\/lang\/Object;, time_waited=[0-9]*, thread \([0-9]*\)$/\1/p' m$V.txt | sort -u)
    expect_eq "virtual threads with a WAIT: line" $M "$(comm -12 <(echo "$vs") <(echo "$w") | wc -l)"
    expect_eq "virtual threads with a WAITED: line" $M "$(comm -12 <(echo "$vs") <(echo "$wd") | wc -l)"
    echo "   ok: $M contentions at the synchronized line, $M WAIT:/WAITED: pairs of virtual threads"

    step "cpu=times: waiting in virtual threads is not work"
    # depth=10: the frames where a virtual thread waits (yieldContinuation,
    # Object.wait0) are up to 6 below idle()
    jrun t$V 0 no "$A=cpu=times,cutoff=0,depth=10,file=$WORK/t$V.txt" -cp $CP VThreadDemo times 20
    traces t$V.txt >t$V.traces
    time_rows t$V.txt >t$V.rows
    first=$(head -1 t$V.rows | awk '{ print $5 }')
    expect_eq "the top CPU TIME row's trace starts at" "VThreadDemo.spin" \
        "$(awk -F '\t' -v t="$first" '$1 == t { split($3, f, "|"); sub(/\(.*/, "", f[1]); print f[1] }' t$V.traces)"
    awk -v tf=t$V.traces '
        BEGIN { FS = "\t"; while ((getline l < tf) > 0) { split(l, a, "\t"); fr[a[1]] = a[3] } FS = " " }
        { split(fr[$5], f, "|"); top = f[1]; sub(/\(.*/, "", top)
          if (top == "VThreadDemo.idle") { calls += $4; tot += $8 }
          if (index(fr[$5], "VThreadDemo.idle(") > 0) waited += $9 }
        END { printf "%d %.3f %.3f\n", calls, tot, waited }' t$V.rows >t$V.idle
    read -r icalls itot iwait <t$V.idle
    expect_eq "idle() calls" 20 "$icalls"
    # 20 calls, each sleeping, parking and waiting 100 ms: 6000 ms idle
    awk -v t="$itot" -v w="$iwait" 'BEGIN { exit !(t < 300 && w >= 0.9 * 6000) }' ||
        fail "idle(): total work $itot ms (expected < 300 of 6000 idle), waited $iwait ms (expected >= 5400)"
    echo "   ok: spin ranks first; idle() works $itot ms, waits $iwait ms"

    step "every mode exits 0 with virtual threads"
    for o in heap=dump heap=all,format=b heap=sites,format=b cpu=old cpu=samples,heap=sites,thread=y,monitor=y; do
        f=$(echo "$o" | tr ',=' '__')
        jrun e$f$V 0 no "$A=$o,file=$WORK/e$f$V.out" -cp $CP VThreadDemo cpu virtual 40
    done
    echo "   ok"
done
exit $((FAILURES > 0))
