#!/usr/bin/env bash
# test_agent_dumps.sh: dumps of a running JVM and attaching to one, on real
# JVMs (JDK 17 and 25, -Xcheck:jni), checked from the TEXT output with
# awk/grep: a SIGQUIT (kill -QUIT) dump and a `jcmd PID JVMTI.data_dump` dump
# while the program waits (a SITES section appears before exit, exact counts,
# each TRACE block printed once over several dumps, doe=n writes nothing
# more at exit), the same in binary (`hprof verify`, one ALLOC SITES per
# dump), `jcmd PID JVMTI.agent_load` into a running JVM (counts of the
# allocations made after the attach, in the main thread and in a new
# thread), a second load refused with a clear message while the JVM goes on.
#
# usage: bash test_agent_dumps.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
# Env: HPROF_TEST_JDKS, HPROF_TEST_KEEP_GOING=1 (see test_agent_sites.sh).
# Demos: demo-java/SitesDemo.java (with "wait") and demo-java/AttachDemo.java.
set -euo pipefail

if [ $# -lt 4 ]; then
    echo "usage: bash $0 HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO" >&2
    exit 2
fi
HPROF=$1
SRC=$2
WORK=$3
AGENT=$4
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"
trap '' PIPE

# ---------------------------------------------------------------- helpers
FAILURES=0
CTX=""
fail() {
    echo "FAIL${CTX:+ [$CTX]}: $*" >&2
    if [ "${HPROF_TEST_KEEP_GOING:-0}" = 1 ]; then
        FAILURES=$((FAILURES + 1))
        return 0
    fi
    exit 1
}
step() {
    echo "== ${CTX:+[$CTX] }$*"
}
# expect_eq WHAT EXPECTED FOUND
expect_eq() {
    [ "$2" = "$3" ] || fail "$1: expected '$2', found '$3'"
}

JDKS=${HPROF_TEST_JDKS:-"/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
FOUND_JDKS=""
for j in $JDKS; do
    if [ -x "$j/bin/java" ]; then FOUND_JDKS="$FOUND_JDKS $j"; else echo "note: no JDK at $j, skipped"; fi
done
[ -n "$FOUND_JDKS" ] || fail "no JDK found among: $JDKS"
[ -f "$AGENT" ] || fail "the agent $AGENT does not exist (build the hprof_agent target)"
FIRST_JDK=$(echo $FOUND_JDKS | awk '{print $1}')

# compile the demos once, for the oldest JDK
compile() {
    mkdir -p classes
    for d in "$@"; do
        "$FIRST_JDK/bin/javac" --release 17 -d classes "$SRC/demo-java/$d.java" ||
            fail "javac $d.java failed"
    done
}
# line_of FILE MARKER: the line number of the comment "// MARKER" in demo-java/FILE
line_of() {
    local n
    n=$(grep -n "// $2\$" "$SRC/demo-java/$1" | cut -d: -f1)
    [ "$(echo "$n" | wc -l)" = 1 ] && [ -n "$n" ] || fail "marker $2 not found once in $1"
    echo "$n"
}

# jrun NAME EXPECTED_RC ALLOW_HPROF_ERROR JVM_ARGS...: runs $JAVA with
# -Xcheck:jni, stdout in NAME.out, stderr in NAME.err; checks the exit
# status, that -Xcheck:jni said nothing (no WARNING) and, unless allowed, that
# there is no HPROF ERROR.
jrun() {
    local name=$1 want=$2 allow=$3
    shift 3
    local rc=0
    timeout 120 "$JAVA" -Xcheck:jni -Xmx512m "$@" >"$name.out" 2>"$name.err" || rc=$?
    if [ "$rc" != "$want" ]; then
        fail "$name: java exited $rc, expected $want; stderr:
$(head -20 "$name.err")"
    fi
    if grep -q WARNING "$name.out" "$name.err"; then
        fail "$name: -Xcheck:jni or the JVM printed a WARNING:
$(grep -h WARNING "$name.out" "$name.err" | head -5)"
    fi
    if [ "$allow" != allow ] && grep -q "HPROF ERROR" "$name.err"; then
        fail "$name: unexpected HPROF ERROR: $(grep "HPROF ERROR" "$name.err" | head -3)"
    fi
    return 0
}

# traces OUT > TSV: serial<TAB>thread<TAB>frame|frame|... for every TRACE block
traces() {
    awk '
        /^TRACE [0-9]+:/ {
            cur = $2; sub(/:$/, "", cur); thr = "";
            if (match($0, /\(thread=[0-9]+\)/)) thr = substr($0, RSTART + 8, RLENGTH - 9);
            order[++n] = cur; th[cur] = thr; fr[cur] = ""; next
        }
        cur != "" && /^\t/ { f = substr($0, 2); fr[cur] = (fr[cur] == "" ? f : fr[cur] "|" f); next }
        { cur = "" }
        END { for (i = 1; i <= n; i++) printf "%s\t%s\t%s\n", order[i], th[order[i]], fr[order[i]] }
    ' "$1"
}
# site_rows OUT [N] > rows: the rows of the N-th SITES section (default: the last)
site_rows() {
    awk -v want="${2:-0}" '
        /^SITES BEGIN \(/ { sec++; insec = 1; next }
        /^SITES END$/ { insec = 0; next }
        insec && /^ *[0-9]+ / { rows[sec] = rows[sec] $0 "\n" }
        END { k = (want == 0 ? sec : want); printf "%s", rows[k] }
    ' "$1"
}
# site OUT CLASS FRAMES [N]: the rows (rank ... trace name) of CLASS whose
# trace starts with FRAMES (frames joined by |), in the N-th SITES section;
# one line per row, with the trace's thread serial appended
site() {
    traces "$1" >"$1.traces"
    site_rows "$1" "${4:-0}" | awk -v cls="$2" -v pre="$3" -v tf="$1.traces" '
        BEGIN { FS = "\t"; while ((getline l < tf) > 0) { split(l, a, "\t"); fr[a[1]] = a[3]; th[a[1]] = a[2] } FS = " " }
        $9 == cls && (fr[$8] == pre || index(fr[$8], pre "|") == 1) { print $0, (th[$8] == "" ? "-" : th[$8]) }
    '
}
# sum_col ROWS COL: sum of a column over rows
sum_col() {
    echo "$1" | awk -v c="$2" 'NF { s += $c } END { print s + 0 }'
}

# check_site OUT CLASS FRAMES EXACT_FRAMES ALLOC_N ALLOC_BYTES LIVE_N LIVE_BYTES
# ALLOC_BYTES/LIVE_BYTES may be "-" to skip. EXACT_FRAMES=1: the trace is exactly FRAMES.
check_site() {
    local out=$1 cls=$2 frames=$3 exact=$4 an=$5 ab=$6 ln=$7 lb=$8
    local rows
    rows=$(site "$out" "$cls" "$frames")
    if [ -z "$rows" ]; then
        fail "$out: no SITES row for $cls with trace $frames; rows of $cls:
$(site_rows "$out" | awk -v c="$cls" '$9 == c' | head -5)"
        return 0
    fi
    if [ "$(echo "$rows" | wc -l)" != 1 ]; then
        fail "$out: expected one SITES row for $cls at $frames, found:
$rows"
    fi
    if [ "$exact" = 1 ]; then
        local tr
        tr=$(echo "$rows" | head -1 | awk '{print $8}')
        expect_eq "$out: trace $tr of $cls (frames)" "$frames" "$(awk -F'\t' -v t="$tr" '$1 == t {print $3}' "$out.traces")"
    fi
    expect_eq "$out: $cls allocated objects" "$an" "$(sum_col "$rows" 7)"
    [ "$ab" = - ] || expect_eq "$out: $cls allocated bytes" "$ab" "$(sum_col "$rows" 6)"
    expect_eq "$out: $cls live objects" "$ln" "$(sum_col "$rows" 5)"
    [ "$lb" = - ] || expect_eq "$out: $cls live bytes" "$lb" "$(sum_col "$rows" 4)"
    echo "   ok: $cls at ${frames%%|*}: alloc $(sum_col "$rows" 7) objs $(sum_col "$rows" 6) bytes, live $(sum_col "$rows" 5) objs"
}

# check_layout OUT: the text layout every format=a output must have
check_layout() {
    local out=$1
    head -1 "$out" | grep -qE '^JAVA PROFILE 1\.0\.1, created .+' ||
        fail "$out: first line is not 'JAVA PROFILE 1.0.1, created <date>': $(head -1 "$out")"
    grep -qx -- '--------' "$out" || fail "$out: no '--------' line ending the header"
    local nsec
    nsec=$(grep -c '^SITES BEGIN (' "$out" || true)
    [ "$nsec" -ge 1 ] || fail "$out: no SITES BEGIN section"
    expect_eq "$out: SITES END count" "$nsec" "$(grep -cx 'SITES END' "$out" || true)"
    # the two column header lines right after each SITES BEGIN
    awk '
        /^SITES BEGIN \(/ { if ($0 !~ /^SITES BEGIN \(ordered by live bytes(, estimated from samples every [0-9]+ bytes)?\) [A-Z][a-z][a-z] [A-Z][a-z][a-z] [ 0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9] [0-9][0-9][0-9][0-9]$/) { print "bad SITES BEGIN line: " $0; bad = 1 }
                            h = NR; next }
        h && NR == h + 1 { if ($0 != "          percent          live          alloc'\''ed  stack class") { print "bad header 1: [" $0 "]"; bad = 1 } next }
        h && NR == h + 2 { if ($0 != " rank   self  accum     bytes objs     bytes  objs trace name") { print "bad header 2: [" $0 "]"; bad = 1 } h = 0; next }
        END { exit bad }
    ' "$out" >"$out.layout" || fail "$out: SITES header lines: $(cat "$out.layout")"
    # rows: 9 fields, ranks 1..n, percent columns, live <= alloc, sorted by live bytes,
    # accum = running sum of self (to rounding), self = live bytes / total live
    local s
    for s in $(seq 1 "$nsec"); do
        site_rows "$out" "$s" | awk '
            { n++
              if (NF != 9) { print "row " n " has " NF " fields: " $0; bad = 1 }
              if ($1 != n) { print "rank " $1 " where " n " was expected"; bad = 1 }
              if ($2 !~ /^[0-9]+\.[0-9][0-9]%$/ || $3 !~ /^[0-9]+\.[0-9][0-9]%$/) { print "bad percent: " $0; bad = 1 }
              if ($4 + 0 > $6 + 0 || $5 + 0 > $7 + 0) { print "live above allocated: " $0; bad = 1 }
              if (n > 1 && $4 + 0 > prev) { print "not ordered by live bytes: " $0; bad = 1 }
              if ($8 !~ /^3[0-9][0-9][0-9][0-9][0-9]+$/) { print "bad trace serial: " $0; bad = 1 }
              if ($5 + 0 > 0 && ($4 % $5) != 0 && $9 !~ /\[\]$/ && $9 != "java.lang.Class") { print "live bytes not a multiple of live objects (instances have one size): " $0; bad = 1 }
              if ($7 + 0 > 0 && ($6 % $7) != 0 && $9 !~ /\[\]$/ && $9 != "java.lang.Class") { print "alloc bytes not a multiple of alloc objects: " $0; bad = 1 }
              prev = $4 + 0; tot += $4; lb[n] = $4; self[n] = $2 + 0; acc[n] = $3 + 0 }
            END {
              a = 0
              for (i = 1; i <= n; i++) {
                a += self[i]
                if (acc[i] - a > 0.011 * i + 0.02 || a - acc[i] > 0.011 * i + 0.02) { print "accum " acc[i] " at rank " i " is not the running sum " a; bad = 1; break }
              }
              if (n > 0 && acc[n] > 100.005) { print "accum above 100%: " acc[n]; bad = 1 }
              exit bad }
        ' >"$out.rows" || fail "$out: SITES rows (section $s): $(head -5 "$out.rows")"
    done
    # TRACE blocks: each printed once, and before the first SITES row that uses it
    awk '
        /^TRACE [0-9]+:/ { t = $2; sub(/:$/, "", t); if (t in seen) { print "TRACE " t " printed twice"; bad = 1 } seen[t] = NR; next }
        /^SITES BEGIN \(/ { insec = 1; next }
        /^SITES END$/ { insec = 0; next }
        insec && /^ *[0-9]+ / { if (!($8 in seen)) { print "trace " $8 " used at line " NR " before its TRACE block"; bad = 1 } }
        END { exit bad }
    ' "$out" >"$out.tr" || fail "$out: TRACE blocks: $(head -5 "$out.tr")"
    # every TRACE block has frames or <empty>, tab-indented class.method(source:line)
    awk '
        /^TRACE [0-9]+:/ { if (open && !nf) { print "TRACE without frames before line " NR; bad = 1 } open = 1; nf = 0; next }
        open && /^\t/ { nf++; if ($0 !~ /^\t(<empty>|[^ ]+\.[^ .(]+\([^:]+:([0-9]+|Unknown line|Native method)\))$/) { print "bad frame: " $0; bad = 1 } next }
        { if (open && !nf) { print "TRACE without frames at line " NR; bad = 1 } open = 0 }
        END { exit bad }
    ' "$out" >"$out.fr" || fail "$out: TRACE frames: $(head -5 "$out.fr")"
}

# check_threads OUT PREFIX COUNT: THREAD START for PREFIX0..PREFIX(COUNT-1), ids
# >= 200001 and distinct, each with a later THREAD END (id = same)
check_threads() {
    local out=$1 prefix=$2 count=$3 i
    awk '/^THREAD START \(/ { if (match($0, /id = [0-9]+/)) print substr($0, RSTART + 5, RLENGTH - 5) }' "$out" |
        sort | uniq -d >"$out.dupids"
    [ ! -s "$out.dupids" ] || fail "$out: THREAD START ids used twice: $(head -3 "$out.dupids" | tr '\n' ' ')"
    for i in $(seq 0 $((count - 1))); do
        local line id
        line=$(grep -n "^THREAD START (obj=[0-9a-f]*, id = [0-9]*, name=\"$prefix$i\", group=\"main\")\$" "$out" || true)
        if [ "$(echo "$line" | grep -c .)" != 1 ]; then
            fail "$out: expected one 'THREAD START (obj=.., id = .., name=\"$prefix$i\", group=\"main\")', found: [$line]"
            continue
        fi
        id=$(echo "$line" | sed -E 's/.*id = ([0-9]+),.*/\1/')
        [ "$id" -ge 200001 ] || fail "$out: thread $prefix$i has serial $id, expected >= 200001"
        local start end
        start=${line%%:*}
        end=$(grep -nx "THREAD END (id = $id)" "$out" | cut -d: -f1 || true)
        if [ "$(echo "$end" | grep -c .)" != 1 ] || [ "${end:-0}" -le "$start" ]; then
            fail "$out: expected one 'THREAD END (id = $id)' after line $start for $prefix$i, found lines [$end]"
        fi
    done
    echo "   ok: THREAD START/END for ${prefix}0..${prefix}$((count - 1))"
}

# ------------------------------------------------ background JVMs on a fifo
BG_PID=""
cleanup() {
    if [ -n "$BG_PID" ] && kill -0 "$BG_PID" 2>/dev/null; then kill -9 "$BG_PID" 2>/dev/null || true; fi
}
trap cleanup EXIT
# bg_start NAME JVM_ARGS...: $JAVA -Xcheck:jni in the background, stdin from
# the fifo NAME.in (held open on fd 3), stdout NAME.out, stderr NAME.err
bg_start() {
    local name=$1
    shift
    rm -f "$name.in"
    mkfifo "$name.in"
    "$JAVA" -Xcheck:jni -Xmx512m "$@" <"$name.in" >"$name.out" 2>"$name.err" &
    BG_PID=$!
    exec 3>"$name.in"
}
# send LINE: one command to the background JVM
send() {
    echo "$1" >&3 || fail "could not send '$1' to the JVM (it exited?)"
}
# wait_for FILE REGEX COUNT [SECONDS]: until FILE has COUNT lines matching REGEX
wait_for() {
    local file=$1 re=$2 count=$3 secs=${4:-60} i
    for i in $(seq 1 $((secs * 10))); do
        if [ -f "$file" ] && [ "$(grep -cE -- "$re" "$file" 2>/dev/null || true)" -ge "$count" ]; then return 0; fi
        if ! kill -0 "$BG_PID" 2>/dev/null; then
            [ -f "$file" ] && [ "$(grep -cE -- "$re" "$file" 2>/dev/null || true)" -ge "$count" ] && return 0
            fail "the JVM exited while waiting for $count x '$re' in $file; stderr: $(tail -5 "$BG_NAME.err" 2>/dev/null)"
            return 0
        fi
        sleep 0.1
    done
    fail "timeout (${secs}s) waiting for $count x '$re' in $file (found $(grep -cE -- "$re" "$file" 2>/dev/null || echo 0))"
}
# wait_records FILE RECORD COUNT: until `hprof info FILE` counts COUNT records
wait_records() {
    local i n
    for i in $(seq 1 300); do
        n=$("$HPROF" info "$1" 2>/dev/null | awk -v r="$2" 'index($0, r) == 1 { x = substr($0, length(r) + 1); split(x, a, " "); print a[1] }' || true)
        [ -n "$n" ] && [ "$n" -ge "$3" ] && return 0
        sleep 0.1
    done
    fail "timeout waiting for $3 $2 record(s) in $1 (found '${n:-}')"
}
# bg_end NAME EXPECTED_RC ALLOW_HPROF_ERROR: close stdin, wait for the exit
bg_end() {
    local name=$1 want=$2 allow=$3 i rc=0
    exec 3>&-
    for i in $(seq 1 600); do
        kill -0 "$BG_PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$BG_PID" 2>/dev/null; then
        kill -9 "$BG_PID" 2>/dev/null || true
        fail "$name: the JVM did not exit within 60 s after its input ended"
    fi
    wait "$BG_PID" || rc=$?
    BG_PID=""
    expect_eq "$name: exit status" "$want" "$rc"
    if grep -q WARNING "$name.out" "$name.err"; then
        fail "$name: -Xcheck:jni or the JVM printed a WARNING: $(grep -h WARNING "$name.out" "$name.err" | head -5)"
    fi
    if [ "$allow" != allow ] && grep -q "HPROF ERROR" "$name.err"; then
        fail "$name: unexpected HPROF ERROR: $(grep "HPROF ERROR" "$name.err" | head -3)"
    fi
}
nsections() {
    grep -c '^SITES BEGIN (' "$1" || true
}

# ---------------------------------------------------------------- the test
compile SitesDemo AttachDemo
D=SitesDemo.java
F_ITEM="SitesDemo.makeItems(SitesDemo.java:$(line_of $D SITE-ITEM))|SitesDemo.work(SitesDemo.java:$(line_of $D SITE-WORK-ITEMS))"
F_GARB="SitesDemo.makeGarbage(SitesDemo.java:$(line_of $D SITE-GARBAGE))|SitesDemo.work(SitesDemo.java:$(line_of $D SITE-WORK-GARBAGE))"
F_LATE="AttachDemo.late(AttachDemo.java:$(line_of AttachDemo.java SITE-LATE))"
F_LATET="AttachDemo.lateInThread(AttachDemo.java:$(line_of AttachDemo.java SITE-LATE-THREAD))"
T=4 N=5000 M=300 K=100 ITEM=24 GARB=16 LATE=16

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    JCMD=$JDK/bin/jcmd
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    A="-agentpath:$AGENT"
    DYN=""
    [ "$V" -ge 21 ] && DYN="-XX:+EnableDynamicAgentLoading" # else JDK 21+ warns on attach

    step "SIGQUIT while the program waits: a SITES section before exit"
    BG_NAME=q$V
    bg_start q$V "$A=heap=sites,file=$WORK/q$V.txt,doe=n,cutoff=0" -cp classes SitesDemo $T $N $M $K wait
    wait_for q$V.out '^ready ' 1
    expect_eq "q$V.txt: SITES sections before any dump" 0 "$(nsections q$V.txt)"
    kill -QUIT "$BG_PID"
    wait_for q$V.txt '^SITES END$' 1 30
    kill -0 "$BG_PID" 2>/dev/null || fail "the JVM exited after SIGQUIT"
    expect_eq "q$V.txt: SITES sections after SIGQUIT" 1 "$(nsections q$V.txt)"
    check_site q$V.txt 'SitesDemo$Item' "$F_ITEM" 0 $((T * N)) $((T * N * ITEM)) $((T * N)) $((T * N * ITEM))
    check_site q$V.txt 'SitesDemo$Garbage' "$F_GARB" 0 $((T * N)) $((T * N * GARB)) 0 0

    step "jcmd JVMTI.data_dump: a second SITES section, no TRACE block repeated"
    "$JCMD" "$BG_PID" JVMTI.data_dump >jd$V.out 2>&1 || fail "jcmd JVMTI.data_dump failed: $(cat jd$V.out)"
    wait_for q$V.txt '^SITES END$' 2 30
    check_site q$V.txt 'SitesDemo$Item' "$F_ITEM" 0 $((T * N)) $((T * N * ITEM)) $((T * N)) $((T * N * ITEM))
    send quit
    bg_end q$V 0 no
    expect_eq "q$V.txt: SITES sections at the end with doe=n" 2 "$(nsections q$V.txt)"
    check_layout q$V.txt
    grep -q '^Full thread dump' q$V.out || fail "SIGQUIT: the JVM's own thread dump is missing from stdout (the agent must not take the signal from the VM)"

    step "the same in binary, doe=y: one ALLOC SITES per dump, hprof verify"
    BG_NAME=qb$V
    bg_start qb$V "$A=heap=sites,format=b,file=$WORK/qb$V.hprof" -cp classes SitesDemo $T $N $M $K wait
    wait_for qb$V.out '^ready ' 1
    kill -QUIT "$BG_PID"
    wait_records qb$V.hprof "ALLOC SITES" 1
    "$JCMD" "$BG_PID" JVMTI.data_dump >jdb$V.out 2>&1 || fail "jcmd JVMTI.data_dump failed: $(cat jdb$V.out)"
    wait_records qb$V.hprof "ALLOC SITES" 2
    "$HPROF" verify qb$V.hprof >qb$V.verify1 2>&1 || fail "hprof verify of the running JVM's qb$V.hprof: $(tail -5 qb$V.verify1)"
    send quit
    bg_end qb$V 0 no
    "$HPROF" verify qb$V.hprof >qb$V.verify 2>&1 || fail "hprof verify qb$V.hprof: $(tail -5 qb$V.verify)"
    "$HPROF" info qb$V.hprof >qb$V.info
    expect_eq "qb$V.hprof: ALLOC SITES records (SIGQUIT, jcmd, exit)" 3 "$(awk '/^ALLOC SITES/ {print $3}' qb$V.info)"
    echo "   ok: 3 ALLOC SITES, verify clean"

    step "attach with jcmd JVMTI.agent_load, then allocations in main and in a new thread"
    BG_NAME=at$V
    bg_start at$V $DYN -cp classes AttachDemo
    wait_for at$V.out '^waiting ' 1
    "$JCMD" "$BG_PID" JVMTI.agent_load "$AGENT" "\"heap=sites,file=$WORK/at$V.txt,cutoff=0\"" >jl$V.out 2>&1 ||
        fail "jcmd JVMTI.agent_load failed: $(cat jl$V.out)"
    grep -q 'return code: 0' jl$V.out || fail "jcmd JVMTI.agent_load: expected 'return code: 0', got: $(cat jl$V.out)"
    [ -f at$V.txt ] || fail "after the attach there is no output file at$V.txt"
    send warm
    wait_for at$V.out '^warm done' 1
    send "alloc 10000"
    wait_for at$V.out '^alloc done' 1
    send "thread 7000"
    wait_for at$V.out '^thread done' 1
    "$JCMD" "$BG_PID" JVMTI.data_dump >jd2$V.out 2>&1 || fail "jcmd JVMTI.data_dump failed: $(cat jd2$V.out)"
    wait_for at$V.txt '^SITES END$' 1 30
    check_site at$V.txt 'AttachDemo$Late' "$F_LATE" 0 10000 $((10000 * LATE)) 10000 $((10000 * LATE))
    check_site at$V.txt 'AttachDemo$Late' "$F_LATET" 0 7000 $((7000 * LATE)) 7000 $((7000 * LATE))
    grep -q '^THREAD START (obj=[0-9a-f]*, id = [0-9]*, name="late-thread", group="main")$' at$V.txt ||
        fail "at$V.txt: no THREAD START for late-thread (started after the attach)"

    step "a second agent_load is refused; the JVM goes on"
    "$JCMD" "$BG_PID" JVMTI.agent_load "$AGENT" "\"heap=sites,file=$WORK/at2$V.txt\"" >jl2$V.out 2>&1 || true
    if grep -q 'return code: 0' jl2$V.out; then fail "the second agent_load reported success: $(cat jl2$V.out)"; fi
    wait_for at$V.err 'HPROF ERROR.*already loaded' 1 10
    [ ! -e at2$V.txt ] || fail "the refused second load created its output file at2$V.txt"
    send "alloc 10000"
    wait_for at$V.out '^alloc done' 2
    send quit
    bg_end at$V 0 allow
    expect_eq "at$V: HPROF ERROR lines (only the refused second load)" 1 "$(grep -c 'HPROF ERROR' at$V.err)"
    expect_eq "at$V.txt: SITES sections (data_dump, exit)" 2 "$(nsections at$V.txt)"
    check_layout at$V.txt
    grep -qi 'attached' at$V.txt || fail "at$V.txt: the header does not say the agent was attached (and from when counts are exact)"
    check_site at$V.txt 'AttachDemo$Late' "$F_LATE" 0 20000 $((20000 * LATE)) 20000 $((20000 * LATE))
    echo "   jcmd said: $(grep -v '^[0-9]*:$' jl2$V.out | head -2 | tr '\n' ' ')"

    step "attach in binary: hprof verify"
    BG_NAME=ab$V
    bg_start ab$V $DYN -cp classes AttachDemo
    wait_for ab$V.out '^waiting ' 1
    "$JCMD" "$BG_PID" JVMTI.agent_load "$AGENT" "\"heap=sites,format=b,file=$WORK/ab$V.hprof\"" >jl3$V.out 2>&1 ||
        fail "jcmd JVMTI.agent_load (format=b) failed: $(cat jl3$V.out)"
    send warm
    send "alloc 1000"
    wait_for ab$V.out '^alloc done' 1
    send quit
    bg_end ab$V 0 no
    "$HPROF" verify ab$V.hprof >ab$V.verify 2>&1 || fail "hprof verify ab$V.hprof: $(tail -5 ab$V.verify)"
    "$HPROF" info ab$V.hprof | grep -qE '^ALLOC SITES +1 ' || fail "ab$V.hprof: expected 1 ALLOC SITES record"
done
CTX=""
if [ "$FAILURES" -gt 0 ]; then
    echo "$FAILURES failure(s)" >&2
    exit 1
fi
echo "all agent dump and attach checks passed on:$FOUND_JDKS"
