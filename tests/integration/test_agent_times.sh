#!/usr/bin/env bash
# test_agent_times.sh: cpu=times, cpu=old and monitor=y on real JVMs (JDK 17
# and 25, -Xcheck:jni), checked from the TEXT output with awk:
#  - cpu=times: TimesDemo calls inner() exactly N*K times through
#    inner <- outer <- main, outer() N times, thrower() T times (each exits
#    by an exception), sleepy() once (sleeping S ms): the CPU TIME rows of
#    those traces have exactly those counts; sleeping is waiting, not work:
#    sleepy's total work is under S/10 ms and its rows show >= 0.9*S ms
#    waited; every line of the section has the layout, ranks run 1..n,
#    rows are ordered by self time, self <= total, accum is the running
#    sum, the total is the sum of self times, and each row's method is its
#    trace's top frame; thread=y keys traces by thread;
#  - cpu=times, IdleDemo: compute() (1.5 s of CPU) is the first row, and
#    sleepy/parky/waity/blocky (1 s each asleep, parked, in Object.wait,
#    blocked in a native accept) count almost no work (under a tenth of
#    it) and >= 80 % of it as waited;
#  - cpu=old: no header, the "count callee caller time" line, and the rows
#    of inner/outer/thrower with their exact counts, ordered by count;
#    sleepy's time leaves its sleep out (under S/10 ms);
#  - monitor=y: MonitorDemo's contenders contend on one lock: MONITOR TIME
#    has the row of that lock at MonitorDemo.hold (the synchronized line),
#    with exactly the (THREADS - 1) * TURNS contended entries the program
#    makes by construction; WAIT:/WAITED: lines of the "waiter" thread with its
#    timeout and time waited; a SIGQUIT dump during the contention shows,
#    in MONITOR DUMP, the lock owned by a contender with contenders waiting
#    to enter, and main waiting to be notified on the Thread it joins.
#
# usage: bash test_agent_times.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
# Env: HPROF_TEST_JDKS, HPROF_TEST_KEEP_GOING=1 (see agent_lib.sh).
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

# time_rows OUT > "rank self accum count trace method selfms totalms" of the last CPU TIME section
time_rows() {
    awk '/^CPU TIME \(ms\) BEGIN/ { n = 0; delete r; on = 1; next }
         /^CPU TIME \(ms\) END$/ { on = 0; next }
         on && /^ *[0-9]+ / { gsub(/[\[\]\/]/, ""); r[++n] = $1 " " $2 " " $3 " " $4 " " $5 " " $6 " " $7 " " $8 }
         END { for (i = 1; i <= n; i++) print r[i] }' "$1"
}
# calls OUT FRAMES: the count of the CPU TIME row whose trace is exactly FRAMES (| joined)
calls() {
    traces "$1" >"$1.traces"
    time_rows "$1" | awk -v want="$2" -v tf="$1.traces" '
        BEGIN { FS = "\t"; while ((getline l < tf) > 0) { split(l, a, "\t"); fr[a[1]] = a[3] } FS = " " }
        fr[$5] == want { print $4; n++ } END { if (!n) print "none" }'
}
# the frames of a cpu=times trace have no line (as in the original)
fr() {
    echo "TimesDemo.$1(TimesDemo.java:Unknown line)"
}

# waited_through OUT FRAME_PREFIX: ms waited by the rows whose trace has a frame starting with FRAME_PREFIX
waited_through() {
    traces "$1" >"$1.wtr"
    awk '/^CPU TIME \(ms\) BEGIN/ { on = 1; next } /^CPU TIME \(ms\) END$/ { on = 0; next }
         on && /^ *[0-9]+ / && $(NF - 1) == "waited" { print $5, $NF }' "$1" |
        awk -v pre="$2" -v tf="$1.wtr" '
            BEGIN { FS = "\t"; while ((getline l < tf) > 0) { split(l, a, "\t"); fr[a[1]] = a[3] } FS = " " }
            { n = split(fr[$1], f, "|"); for (i = 1; i <= n; i++) if (index(f[i], pre) == 1) { s += $2; break } }
            END { printf "%.3f", s }'
}

