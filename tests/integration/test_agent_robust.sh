#!/usr/bin/env bash
# test_agent_robust.sh: robustness of the agent on real JVMs (JDK 17 and 25,
# -Xcheck:jni), checked from the TEXT output with awk/grep and from binary
# output with `hprof verify`/`hprof info`:
#  - many threads starting and ending while others allocate: no crash or
#    hang, exact counts, one THREAD START and one THREAD END per thread;
#  - classes defined by custom class loaders, used, then unloaded: exact
#    counts of their instances, live 0, UNLOAD CLASS records in binary, no
#    CLASS DUMP of them in the exit heap dump;
#  - System.exit from another thread while workers allocate: the exit status
#    the program chose, a complete output (SITES END last, verify clean),
#    exact counts of what was allocated before.
# (The unwritable output path is in test_agent_options.sh.)
#
# usage: bash test_agent_robust.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
# Env: HPROF_TEST_JDKS, HPROF_TEST_KEEP_GOING=1 (see test_agent_sites.sh).
# Demos: demo-java/ThreadChurnDemo.java, UnloadDemo.java, ExitDemo.java.
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

# ---------------------------------------------------------------- the test
compile ThreadChurnDemo UnloadDemo ExitDemo
F_BIT="ThreadChurnDemo.churn(ThreadChurnDemo.java:$(line_of ThreadChurnDemo.java SITE-BIT))"
F_VICTIM="UnloadDemo\$Victim.make(UnloadDemo.java:$(line_of UnloadDemo.java SITE-VICTIM))"
F_BEFORE="ExitDemo.before(ExitDemo.java:$(line_of ExitDemo.java SITE-BEFORE))"
F_AFTER="ExitDemo.after(ExitDemo.java:$(line_of ExitDemo.java SITE-AFTER))"
R=25 W=8 X=2000 BIT=16     # ThreadChurnDemo: 200 threads, 400000 Bit
L=3 NV=1000 VICTIM=16      # UnloadDemo: 3 loaders, 3000 Victim
ET=4 EN=20000 ES=42 BEFORE=24 # ExitDemo: 80000 Before, exit status 42

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    A="-agentpath:$AGENT"

    step "many threads starting and ending while they allocate ($((R * W)) threads)"
    jrun ch$V 0 no "$A=heap=sites,file=$WORK/ch$V.txt,cutoff=0" -cp classes ThreadChurnDemo $R $W $X
    grep -q "^churned $((R * W)) threads" ch$V.out || fail "ThreadChurnDemo did not finish: $(cat ch$V.out)"
    check_layout ch$V.txt
    check_site ch$V.txt 'ThreadChurnDemo$Bit' "$F_BIT" 0 $((R * W * X)) $((R * W * X * BIT)) 0 0
    NS=$(grep -cE '^THREAD START \(.*name="churn-[0-9]+-[0-9]+", group="main"\)$' ch$V.txt || true)
    expect_eq "ch$V.txt: THREAD START lines of churn-* threads" $((R * W)) "$NS"
    # every churn thread's serial has exactly one THREAD END, after its start
    awk '
        /^THREAD START \(.*name="churn-/ { match($0, /id = [0-9]+/); id = substr($0, RSTART + 5, RLENGTH - 5); if (id in st) dup++; st[id] = NR }
        /^THREAD END \(id = [0-9]+\)$/ { id = $5; sub(/\)/, "", id); en[id]++; if ((id in st) && NR < st[id]) early++ }
        END { for (id in st) if (en[id] != 1) { print "thread " id " has " en[id] + 0 " THREAD END lines"; bad = 1 }
              if (dup || early) { print dup + 0 " duplicate ids, " early + 0 " ends before starts"; bad = 1 }
              exit bad }
    ' ch$V.txt >ch$V.check || fail "ch$V.txt: THREAD START/END pairs: $(head -3 ch$V.check)"
    echo "   ok: $NS threads, each started and ended once"
    jrun chb$V 0 no "$A=heap=sites,format=b,file=$WORK/chb$V.hprof" -cp classes ThreadChurnDemo $R $W $X
    "$HPROF" verify chb$V.hprof >chb$V.verify 2>&1 || fail "hprof verify chb$V.hprof: $(tail -5 chb$V.verify)"
    "$HPROF" info chb$V.hprof >chb$V.info
    NE=$(awk '/^END THREAD/ {print $3}' chb$V.info)
    [ "${NE:-0}" -ge $((R * W)) ] || fail "chb$V.hprof: $NE END THREAD records, expected at least $((R * W))"
    # the sampler meets threads that end between its GetAllThreads and its
    # look at each one (it once crashed on them): every ms, many times
    jrun chs$V 0 no "$A=cpu=samples,interval=1,format=b,file=$WORK/chs$V.hprof" -cp classes ThreadChurnDemo $((R * 4)) $W $X
    grep -q "^churned $((R * W * 4)) threads" chs$V.out || fail "ThreadChurnDemo under cpu=samples did not finish: $(cat chs$V.out)"
    "$HPROF" verify chs$V.hprof >chs$V.verify 2>&1 || fail "hprof verify chs$V.hprof: $(tail -5 chs$V.verify)"
    echo "   ok: $((R * W * 4)) threads under cpu=samples,interval=1"

    step "classes loaded by custom loaders, then unloaded"
    jrun un$V 0 no "$A=heap=sites,file=$WORK/un$V.txt,cutoff=0" \
        -cp classes UnloadDemo $L $NV
    grep -q "^unloaded $L of $L" un$V.out || fail "UnloadDemo: the Victim classes were not all unloaded: $(cat un$V.out)"
    check_layout un$V.txt
    ROWS=$(site un$V.txt 'UnloadDemo$Victim' "$F_VICTIM")
    # one class per loader: L rows (one site per class), NV each, none live
    expect_eq "un$V.txt: Victim rows (one per defining loader)" $L "$(echo "$ROWS" | grep -c .)"
    expect_eq "un$V.txt: Victim allocated" $((L * NV)) "$(sum_col "$ROWS" 7)"
    expect_eq "un$V.txt: Victim allocated bytes" $((L * NV * VICTIM)) "$(sum_col "$ROWS" 6)"
    expect_eq "un$V.txt: Victim live" 0 "$(sum_col "$ROWS" 5)"
    echo "   ok: $L Victim classes, $((L * NV)) objects, 0 live"
    jrun unb$V 0 no "$A=heap=sites,format=b,file=$WORK/unb$V.hprof" -cp classes UnloadDemo $L $NV
    "$HPROF" verify unb$V.hprof >unb$V.verify 2>&1 || fail "hprof verify unb$V.hprof: $(tail -5 unb$V.verify)"
    "$HPROF" info unb$V.hprof >unb$V.info
    NU=$(awk '/^UNLOAD CLASS/ {print $3}' unb$V.info)
    [ "${NU:-0}" -ge $L ] || fail "unb$V.hprof: ${NU:-0} UNLOAD CLASS records, expected at least $L (one per Victim class): $(tr '\n' ';' <unb$V.info)"
    echo "   ok: ${NU:-0} UNLOAD CLASS records"
    # the exit heap dump holds no class that was unloaded before it (it
    # once kept a CLASS DUMP of each, written after its UNLOAD CLASS)
    # (heap=all: the agent's walk; heap=dump: HotSpot's dump, verified as
    # HotSpot's: with CDS it names archived objects it does not hold)
    for hm in all dump; do
        vo=""; [ $hm = dump ] && vo=--hotspot
        jrun und$hm$V 0 no "$A=heap=$hm,format=b,file=$WORK/und$hm$V.hprof" -cp classes UnloadDemo $L $NV
        # shellcheck disable=SC2086 # vo: an option or nothing
        "$HPROF" verify $vo und$hm$V.hprof >und$hm$V.verify 2>&1 || fail "hprof verify und$hm$V.hprof: $(tail -5 und$hm$V.verify)"
        "$HPROF" print und$hm$V.hprof >und$hm$V.txt || fail "hprof print und$hm$V.hprof failed"
        NCD=$(grep -c '^CLS .*name=UnloadDemo\$Victim,' und$hm$V.txt || true)
        expect_eq "und$hm$V.hprof: CLASS DUMPs of the unloaded Victim classes" 0 "$NCD"
        grep -q '^CLS .*name=UnloadDemo,' und$hm$V.txt || fail "und$hm$V.hprof: no CLASS DUMP of UnloadDemo itself (still loaded)"
    done
    echo "   ok: the exit heap dump holds no unloaded class (heap=all, heap=dump)"

    step "System.exit($ES) from another thread while workers allocate"
    for fmt in a b; do
        if [ $fmt = a ]; then o=ex$V.txt; else o=exb$V.hprof; fi
        jrun ex$V$fmt $ES no "$A=heap=sites,format=$fmt,file=$WORK/$o,cutoff=0" -cp classes ExitDemo $ET $EN $ES
        grep -q "^exiting $ES" ex$V$fmt.out || fail "ExitDemo did not reach System.exit: $(cat ex$V$fmt.out)"
        if [ $fmt = a ]; then
            check_layout $o
            expect_eq "$o: last line (a complete output)" "SITES END" "$(tail -1 $o)"
            check_site $o 'ExitDemo$Before' "$F_BEFORE" 0 $((ET * EN)) $((ET * EN * BEFORE)) $((ET * EN)) $((ET * EN * BEFORE))
            AROWS=$(site $o 'ExitDemo$After' "$F_AFTER")
            [ "$(sum_col "$AROWS" 7)" -gt 0 ] || fail "$o: no After allocations counted (the workers ran until exit)"
        else
            "$HPROF" verify $o >$o.verify 2>&1 || fail "hprof verify $o: $(tail -5 $o.verify)"
            "$HPROF" info $o | grep -qE '^ALLOC SITES +1 ' || fail "$o: expected one ALLOC SITES record"
        fi
        echo "   ok: format=$fmt: exit $ES, output complete"
    done
done
CTX=""
if [ "$FAILURES" -gt 0 ]; then
    echo "$FAILURES failure(s)" >&2
    exit 1
fi
echo "all agent robustness checks passed on:$FOUND_JDKS"
