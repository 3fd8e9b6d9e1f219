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