compile TimesDemo MonitorDemo IdleDemo
N=1000 K=7 T=13 S=200
# IW: each idle method's time; long enough that the work around the wait
# (a few ms, tens of ms interpreted on a loaded machine) stays under IW/10
IC=1500 IW=1000
LC=$(line_of MonitorDemo.java SITE-CONTEND)

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    A="-agentpath:$AGENT"
    # JDK 17 itself leaks a local ref per MethodExit of a native method
    # returning an object, and -Xcheck:jni then warns about the native
    # frame's capacity: reproduced with MethodEntry/Exit callbacks that
    # return at once; JDK 25 does not. Only that warning is allowed.
    JRUN_JVM_WARNING=""
    [ "$V" = 17 ] && JRUN_JVM_WARNING='^WARNING: JNI local refs: [0-9]+, exceeds capacity: 32$'

    step "cpu=times: exact call counts per trace"
    # depth=8: the native frame where sleepy() waits is up to 5 below it
    jrun t$V 0 no "$A=cpu=times,cutoff=0,depth=8,file=$WORK/t$V.txt" -cp classes TimesDemo $N $K $T $S
    grep -qx "calls outer=$N inner=$((N * K)) thrower=$T sleepy=1" t$V.out || fail "TimesDemo said: $(cat t$V.out)"
    expect_eq "inner <- outer <- main calls" $((N * K)) "$(calls t$V.txt "$(fr inner)|$(fr outer)|$(fr main)")"
    expect_eq "outer <- main calls" $N "$(calls t$V.txt "$(fr outer)|$(fr main)")"
    expect_eq "thrower <- main calls (exits by exception)" $T "$(calls t$V.txt "$(fr thrower)|$(fr main)")"
    expect_eq "sleepy <- main calls" 1 "$(calls t$V.txt "$(fr sleepy)|$(fr main)")"
    sleepy_total=$(traces t$V.txt | awk -F '\t' -v w="$(fr sleepy)|$(fr main)" '$3 == w { print $1 }' |
        while read -r tr; do time_rows t$V.txt | awk -v t="$tr" '$5 == t { print $8 }'; done)
    # sleeping is waiting, not work: out of sleepy's total, shown as waited
    sleepy_waited=$(waited_through t$V.txt "$(fr sleepy)")
    awk -v t="$sleepy_total" -v w="$sleepy_waited" -v s=$S 'BEGIN { exit !(t + 0 < s / 10 && w + 0 >= 0.9 * s && w + 0 < 10 * s) }' ||
        fail "sleepy's total work $sleepy_total ms (expected < $((S / 10))), waited $sleepy_waited ms (expected >= 0.9 * $S)"
    echo "   ok: inner $((N * K)), outer $N, thrower $T, sleepy 1 call of $sleepy_total ms, waited $sleepy_waited ms"

    step "cpu=times: waiting (sleep, park, wait, a blocked accept) does not rank as work"
    # depth=16: blocky waits in Net.poll, 11 frames below it on JDK 17
    jrun i$V 0 no "$A=cpu=times,cutoff=0,depth=16,file=$WORK/i$V.txt" -cp classes IdleDemo $IC $IW 1
    traces i$V.txt >i$V.tr
    top1=$(time_rows i$V.txt | awk 'NR == 1 { print $5 }')
    expect_eq "the first CPU TIME row's method" "IdleDemo.compute" \
        "$(awk -F '\t' -v t="$top1" '$1 == t { split($3, f, "|"); sub(/\(.*/, "", f[1]); print f[1] }' i$V.tr)"
    for m in sleepy parky waity blocky; do
        tot=$(time_rows i$V.txt | awk -v tf=i$V.tr -v m="IdleDemo.$m" '
            BEGIN { FS = "\t"; while ((getline l < tf) > 0) { split(l, a, "\t"); split(a[3], f, "|"); sub(/\(.*/, "", f[1]); top[a[1]] = f[1] } FS = " " }
            top[$5] == m { s += $8 } END { printf "%.3f", s }')
        w=$(waited_through i$V.txt "IdleDemo.$m(")
        lim=$((IW / 10))
        awk -v t="$tot" -v w="$w" -v s=$IW -v l=$lim 'BEGIN { exit !(t + 0 < l && w + 0 >= 0.8 * s) }' ||
            fail "IdleDemo.$m: total work $tot ms (expected < $lim), waited $w ms (expected >= 0.8 * $IW)"
        echo "   ok: $m works $tot ms, waits $w ms"
    done

    step "cpu=times: the CPU TIME layout, line by line"
    awk '
        /^CPU TIME \(ms\) BEGIN/ { on = 1; n = 0
            if ($0 !~ /^CPU TIME \(ms\) BEGIN \(total = [0-9]+\) [A-Z][a-z][a-z] [A-Z][a-z][a-z] [ 0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9] [0-9][0-9][0-9][0-9]$/) { print "bad BEGIN: " $0; bad = 1 }
            total = $7; sub(/\)/, "", total); next }
        on && /^rank/ { if ($0 != "rank   self  accum   count trace method [self ms / total ms]") { print "bad header: " $0; bad = 1 } next }
        on && /^CPU TIME \(ms\) END$/ { on = 0
            if (n == 0) { print "no rows"; bad = 1 }
            if (sum - total > 1 + 0.001 * n || total - sum > 1 + 0.001 * n) { print "total " total " is not the sum of self times " sum; bad = 1 }
            next }
        on { n++
            if ($0 !~ /^ *[0-9]+ +[0-9]+\.[0-9][0-9]% +[0-9]+\.[0-9][0-9]% +[0-9]+ 3[0-9][0-9][0-9][0-9][0-9]+ [^ ]+ \[[0-9]+\.[0-9][0-9][0-9] \/ [0-9]+\.[0-9][0-9][0-9]\]( waited [0-9]+\.[0-9][0-9][0-9])?$/) { print "bad row: " $0; bad = 1 }
            if ($1 != n) { print "rank " $1 " where " n " was expected"; bad = 1 }
            self = $7; sub(/\[/, "", self); tot = $9; sub(/\]/, "", tot)
            if (self + 0 > tot + 0) { print "self above total: " $0; bad = 1 }
            if (n > 1 && self + 0 > prev + 0.0005) { print "not ordered by self time: " $0; bad = 1 }
            acc += $2 + 0
            if ($3 - acc > 0.011 * n + 0.02 || acc - $3 > 0.011 * n + 0.02) { print "accum " $3 " is not the running sum " acc; bad = 1; acc = $3 + 0 }
            prev = self; sum += self; next }
        END { exit bad }
    ' t$V.txt >t$V.layout || fail "CPU TIME layout: $(head -5 t$V.layout)"
    traces t$V.txt >t$V.tr
    while read -r _ _ _ _ tr meth _ _; do
        top=$(awk -F '\t' -v t="$tr" '$1 == t { split($3, f, "|"); sub(/\(.*/, "", f[1]); print f[1] }' t$V.tr)
        [ "$top" = "$meth" ] || fail "row of trace $tr says '$meth', its top frame is '$top'"
    done < <(time_rows t$V.txt | awk 'NR <= 50')
    echo "   ok: $(time_rows t$V.txt | wc -l) rows"

    step "cpu=times with thread=y"
    jrun y$V 0 no "$A=cpu=times,thread=y,cutoff=0,file=$WORK/y$V.txt" -cp classes TimesDemo 10 2 1 1
    main_ser=$(grep -m1 'name="main"' y$V.txt | sed -E 's/.*id = ([0-9]+),.*/\1/')
    [ -n "$main_ser" ] || fail "thread=y: no THREAD START of main"
    tr=$(traces y$V.txt | awk -F '\t' -v w="$(fr inner)|$(fr outer)|$(fr main)" '$3 == w { print $1 " " $2 }')
    expect_eq "thread of the inner trace" "$main_ser" "$(echo "$tr" | awk '{print $2}')"

    step "cpu=old: the old prof layout"
    jrun o$V 0 no "$A=cpu=old,file=$WORK/o$V.txt" -cp classes TimesDemo $N $K $T $S
    expect_eq "first line" "count callee caller time" "$(head -1 o$V.txt)"
    grep -qE '^(JAVA PROFILE|THREAD (START|END)|TRACE )' o$V.txt && fail "cpu=old wrote a header, THREAD or TRACE lines"
    for want in "$((N * K)) TimesDemo.inner(I)I TimesDemo.outer(I)V" \
                "$N TimesDemo.outer(I)V TimesDemo.main([Ljava/lang/String;)V" \
                "$T TimesDemo.thrower(I)V TimesDemo.main([Ljava/lang/String;)V"; do
        grep -qE "^$(printf '%s' "$want" | sed 's/[][().$]/\\&/g') [0-9]+$" o$V.txt || fail "cpu=old: no line '$want <ms>'"
    done
    sl=$(grep -E '^1 TimesDemo\.sleepy\(J\)V TimesDemo\.main' o$V.txt | awk '{print $4}')
    # its time is work, as in CPU TIME: the sleep is waiting, left out
    [ -n "$sl" ] && [ "$sl" -lt $((S / 10)) ] || fail "cpu=old: sleepy's time '$sl' ms, expected < $((S / 10)) (sleeping is not work)"
    tail -n +2 o$V.txt | sed 's/<unknown caller>/-/; s/<unknown callee>/-/' | awk 'NF != 4 || $1 !~ /^[0-9]+$/ || $4 !~ /^[0-9]+$/ { print "bad line: " $0; exit 1 }
                              NR > 1 && $1 > prev { print "not ordered by count: " $0; exit 1 } { prev = $1 }' >o$V.layout ||
        fail "cpu=old lines: $(cat o$V.layout)"
    echo "   ok: $(($(wc -l <o$V.txt) - 1)) lines, inner/outer/thrower/sleepy exact"

    JRUN_JVM_WARNING=""
    step "monitor=y: MONITOR TIME of N threads contending on one lock"
    jrun m$V 0 no "$A=monitor=y,file=$WORK/m$V.txt" -cp classes MonitorDemo 4 10 5 100
    want=$(sed -n 's/^contended = \([0-9]*\)$/\1/p' m$V.out)
    expect_eq "MonitorDemo's contended entries, by construction" 30 "$want"
    awk '
        /^MONITOR TIME BEGIN/ { on = 1; n = 0
            if ($0 !~ /^MONITOR TIME BEGIN \(total = [0-9]+ ms\) [A-Z][a-z][a-z] [A-Z][a-z][a-z] [ 0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9] [0-9][0-9][0-9][0-9]$/) { print "bad BEGIN: " $0; bad = 1 } next }
        on && /^rank/ { if ($0 != "rank   self  accum   count trace monitor") { print "bad header: " $0; bad = 1 } next }
        on && /^MONITOR TIME END$/ { on = 0; next }
        on { n++
            if ($0 !~ /^ *[0-9]+ +[0-9]+\.[0-9][0-9]% +[0-9]+\.[0-9][0-9]% +[0-9]+ 3[0-9][0-9][0-9][0-9][0-9]+ [^ ]+ \(Java\)$/) { print "bad row: " $0; bad = 1 }
            if ($1 != n) { print "rank " $1 " where " n " was expected"; bad = 1 } }
        END { exit bad }
    ' m$V.txt >m$V.layout || fail "MONITOR TIME layout: $(head -5 m$V.layout)"
    traces m$V.txt >m$V.tr
    rows=$(awk '/^MONITOR TIME BEGIN/ { on = 1; next } /^MONITOR TIME END/ { on = 0 } on && $6 == "MonitorDemo$Lock" { print $4, $5 }' m$V.txt)
    [ -n "$rows" ] || fail "no MONITOR TIME row for MonitorDemo\$Lock: $(sed -n '/^MONITOR TIME BEGIN/,/^MONITOR TIME END/p' m$V.txt)"
    cnt=0
    while read -r c tr; do
        top=$(awk -F '\t' -v t="$tr" '$1 == t { split($3, f, "|"); print f[1] }' m$V.tr)
        # HotSpot reports a thread blocked in monitorenter at the bytecode
        # after it (bci 11 here, the next line) once the method is compiled
        case "$top" in
            "MonitorDemo.hold(MonitorDemo.java:$LC)" | "MonitorDemo.hold(MonitorDemo.java:$((LC + 1)))") ;;
            *) fail "contention trace's top frame: expected MonitorDemo.hold at line $LC or $((LC + 1)), found '$top'" ;;
        esac
        cnt=$((cnt + c))
    done <<<"$rows"
    expect_eq "contended entries at MonitorDemo.hold" "$want" "$cnt"
    echo "   ok: exactly $cnt contended entries at MonitorDemo.hold:$LC"

    step "monitor=y: WAIT: and WAITED: lines"
    ws=$(grep -m1 'name="waiter"' m$V.txt | sed -E 's/.*id = ([0-9]+),.*/\1/')
    [ -n "$ws" ] || fail "no THREAD START for the waiter"
    grep -qx "WAIT: MONITOR LMonitorDemo\$Lock;, timeout=100, thread $ws" m$V.txt || fail "no WAIT: line of thread $ws"
    waited=$(sed -n "s/^WAITED: MONITOR LMonitorDemo\\\$Lock;, time_waited=\([0-9]*\), thread $ws\$/\1/p" m$V.txt)
    [ -n "$waited" ] && [ "$waited" -ge 90 ] && [ "$waited" -lt 2000 ] || fail "WAITED time '$waited' ms for a 100 ms wait"
    echo "   ok: waiter $ws waited $waited ms"

    step "monitor=y: MONITOR DUMP during the contention (SIGQUIT)"
    rm -f q$V.txt
    # the last round's holder keeps the lock, the others blocked on it,
    # until it reads a line: the dump is taken in that state
    rm -f q$V.fifo && mkfifo q$V.fifo
    timeout 120 "$JAVA" -Xcheck:jni "$A=monitor=y,file=$WORK/q$V.txt" -cp classes MonitorDemo 4 3 5 100 steady \
        <q$V.fifo >q$V.out 2>q$V.err &
    pid=$!
    exec 3>q$V.fifo
    for _ in $(seq 1 600); do
        grep -q '^steady$' q$V.out 2>/dev/null && break
        sleep 0.1
    done
    grep -q '^steady$' q$V.out || fail "MonitorDemo never reached its steady state: $(head -5 q$V.err)"
    kill -QUIT $pid
    for _ in $(seq 1 600); do
        grep -q '^MONITOR DUMP END$' q$V.txt 2>/dev/null && break
        sleep 0.1
    done
    echo go >&3
    exec 3>&-
    wait $pid || fail "MonitorDemo under monitor=y exited $?: $(head -5 q$V.err)"
    ! grep -q WARNING q$V.out q$V.err || fail "SIGQUIT run: a WARNING: $(grep -h WARNING q$V.out q$V.err | head -3)"
    ! grep -q "HPROF ERROR" q$V.err || fail "SIGQUIT run: $(grep "HPROF ERROR" q$V.err | head -3)"
    awk '/^MONITOR DUMP BEGIN/ { n++ } n == 1' q$V.txt | sed '/^MONITOR DUMP END/q' >q$V.dump
    grep -q '^MONITOR DUMP END$' q$V.dump || fail "no MONITOR DUMP from the SIGQUIT dump"
    # every line of every MONITOR DUMP, and every WAIT:/WAITED: line
    awk '/^MONITOR DUMP BEGIN$/ { on = 1; next } /^MONITOR DUMP END$/ { on = 0; next }
         on && !/^    THREAD 2[0-9]+, trace 3[0-9]+, status: ((S|intr|native)\|)*(ZO|NS|SL|MW|CW|R|UN)$/ &&
               !/^    MONITOR [^ ]+( unowned)?$/ && !/^\towner: thread 2[0-9]+, entry count: [0-9]+$/ &&
               !/^\twaiting to (enter|be notified):( thread 2[0-9]+(, thread 2[0-9]+)*)?$/ { print "bad line: " $0; bad = 1 }
         /^WAIT/ && !/^WAIT: MONITOR [^ ]+;?, timeout=[0-9]+, thread 2[0-9]+$/ && !/^WAITED: MONITOR [^ ]+, time_waited=[0-9]+, thread 2[0-9]+$/ { print "bad line: " $0; bad = 1 }
         END { exit bad }' q$V.txt >q$V.layout || fail "MONITOR DUMP / WAIT lines: $(head -5 q$V.layout)"
    declare -A status=()
    while read -r s st; do status[$s]=$st; done < <(sed -nE 's/^    THREAD ([0-9]+), trace 3[0-9]+, status: (.*)$/\1 \2/p' q$V.dump)
    contenders=$(sed -nE 's/^THREAD START \(obj=[0-9a-f]+, id = ([0-9]+), name="contender-[0-9]+".*/\1/p' q$V.txt | sort | tr '\n' ' ')
    [ "$(echo $contenders | wc -w)" = 4 ] || fail "expected 4 contender threads, found: $contenders"
    owner=$(awk '/^    MONITOR LMonitorDemo\$Lock;$/ { getline; print }' q$V.dump | sed -nE 's/^\towner: thread ([0-9]+), entry count: 1$/\1/p')
    [ -n "$owner" ] && [[ " $contenders" == *" $owner "* ]] || fail "the lock's owner '$owner' is not a contender: $(cat q$V.dump)"
    waiting=$(awk '/^    MONITOR LMonitorDemo\$Lock;$/ { on = 1; next } /^    MONITOR/ { on = 0 } on && /waiting to enter:/' q$V.dump |
        sed 's/.*waiting to enter://; s/,//g; s/thread//g')
    [ "$(echo $waiting | wc -w)" = 3 ] || fail "expected the 3 other contenders waiting to enter the lock: $(cat q$V.dump)"
    for w in $waiting; do
        [[ " $contenders" == *" $w "* ]] && [ "$w" != "$owner" ] || fail "thread $w waits to enter but is not another contender"
    done
    main_ser=$(grep -m1 'name="main"' q$V.txt | sed -E 's/.*id = ([0-9]+),.*/\1/')
    expect_eq "main's status (joining)" CW "${status[$main_ser]:-none}"
    awk -v m="$main_ser" '/^    MONITOR Ljava\/lang\/Thread; unowned$/ { on = 1; next } /^    MONITOR/ { on = 0 }
                          on && $0 == "\twaiting to be notified: thread " m { f = 1 } END { exit !f }' q$V.dump ||
        fail "main ($main_ser) not shown waiting to be notified on a Thread: $(cat q$V.dump)"
    echo "   ok: owner $owner, waiting to enter:$waiting, main $main_ser waits on a Thread"
    unset status
done

if [ "$FAILURES" -gt 0 ]; then
    echo "FAIL: test_agent_times ($FAILURES failure(s))" >&2
    exit 1
fi
echo "PASS: test_agent_times"
