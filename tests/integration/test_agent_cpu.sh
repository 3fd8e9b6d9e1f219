#!/usr/bin/env bash
# test_agent_cpu.sh: cpu=samples on real JVMs (JDK 17 and 25, -Xcheck:jni),
# checked from the TEXT output with awk, independently of the project's
# reader:
#  - CpuDemo burns the CPU in hotA and hotB for shares it measures itself
#    with the thread's CPU clock (ThreadMXBean: the sampler counts a thread
#    only when it ran, so elapsed time, which drifts from it on a busy
#    machine, is not the truth); the samples of traces through hotA / hotB
#    must give the same shares within 3 percentage points;
#  - at interval=1 the samples of CpuDemo's busy thread number at least 850
#    per second of its CPU clock (1 000 asked for);
#  - a thread blocked in a native accept() gets no samples at all (the
#    original counted such threads as running), nor does a sleeping thread;
#  - IdleDemo: at most one sample's top frame is a native method that blocks
#    (waitForReferencePendingList of the Reference Handler, which runs
#    after each of the demo's GCs and then blocks again, sleep, park,
#    Object.wait, a native accept/poll), while compute() is sampled;
#  - the CPU SAMPLES section's layout: header with the total, the rank line,
#    rows whose counts add up to at most the total, ranks 1..n, self/accum,
#    the method of each row = the top frame of its trace, TRACE blocks
#    printed before use; thread=y keys traces by thread; depth=0 records
#    nothing; format=b passes `hprof verify` and `hprof samples` reads it.
#
# usage: bash test_agent_cpu.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
# Env: HPROF_TEST_JDKS, HPROF_TEST_KEEP_GOING=1 (see agent_lib.sh).
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

cpu_total() {
    sed -n 's/^CPU SAMPLES BEGIN (total = \([0-9]*\)).*/\1/p' "$1" | tail -1
}
# samples_on_top OUT PREFIX: samples whose top frame starts with PREFIX
samples_on_top() {
    traces "$1" >"$1.traces"
    cpu_rows "$1" | awk -v pre="$2" -v tf="$1.traces" '
        BEGIN { FS = "\t"; while ((getline l < tf) > 0) { split(l, a, "\t"); fr[a[1]] = a[3] } FS = " " }
        { split(fr[$3], f, "|"); if (index(f[1], pre) == 1) s += $2 }
        END { print s + 0 }'
}

