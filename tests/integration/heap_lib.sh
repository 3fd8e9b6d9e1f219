# heap_lib.sh: what the heap-analysis tests (test_diff.sh,
# test_retained_vvm.sh) share, sourced with the script's arguments
# (HPROF_TOOL PROJECT_DIR WORKDIR): the work directory, fail/step/expect_eq,
# the JDKs, compiling demos, and driving a demo that reads commands on its
# standard input while `jcmd GC.heap_dump` dumps it (no agent involved).
#
# shellcheck shell=bash
if [ $# -lt 3 ]; then
    echo "usage: bash $0 HPROF_TOOL PROJECT_DIR WORKDIR" >&2
    exit 2
fi
HPROF=$1
SRC=$2
WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 1

CTX=""
fail() {
    echo "FAIL${CTX:+ [$CTX]}: $*" >&2
    exit 1
}
step() {
    echo "== ${CTX:+[$CTX] }$*"
}
# expect_eq WHAT EXPECTED FOUND
expect_eq() {
    [ "$2" = "$3" ] || fail "$1: expected '$2', found '$3'"
}

# Both JDKs are required: a missing one is a failure, not a skip.
JDKS=${HPROF_TEST_JDKS:-"/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
for j in $JDKS; do
    [ -x "$j/bin/java" ] && [ -x "$j/bin/jcmd" ] || fail "no JDK at $j (java and jcmd needed)"
done
FIRST_JDK=$(echo $JDKS | awk '{print $1}')

# compile DEMO...: demo-java/DEMO.java into classes/, for the oldest JDK
compile() {
    mkdir -p classes
    for d in "$@"; do
        "$FIRST_JDK/bin/javac" --release 17 -d classes "$SRC/demo-java/$d.java" ||
            fail "javac $d.java failed"
    done
}

# demo_start NAME JDK CLASS [ARGS...]: starts the demo with its stdin on a
# fifo, waits for its first line starting with "ready"; sets DEMO_JPID
demo_start() {
    local name=$1 jdk=$2
    shift 2
    rm -f "fifo.$name"
    mkfifo "fifo.$name"
    timeout 300 "$jdk/bin/java" -Xmx1g -cp classes "$@" <"fifo.$name" >"$name.out" 2>"$name.err" &
    DEMO_PID=$!
    exec 7>"fifo.$name" # holds the demo's stdin open
    demo_wait "$name" '^ready'
    DEMO_JPID=$(pgrep -P $DEMO_PID | head -1)
    [ -n "$DEMO_JPID" ] || fail "$name: no JVM process under $DEMO_PID"
}
# demo_wait NAME REGEX: waits (60 s at most) for a line of its output
demo_wait() {
    for _ in $(seq 1 600); do
        grep -q "$2" "$1.out" 2>/dev/null && return 0
        kill -0 $DEMO_PID 2>/dev/null || break
        sleep 0.1
    done
    fail "$1: no line matching $2 in its output: $(head -5 "$1.out" "$1.err")"
}
# demo_say NAME LINE REGEX: sends LINE to the demo, waits for REGEX
demo_say() {
    echo "$2" >&7
    demo_wait "$1" "$3"
}
# demo_dump NAME JDK FILE: jcmd GC.heap_dump (live objects, after a full GC)
demo_dump() {
    rm -f "$3"
    "$2/bin/jcmd" "$DEMO_JPID" GC.heap_dump "$3" >"$1.jcmd" 2>&1 || fail "jcmd GC.heap_dump: $(cat "$1.jcmd")"
    [ -s "$3" ] || fail "jcmd wrote no $3: $(cat "$1.jcmd")"
}
# demo_end NAME: closes its stdin, expects exit status 0
demo_end() {
    exec 7>&-
    local rc=0
    wait $DEMO_PID || rc=$?
    rm -f "fifo.$1"
    [ $rc = 0 ] || fail "$1: java exited $rc: $(head -5 "$1.err")"
}
