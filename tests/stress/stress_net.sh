#!/usr/bin/env bash
# stress_net.sh: net= against front ends that misbehave, run many times on
# each JDK. Every run is NetDemo (demo-java) under the agent with net= to a
# fake front end (a python3 peer this script writes, or hprof-ctl), with a
# lot of output: 300 000 live Blobs, so the exit heap dump (heap=all,
# format=b) is ~11 MB, more than a loopback connection holds; CPU samples
# every 1 ms run beside it. The cases:
#   control   hprof-ctl, a normal front end (it also asks for sites, a heap
#             summary and a GC while the program runs)
#   garbage   random well-framed commands, then random bytes (any tag: an
#             EXIT may end the program early), while reading everything
#             (heap=sites: a random DUMP HEAP would put a second heap dump
#             into the one stream, which only hprof-ctl splits)
#   stopread  accepts, never reads
#   trickle   reads 1 byte every 100 ms
#   reset     reads 1 MB, then resets the connection (SO_LINGER 0 close)
#   vanish    reads 1 MB, stops reading and is killed -9 (the kernel resets
#             its connection)
#   dumpcmd   hprof-ctl asking for a heap dump (DUMP HEAP) as soon as the
#             agent connects, while the program allocates at full speed
#             with the sampler at 1 ms; then sites
#   gcflood   300 FORCE GC commands, 2 ms apart, while reading everything
#             (heap=sites; the sampler at 1 ms)
# The agent runs with nettimeout=3 (its test option: a 3 s send bound).
# After each run: the JVM exited by itself within FREEZE_S (else it is
# "frozen": every thread's stack, by jstack or else gdb, goes into the log,
# and it is killed -9), with status 0, no hs_err file, the HPROF ERROR lines
# of stderr all among those expected for the case (and, for stopread and
# trickle, the one line that drops the front end; for reset and vanish, one
# that says the connection was lost), stopread and trickle exit within the
# bound + STALL_MARGIN_S of the program's end, and where the front end read
# everything (control, garbage) the file it got passes `hprof verify`.
#
# Prints, per case and JDK: "stress: CASE jdk=N runs=R ok=K frozen=F bad=B",
# then "N passed, M failed", counting the (case, JDK) lines whose runs were
# all ok; exit status 1 if any failed. Logs of failed runs stay in WORKDIR.
#
# usage: bash stress_net.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO HPROF_CTL
# env:   STRESS_TIER=quick (3 runs per case and JDK, ~3 min) | long (20 runs)
#        STRESS_JDKS (default: JDK 17 and 25 under /usr/lib/jvm)
#        STRESS_CASES (default: all of the above, in that order)
#        STRESS_KEEP=1: keep the files of the runs that passed too
#        STRESS_FREEZE_S (60): seconds after which a JVM still there is frozen
set -uo pipefail

if [ $# -lt 5 ]; then
    echo "usage: bash $0 HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO HPROF_CTL" >&2
    exit 2
fi
# absolute: the runs happen in WORKDIR
abspath() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
HPROF=$(abspath "$1")
SRC=$(abspath "$2")
WORK=$(abspath "$3")
AGENT=$(abspath "$4")
CTL=$(abspath "$5")
case "${STRESS_TIER:-quick}" in
quick) RUNS=3 ;;
long) RUNS=20 ;;
*)
    echo "STRESS_TIER must be quick or long, not '$STRESS_TIER'" >&2
    exit 2
    ;;
esac
JDKS=${STRESS_JDKS:-"/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64"}
CASES=${STRESS_CASES:-"control garbage stopread trickle reset vanish dumpcmd gcflood"}
FREEZE_S=${STRESS_FREEZE_S:-60} # a JVM not gone by then is frozen
BOUND_S=3          # nettimeout=
STALL_MARGIN_S=6   # stopread/trickle: the exit (from the program's end) takes at most
                   # the bound + this (the dump; ~3.1-3.4 s in all here; a bound
                   # per send() call took 12 s)
BLOBS=300000

for f in "$HPROF" "$AGENT" "$CTL"; do
    [ -e "$f" ] || { echo "stress_net: $f does not exist (build first)" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "stress_net: python3 is needed for the fake front ends" >&2; exit 2; }
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK" || exit 2

