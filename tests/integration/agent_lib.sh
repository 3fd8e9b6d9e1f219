# agent_lib.sh: what every test_agent_*.sh shares, sourced with the script's
# arguments (HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO): argument checks, the
# work directory, and the helpers: fail/step/expect_eq, compile (demo-java ->
# classes), line_of (a demo's // SITE-* marker -> its line), jrun (a JVM run
# under -Xcheck:jni on each JDK, failing on unexpected warnings or HPROF
# ERRORs), traces/cpu_rows/samples_through/site_rows/site/sum_col/check_site (reading the TEXT output
# with awk, independently of the project's reader), check_layout and
# check_threads.
#
# shellcheck shell=bash
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

# await_ready NAME DEMO PID: waits (20 s) for the demo started as PID
# (timeout's process, the JVM its child) to print "ready" into NAME.out, and
# prints the JVM's pid; fails with the head of NAME.err otherwise.
await_ready() {
    local name=$1 demo=$2 pid=$3 jpid
    for _ in $(seq 1 200); do
        grep -q '^ready$' "$name.out" 2>/dev/null && break
        sleep 0.1
    done
    # (in a command substitution: a failure must end the caller too, so
    # return 1 even when HPROF_TEST_KEEP_GOING lets fail return)
    grep -q '^ready$' "$name.out" || { fail "$name: $demo never got ready: $(head -5 "$name.err")"; return 1; }
    jpid=$(pgrep -P "$pid" | head -1)
    [ -n "$jpid" ] || { fail "$name: no JVM process under $pid"; return 1; }
    echo "$jpid"
}

# jrun NAME EXPECTED_RC ALLOW_HPROF_ERROR JVM_ARGS...: runs $JAVA with
# -Xcheck:jni, stdout in NAME.out, stderr in NAME.err; checks the exit
# status, that -Xcheck:jni said nothing (no WARNING) and, unless allowed, that
# there is no HPROF ERROR. JRUN_JVM_WARNING, when set, is a regex of WARNING
# lines that the JVM itself is known to print for this run (each use says
# why); any other WARNING still fails.
JRUN_JVM_WARNING=""
jrun() {
    local name=$1 want=$2 allow=$3
    shift 3
    local rc=0
    timeout 120 "$JAVA" -Xcheck:jni -Xmx512m "$@" >"$name.out" 2>"$name.err" || rc=$?
    if [ "$rc" != "$want" ]; then
        fail "$name: java exited $rc, expected $want; stderr:
$(head -20 "$name.err")"
    fi
    local warn
    warn=$(grep -h WARNING "$name.out" "$name.err" | { if [ -n "$JRUN_JVM_WARNING" ]; then grep -vE "$JRUN_JVM_WARNING"; else cat; fi; } || true)
    if [ -n "$warn" ]; then
        fail "$name: -Xcheck:jni or the JVM printed a WARNING:
$(echo "$warn" | head -5)"
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
# cpu_rows OUT > "rank count trace method" for the last CPU SAMPLES section
cpu_rows() {
    awk '/^CPU SAMPLES BEGIN/ { n = 0; delete r; on = 1; next }
         /^CPU SAMPLES END$/ { on = 0; next }
         on && /^ *[0-9]+ / { r[++n] = $1 " " $4 " " $5 " " $6 }
         END { for (i = 1; i <= n; i++) print r[i] }' "$1"
}
# samples_through OUT FRAME_PREFIX: hits of traces that contain a frame starting with FRAME_PREFIX
samples_through() {
    traces "$1" >"$1.traces"
    cpu_rows "$1" | awk -v pre="$2" -v tf="$1.traces" '
        BEGIN { FS = "\t"; while ((getline l < tf) > 0) { split(l, a, "\t"); fr[a[1]] = a[3] } FS = " " }
        { n = split(fr[$3], f, "|"); for (i = 1; i <= n; i++) if (index(f[i], pre) == 1) { s += $2; break } }
        END { print s + 0 }'
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
    echo "$1" | awk -v c="$2" 'NF { s += $c } END { printf "%.0f\n", s }' # no 5.03e+09
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
        /^SITES BEGIN \(/ { if ($0 !~ /^SITES BEGIN \(ordered by live bytes(, estimated from samples every [0-9]+ bytes)?(; live (not exact|as of the GC forced when the exit began)[^()]*)?\) [A-Z][a-z][a-z] [A-Z][a-z][a-z] [ 0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9] [0-9][0-9][0-9][0-9]$/) { print "bad SITES BEGIN line: " $0; bad = 1 }
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
              # sample=BYTES adds "[N samples, L live]" after the class name
              if (NF != 9 && !(NF == 13 && $10 ~ /^\[[0-9]+$/ && $11 ~ /^samples?,$/ && $12 ~ /^[0-9]+$/ && $13 == "live]")) { print "row " n " has " NF " fields: " $0; bad = 1 }
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

