# stress_lib.sh: what the JVM stress scripts (stress_*.sh) share, sourced
# with the script's arguments (HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO
# [HPROF_CTL]).
#
# A stress case runs a real JVM under the agent many times and judges each
# run: "frozen" when the JVM has not exited by its deadline (every thread's
# stack is then saved into the log, from jstack, or gdb when the JVM no
# longer answers jstack, and the JVM is killed), "bad" when it exited with
# the wrong status, an unexpected HPROF ERROR or an incomplete output, "ok"
# otherwise. Each case ends with one line
#     stress: CASE jdk=N runs=R ok=K frozen=F bad=B
# and the script with "N passed, M failed" (a case passes when every run is
# ok). Failed runs keep their files in WORKDIR.
#
# STRESS_TIER=quick (the default, in CI) or long (20 runs a case, or
# STRESS_RUNS) sets how many runs a case gets per JDK.
#
# shellcheck shell=bash
if [ $# -lt 4 ]; then
    echo "usage: bash $0 HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO [HPROF_CTL]" >&2
    exit 2
fi
HPROF=$1
SRC=$2
WORK=$3
AGENT=$4
CTL=${5:-}
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

case ${STRESS_TIER:-quick} in
quick) RUNS=${STRESS_RUNS:-3} ;;
long) RUNS=${STRESS_RUNS:-20} ;;
*) echo "STRESS_TIER must be quick or long" >&2; exit 2 ;;
esac
JDKS=${HPROF_TEST_JDKS:-"/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
FOUND_JDKS=""
for j in $JDKS; do
    [ -x "$j/bin/java" ] && FOUND_JDKS="$FOUND_JDKS $j"
done
[ -n "$FOUND_JDKS" ] || { echo "FAIL: no JDK among $JDKS" >&2; exit 1; }
[ -f "$AGENT" ] || { echo "FAIL: no agent at $AGENT" >&2; exit 1; }
FIRST_JDK=$(echo $FOUND_JDKS | awk '{print $1}')
mkdir -p classes
"$FIRST_JDK/bin/javac" --release 17 -d classes "$SRC/demo-java/StressDemo.java" ||
    { echo "FAIL: javac StressDemo.java" >&2; exit 1; }

PASSED=0
FAILED=0
# jdk_version JDK -> 17, 25...
jdk_version() {
    "$1/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/'
}

# save_stacks PID LOG JDK: every thread's stack of a JVM that did not exit
save_stacks() {
    local pid=$1 log=$2 jdk=$3
    {
        echo "== jstack -l $pid"
        timeout 30 "$jdk/bin/jstack" -l "$pid" 2>&1 || echo "(jstack failed: $?)"
        if command -v gdb >/dev/null; then
            echo "== gdb: thread apply all bt"
            timeout 60 gdb -batch -nx -p "$pid" -ex 'set pagination off' \
                -ex 'thread apply all bt 30' 2>&1 | grep -v '^\[New LWP' || true
        fi
    } >"$log" 2>&1
}

# srun RUN DEADLINE STATUS ACTION JDK JAVA_ARGS...
# Starts the JVM (stdout RUN.out, stderr RUN.err), runs the shell function
# ACTION (or ":") with the JVM's pid in $PID once it printed "ready", then
# waits for it until DEADLINE seconds after its start. Sets RESULT to ok,
# frozen or bad (and WHY); a frozen JVM's stacks go to RUN.stacks.
srun() {
    local run=$1 deadline=$2 status=$3 action=$4 jdk=$5
    shift 5
    RESULT=ok
    WHY=""
    local t0=$SECONDS
    "$jdk/bin/java" "$@" >"$run.out" 2>"$run.err" </dev/null &
    PID=$!
    local i ready=0
    MIN_DUMPS=1 # an action that makes dumps raises it (the checks count them)
    for ((i = 0; i < 600; i++)); do # until "ready" (then the action), or the JVM is gone
        if grep -qx ready "$run.out" 2>/dev/null; then
            ready=1
            $action
            break
        fi
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    while kill -0 "$PID" 2>/dev/null && [ $((SECONDS - t0)) -lt "$deadline" ]; do
        sleep 0.1
    done
    if kill -0 "$PID" 2>/dev/null; then
        save_stacks "$PID" "$run.stacks" "$jdk"
        kill -9 "$PID" 2>/dev/null
        wait "$PID" 2>/dev/null
        RESULT=frozen
        WHY="no exit within ${deadline} s; stacks in $WORK/$run.stacks"
        return 0
    fi
    local rc=0
    wait "$PID" || rc=$?
    if [ "$rc" != "$status" ]; then
        RESULT=bad
        WHY="exit status $rc, expected $status: $(grep -m3 -E 'HPROF ERROR|Exception|Error' "$run.err" "$run.out" | tr '\n' ';')"
    elif grep "HPROF ERROR" "$run.err" | grep -qvE "${SRUN_ALLOW:-^\$}"; then
        RESULT=bad # SRUN_ALLOW: a regular expression of the HPROF ERROR lines a case expects
        WHY="$(grep 'HPROF ERROR' "$run.err" | grep -vE "${SRUN_ALLOW:-^\$}" | head -3 | tr '\n' ';')"
    elif [ $ready = 0 ]; then
        RESULT=bad # its action (the storm...) never ran: the run proves nothing
        WHY="the program never printed 'ready': $(head -c 300 "$run.err" | tr '\n' ';')"
    fi
}

# verify_bin FILE...: each file must pass `hprof verify` (sets RESULT/WHY);
# VERIFY_OPTS adds options (--hotspot: HotSpot's own dumps, heap=dump)
verify_bin() {
    local f
    [ $# -gt 0 ] || { RESULT=bad; WHY="no output file"; return; }
    for f in "$@"; do
        [ -s "$f" ] || { RESULT=bad; WHY="$f is missing or empty"; return; }
        # shellcheck disable=SC2086 # VERIFY_OPTS: options, word-split
        if ! "$HPROF" verify ${VERIFY_OPTS:-} "$f" >"$f.verify" 2>&1; then
            RESULT=bad
            WHY="hprof verify $f: $(grep -v '^ *$' "$f.verify" | head -4 | tr '\n' ';')"
            return
        fi
    done
}

# check_text FILE SECTION...: a text output is complete: each SECTION
# ("SITES", "CPU SAMPLES", "HEAP DUMP"...) appears, every "X BEGIN" line has
# its "X END", and the file ends with a whole END line (or THREAD START/END:
# threads still come and go after the final dump) (sets RESULT/WHY)
check_text() {
    local f=$1 sec nb ne last
    shift
    [ -s "$f" ] || { RESULT=bad; WHY="$f is missing or empty"; return; }
    for sec in "$@"; do
        nb=$(grep -c "^$sec BEGIN" "$f")
        ne=$(grep -c "^$sec END\$" "$f")
        if [ "$nb" -lt "${MIN_DUMPS:-1}" ] || [ "$nb" != "$ne" ]; then
            RESULT=bad
            WHY="$f: $nb '$sec BEGIN' lines, $ne '$sec END' lines (at least ${MIN_DUMPS:-1} dumps expected)"
            return
        fi
    done
    # the last line is whole, and an END line or a thread's (threads still
    # end after the final dump)
    last=$(tail -1 "$f")
    if [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" != '\n' ]; then
        RESULT=bad; WHY="$f ends in the middle of a line (cut short)"; return
    fi
    case $last in
    *" END" | "THREAD START "* | "THREAD END "*) ;;
    *) RESULT=bad; WHY="$f ends with '$last', not an END line (cut short)" ;;
    esac
}

# case_report CASE JDKV RUNS OK FROZEN BAD (the time since the last report
# is the case's)
CASE_T0=$SECONDS
case_report() {
    echo "stress: $1 jdk=$2 runs=$3 ok=$4 frozen=$5 bad=$6 ($((SECONDS - CASE_T0)) s)"
    CASE_T0=$SECONDS
    if [ "$4" = "$3" ]; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
}

stress_end() {
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" = 0 ] && [ "$PASSED" -gt 0 ] # no case at all proves nothing
}