FOUND=""
for j in $JDKS; do
    if [ -x "$j/bin/java" ]; then FOUND="$FOUND $j"; else echo "note: no JDK at $j, skipped"; fi
done
[ -n "$FOUND" ] || { echo "stress_net: no JDK among: $JDKS" >&2; exit 2; }
FIRST=$(echo "$FOUND" | awk '{print $1}')
mkdir -p classes
"$FIRST/bin/javac" --release 17 -d classes "$SRC/demo-java/NetDemo.java" || { echo "stress_net: javac NetDemo failed" >&2; exit 2; }

# ------------------------------------------------------------ the fake peer
cat >peer.py <<'EOF'
# peer.py MODE PORTFILE OUT [SEED]: a fake net= front end (see stress_net.sh)
import os, random, socket, struct, sys, time

mode, portfile, out = sys.argv[1], sys.argv[2], sys.argv[3]
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % srv.getsockname()[1])
os.rename(portfile + ".tmp", portfile)
srv.settimeout(60)
conn, _ = srv.accept()
got = 0
f = open(out, "wb")

def read_some(n=1 << 16):
    global got
    b = conn.recv(n)
    if b:
        f.write(b)
        got += len(b)
    return b

try:
    if mode == "stopread":
        time.sleep(600)  # killed by the script once the JVM is gone
    elif mode == "trickle":
        while read_some(1):
            time.sleep(0.1)
    elif mode in ("reset", "vanish"):
        while got < (1 << 20) and read_some():
            pass
        if mode == "reset":
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()
        else:
            # stop reading (the rest of the output waits in the connection)
            # and tell the script, which kills -9 now: mid-stream for sure
            open(out + ".mark", "w").close()
            time.sleep(600)
    elif mode == "garbage":
        # 150 well-framed commands with random tags (not EXIT) and payloads,
        # then 30 blobs of random bytes (any tag, any length: one may swallow
        # the rest, or be an EXIT), reading all the while
        r = random.Random(seed)
        conn.setblocking(False)
        tags = [1, 2, 3, 4, 6, 7, 8, 8, 8, 0x42, 0x99, 0]
        for k in range(180):
            if k >= 150:
                blob = bytes(r.getrandbits(8) for _ in range(r.randint(1, 64)))
            else:
                pay = bytes(r.getrandbits(8) for _ in range(r.randint(0, 12)))
                blob = struct.pack(">BII", r.choice(tags), k, len(pay)) + pay
            try:
                conn.sendall(blob)
            except BlockingIOError:
                pass  # the agent is busy (a dump): the rest of this one is lost
            except OSError:
                break
            try:
                while read_some():
                    pass
            except BlockingIOError:
                pass
            time.sleep(0.005)
        conn.setblocking(True)
        while read_some():
            pass
    elif mode == "gcflood":
        # 300 FORCE GC commands, 2 ms apart, while a thread reads everything
        # and the sampler asks for safepoints every 1 ms (this froze JVMs
        # while the agent flushed ObjectFree events; docs/deadlocks.md)
        import threading
        def reader():
            try:
                while read_some():
                    pass
            except OSError:
                pass
        t = threading.Thread(target=reader)
        t.start()
        for k in range(300):
            try:
                conn.sendall(struct.pack(">BII", 1, k, 0))
            except OSError:
                break
            time.sleep(0.002)
        t.join()
    else:  # normal
        while read_some():
            pass
except OSError as e:
    print("peer: %s after %d bytes" % (e, got))
f.close()
print("peer: %s done, %d bytes" % (mode, got))
EOF

# ------------------------------------------------------------ helpers
# wait_file FILE SECONDS: until FILE exists and is not empty
wait_file() {
    local _
    for _ in $(seq 1 $(($2 * 10))); do
        [ -s "$1" ] && return 0
        sleep 0.1
    done
    return 1
}
# stacks PID LOG: every thread's stack of a frozen JVM into LOG
stacks() {
    {
        echo "---- jstack $1"
        ps -o pid,stat,etime,args -p "$1" | cut -c1-150
        if ! timeout 20 "$JDK/bin/jstack" "$1" 2>&1; then
            echo "---- jstack failed; gdb"
            timeout 60 gdb -batch -p "$1" -ex 'thread apply all bt' 2>&1 || echo "gdb failed too"
        fi
    } >>"$2"
}
# kill_tree PID: a peer and its children (hprof-ctl, python3), -9
kill_tree() {
    pkill -9 -P "$1" 2>/dev/null
    kill -9 "$1" 2>/dev/null
    wait "$1" 2>/dev/null
}