compile CpuDemo IdleDemo
# Samples are taken at safepoints, so a hot loop's samples carry the line of
# its safepoint poll (the loop's back edge), not always the marked statement:
# the frames are checked by method and source file, within the loop's lines.
LA=$(line_of CpuDemo.java SITE-HOT-A)
LB=$(line_of CpuDemo.java SITE-HOT-B)

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    A="-agentpath:$AGENT"

    step "shares of two hot methods (by the program's CPU clock) within 3 pp"
    jrun c$V 0 no "$A=cpu=samples,interval=5,file=$WORK/c$V.txt,cutoff=0" -cp classes CpuDemo 4 30 10
    line=$(grep '^share ' c$V.out) || fail "CpuDemo printed no shares: $(cat c$V.out)"
    want_a=$(echo "$line" | sed -E 's/.*hotA=([0-9.]+).*/\1/')
    sa=$(samples_through c$V.txt "CpuDemo.hotA(")
    sb=$(samples_through c$V.txt "CpuDemo.hotB(")
    [ $((sa + sb)) -ge 300 ] || fail "too few samples in hotA+hotB: $sa + $sb (4 s of CPU at 5 ms: ~800 expected)"
    awk -v a="$sa" -v b="$sb" -v w="$want_a" 'BEGIN { d = 100 * (a / (a + b) - w); if (d < 0) d = -d; exit !(d <= 3) }' ||
        fail "hotA share: samples $sa/($sa+$sb) vs measured $want_a: more than 3 pp apart"
    echo "   ok: hotA $sa, hotB $sb samples: $(awk -v a="$sa" -v b="$sb" 'BEGIN { printf "%.2f%%", 100 * a / (a + b) }') vs measured $want_a (CPU clock; $(grep '^wall ' c$V.out | sed -E 's/.*hotA=([0-9.]+).*/\1/') by elapsed time)"
    for m in "hotA:$LA" "hotB:$LB"; do
        name=${m%%:*} line=${m##*:}
        grep -qE "^[[:space:]]CpuDemo\.$name\(CpuDemo\.java:($((line - 2))|$((line - 1))|$line)\)$" c$V.txt ||
            fail "no TRACE frame CpuDemo.$name(CpuDemo.java:$((line - 2))..$line) in c$V.txt"
    done

    step "interval=1 delivers the samples asked for: >= 850 per second of the busy thread's CPU"
    # the rate is taken over the thread's own CPU clock, not elapsed time:
    # on a loaded machine the thread is descheduled for part of the run and
    # is (rightly) not sampled then. A wait after each sample gave ~830/s
    # (the period was the interval plus the sample's work and the wake-up);
    # the schedule gives ~1 000/s, over 1 000 under load (an interval in
    # which the thread ran for only part of it still counts once)
    jrun r$V 0 no "$A=cpu=samples,interval=1,file=$WORK/r$V.txt,cutoff=0" -cp classes CpuDemo 2 30 10
    cms=$(sed -n 's/^time cpu_ms=\([0-9.]*\) .*/\1/p' r$V.out)
    [ -n "$cms" ] || fail "CpuDemo printed no time line: $(cat r$V.out)"
    hot=$(($(samples_through r$V.txt "CpuDemo.hotA(") + $(samples_through r$V.txt "CpuDemo.hotB(")))
    rate=$(awk -v s="$hot" -v c="$cms" 'BEGIN { printf "%.0f", (c > 0 ? s * 1000 / c : 0) }')
    [ "$rate" -ge 850 ] || fail "interval=1: $hot samples in hotA+hotB over $cms ms of the thread's CPU: $rate/s, fewer than 850/s"
    echo "   ok: $hot samples over $cms ms of CPU: $rate/s"

    step "a thread blocked in native accept() and a sleeping thread get no samples"
    # a thread blocked there shows the blocking native on top of its stack;
    # samples through accept() with other frames on top are the thread's
    # first call running (class loading, socket set-up): it did run then
    for quiet in "sun.nio.ch.Net.accept" "sun.nio.ch.Net.poll" "java.lang.Thread.sleep"; do
        n=$(samples_on_top c$V.txt "$quiet")
        [ "$n" = 0 ] || fail "$n samples with '$quiet' on top: a thread that did not run was counted"
    done
    echo "   ok: 0 samples with accept, poll or sleep on top"

    step "the CPU SAMPLES layout"
    total=$(cpu_total c$V.txt)
    rows=$(cpu_rows c$V.txt)
    sum=$(echo "$rows" | awk '{ s += $2 } END { print s + 0 }')
    [ -n "$total" ] && [ "$sum" -le "$total" ] && [ "$sum" -gt 0 ] || fail "row counts $sum vs total '$total'"
    echo "$rows" | awk '$1 != NR { exit 1 }' || fail "ranks are not 1..n"
    echo "$rows" | awk 'NR > 1 && $2 > prev { exit 1 } { prev = $2 }' || fail "rows are not sorted by count"
    grep -A1 '^CPU SAMPLES BEGIN' c$V.txt | tail -1 | grep -qx 'rank   self  accum   count trace method' ||
        fail "the column header line is not the original's"
    # each row's method is its trace's top frame (class.method), and its TRACE comes earlier
    traces c$V.txt >c$V.tr
    echo "$rows" | while read -r _ _ tr meth; do
        top=$(awk -F '\t' -v t="$tr" '$1 == t { split($3, f, "|"); sub(/\(.*/, "", f[1]); print f[1] }' c$V.tr)
        [ "$top" = "$meth" ] || fail "row of trace $tr says '$meth', its top frame is '$top'"
        tl=$(grep -n "^TRACE $tr:" c$V.txt | head -1 | cut -d: -f1)
        sl=$(grep -n '^CPU SAMPLES BEGIN' c$V.txt | tail -1 | cut -d: -f1)
        [ -n "$tl" ] && [ "$tl" -lt "$sl" ] || fail "TRACE $tr is not printed before the CPU SAMPLES section"
    done
    echo "   ok: $(echo "$rows" | wc -l) rows, total $total"

    step "no sample of a thread blocked in a native method (the Reference Handler included)"
    # IdleDemo makes 1.2 M references pending in 6 GCs: the Reference
    # Handler runs (enqueueing them, in Java: those samples are real) and
    # blocks again in its native waitForReferencePendingList, often within
    # the sampling interval; an idler sleeps, parks, waits and blocks in a
    # native accept. interval=1 gives many chances to catch them.
    jrun i$V 0 no "$A=cpu=samples,interval=1,cutoff=0,file=$WORK/i$V.txt" -cp classes IdleDemo 1500 300 6
    grep -q 'enqueued=1200000$' i$V.out || fail "IdleDemo said: $(cat i$V.out)"
    traces i$V.txt >i$V.tr
    blocked=$(cpu_rows i$V.txt | awk -v tf=i$V.tr '
        BEGIN { FS = "\t"; while ((getline l < tf) > 0) { split(l, a, "\t"); split(a[3], f, "|"); top[a[1]] = f[1] } FS = " " }
        top[$3] ~ /\(.*Native method\)$/ && top[$3] ~ /^(java\.lang\.ref\.Reference\.waitForReferencePendingList|java\.lang\.Thread\.sleep[A-Za-z0-9]*|jdk\.internal\.misc\.Unsafe\.park|java\.lang\.Object\.wait0?|sun\.nio\.ch\.Net\.(poll|accept)[A-Za-z0-9]*|sun\.nio\.ch\.[A-Za-z]+\.accept0)\(/ { print $2 " " top[$3] }')
    # at most one: a thread caught in the microseconds it returns from such
    # a call (the Reference Handler woken by the next GC) is running, and on
    # a loaded machine the suite once saw one such sample of ~1 200; the
    # original rule gave 6-11 here
    nb=$(echo "$blocked" | awk 'NF { s += $1 } END { print s + 0 }')
    [ "$nb" -le 1 ] || fail "$nb samples of threads blocked in native methods:
$blocked"
    hot=$(samples_on_top i$V.txt "IdleDemo.compute(")
    [ "$hot" -ge 300 ] || fail "IdleDemo.compute: $hot samples (1.5 s of CPU at 1 ms)"
    echo "   ok: $nb sample(s) on a blocking native frame; compute $hot samples"

    step "thread=y, depth=0, format=b"
    jrun t$V 0 no "$A=cpu=samples,thread=y,file=$WORK/t$V.txt" -cp classes CpuDemo 1 30 10
    grep -qE '^TRACE [0-9]+: \(thread=2[0-9]{5}\)$' t$V.txt || fail "thread=y: no TRACE with (thread=N)"
    jrun z$V 0 no "$A=cpu=samples,depth=0,file=$WORK/z$V.txt" -cp classes CpuDemo 1 30 10
    expect_eq "depth=0 total" 0 "$(cpu_total z$V.txt)"
    jrun b$V 0 no "$A=cpu=samples,format=b,file=$WORK/b$V.hprof" -cp classes CpuDemo 1 30 10
    "$HPROF" verify b$V.hprof >b$V.verify || fail "hprof verify: $(cat b$V.verify)"
    "$HPROF" samples b$V.hprof >b$V.samples || fail "hprof samples failed"
    grep -q 'CpuDemo.hotA' b$V.samples || fail "hprof samples shows no CpuDemo.hotA: $(head -5 b$V.samples)"
    echo "   ok: thread=y traces, depth=0 total 0, binary verifies and reads back"
done

if [ "$FAILURES" -gt 0 ]; then
    echo "FAIL: test_agent_cpu ($FAILURES failure(s))" >&2
    exit 1
fi
echo "PASS: test_agent_cpu"