# allowed HPROF ERROR lines, by case (extended regexes on the whole line)
NETLOST='net=localhost:[0-9]+: the front end (closed the connection|connection failed)(: .+)?; the program goes on, its profile output stops when the connection is gone'
WRITEFAIL='writing net=localhost:[0-9]+ failed: .+'
DROP='net=localhost:[0-9]+: the front end is not reading: [0-9]+ bytes waited [0-9]+\.[0-9] s for room in the connection; it is dropped: at most the first [0-9]+ bytes of the profile reach it, the rest is lost \(the program goes on\)'
allowed() {
    case $1 in
    control | dumpcmd) echo '^$' ;;
    gcflood) echo "^HPROF ERROR: net command [0-9]+ \(FORCE GC\): the VM is exiting$" ;; # one too late
    garbage) echo "^HPROF ERROR: (net command [0-9]+ skipped: .+|net command [0-9]+ \([A-Z ]+\): .+)$" ;;
    stopread | trickle) echo "^HPROF ERROR: $DROP$" ;;
    reset | vanish) echo "^HPROF ERROR: ($NETLOST|$WRITEFAIL)$" ;;
    esac
}

# one_run CASE N: one run; prints ok, frozen or bad (with why on stderr)
one_run() {
    local cs=$1 n=$2 name="$1-$V-$2"
    local opts="heap=all,format=b,cpu=samples,interval=1,nettimeout=$BOUND_S"
    # garbage: no heap dumps, as a random DUMP HEAP would put a second dump
    # into the one stream (which hprof-ctl splits, the fake peer does not)
    case $cs in garbage | gcflood) opts="heap=sites,format=b,cpu=samples,interval=1,nettimeout=$BOUND_S" ;; esac
    local ppid rc=0
    rm -f "$name".*
    if [ "$cs" = control ] || [ "$cs" = dumpcmd ]; then
        local cmds="sites summary gc"
        [ "$cs" = dumpcmd ] && cmds="dump sites"
        # shellcheck disable=SC2086 # the commands are separate arguments
        "$CTL" listen 0 --loopback --port-file "$name.port" --out "$name.hprof" --timeout 60 \
            $cmds </dev/null >"$name.peer" 2>&1 &
        ppid=$!
    else
        local mode=$cs
        python3 peer.py "$mode" "$name.port" "$name.hprof" "$((n * 7919 + V))" >"$name.peer" 2>&1 &
        ppid=$!
    fi
    if ! wait_file "$name.port" 30; then
        echo "bad: the front end did not listen: $(head -3 "$name.peer")" >&2
        kill_tree "$ppid"
        echo bad
        return
    fi
    local port t0 tdone="" jpid
    port=$(cat "$name.port")
    t0=$(date +%s%N)
    # the program: its lines come from a FIFO, so the time it ends is known
    mkfifo "$name.in"
    "$JDK/bin/java" -Xmx512m "-agentpath:$AGENT=net=localhost:$port,$opts" -cp classes NetDemo \
        <"$name.in" >"$name.out" 2>"$name.err" &
    jpid=$!
    exec 9>"$name.in"
    printf 'alloc %d\nspin 300\nalloc 1000\nquit\n' "$BLOBS" >&9
    exec 9>&-
    local frozen=0 killed_peer=0
    while kill -0 "$jpid" 2>/dev/null; do
        if [ -z "$tdone" ] && grep -qx 'done alloc 1000' "$name.out" 2>/dev/null; then
            tdone=$(date +%s%N)
        fi
        if [ "$cs" = vanish ] && [ "$killed_peer" = 0 ] && [ -e "$name.hprof.mark" ]; then
            kill_tree "$ppid"
            killed_peer=1
        fi
        if [ $(($(date +%s%N) - t0)) -gt $((FREEZE_S * 1000000000)) ]; then
            frozen=1
            stacks "$jpid" "$name.stacks"
            kill -9 "$jpid" 2>/dev/null
            break
        fi
        sleep 0.05
    done
    wait "$jpid" 2>/dev/null || rc=$?
    local tend
    tend=$(date +%s%N)
    [ -n "$tdone" ] || tdone=$tend
    # the front end: gone by itself within 15 s, else killed; except those
    # that never stop on their own: stopread, and trickle, which would read
    # what the connection still holds at 10 bytes a second
    if [ "$cs" = stopread ] || [ "$cs" = trickle ] || [ "$killed_peer" = 1 ]; then
        kill_tree "$ppid"
    else
        local _
        for _ in $(seq 1 150); do
            kill -0 "$ppid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$ppid" 2>/dev/null; then
            echo "[$name] the front end did not end after the JVM: killed" >>"$name.why"
            kill_tree "$ppid"
        else
            wait "$ppid" 2>/dev/null
        fi
    fi
    if [ "$frozen" = 1 ]; then
        echo "[$name] FROZEN: the JVM had not exited after ${FREEZE_S} s; stacks in $WORK/$name.stacks" >&2
        echo frozen
        return
    fi
    # the checks
    local why=""
    [ "$rc" = 0 ] || why="$why; java exited $rc"
    local crash
    crash=$(find . -maxdepth 1 -name 'hs_err_pid*.log' | tr '\n' ' ')
    if [ -n "$crash" ]; then
        why="$why; the JVM crashed: $crash"
        mkdir -p crashes && mv hs_err_pid*.log crashes/
    fi
    local errs unexpected
    errs=$(grep 'HPROF ERROR' "$name.err")
    unexpected=$(echo "$errs" | grep -vE "$(allowed "$cs")" | grep . | head -3)
    [ -z "$unexpected" ] || why="$why; unexpected: $unexpected"
    case $cs in
    stopread | trickle)
        [ "$(echo "$errs" | grep -cE "^HPROF ERROR: $DROP$")" = 1 ] || why="$why; not one HPROF ERROR dropping the front end"
        local ms=$(((tend - tdone) / 1000000))
        [ "$ms" -le $(((BOUND_S + STALL_MARGIN_S) * 1000)) ] || why="$why; the exit took $ms ms (bound ${BOUND_S} s)"
        echo "$ms" >"$name.exitms"
        ;;
    reset | vanish)
        echo "$errs" | grep -qE "^HPROF ERROR: ($NETLOST|$WRITEFAIL)$" || why="$why; no HPROF ERROR about the lost front end"
        ;;
    control | dumpcmd | garbage | gcflood)
        if ! "$HPROF" verify "$name.hprof" >"$name.verify" 2>&1; then
            why="$why; $name.hprof does not verify: $(grep -v '^$' "$name.verify" | tail -2 | tr '\n' ' ')"
        fi
        local k
        for k in "$name.hprof".[0-9]*; do
            [ -e "$k" ] || continue
            "$HPROF" verify "$k" >"$k.verify" 2>&1 || why="$why; $k does not verify"
        done
        case $cs in control | dumpcmd) grep -q 'ALLOC SITES' "$name.peer" || why="$why; hprof-ctl showed no ALLOC SITES" ;; esac
        [ "$cs" = dumpcmd ] && [ ! -e "$name.hprof.2" ] && why="$why; no second heap dump file (the exit dump after DUMP HEAP)"
        ;;
    esac
    if [ -n "$why" ]; then
        echo "[$name] BAD${why}" >&2
        echo "[$name] BAD${why}" >>"$name.why"
        echo bad
        return
    fi
    [ "${STRESS_KEEP:-0}" = 1 ] || rm -f "$name".* # passed: keep only the logs of failures
    echo ok
}

# ------------------------------------------------------------ the runs
PASSED=0
FAILED=0
for JDK in $FOUND; do
    V=$("$JDK/bin/java" -version 2>&1 | sed -nE '1s/.*version "([0-9]+).*/\1/p')
    for cs in $CASES; do
        ok=0 frozen=0 bad=0
        for n in $(seq 1 "$RUNS"); do
            r=$(one_run "$cs" "$n")
            case $r in
            ok) ok=$((ok + 1)) ;;
            frozen) frozen=$((frozen + 1)) ;;
            *) bad=$((bad + 1)) ;;
            esac
        done
        echo "stress: $cs jdk=$V runs=$RUNS ok=$ok frozen=$frozen bad=$bad"
        if [ "$ok" = "$RUNS" ]; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
    done
done
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
