#!/usr/bin/env bash
# test_ctl.sh: hprof-ctl, the front end of the agent's net= socket channel,
# driven by fake agents made with bash's /dev/tcp (no JVM).
#
# usage: bash test_ctl.sh HPROF_TOOL PROJECT_DIR WORKDIR HPROF_CTL   (run by ctest)
# Owns hprof-ctl's contract: the stream written byte for byte (and `hprof
# verify` clean), later heap dumps split into complete FILE.N files, the lines
# shown per record, the bytes of every command as hc_proto.h documents them,
# several agents at once, garbage and cut streams, text streams, stdin, the
# script directives, exit codes 0/1/2/3; where it listens (by default
# 127.0.0.1 and ::1 only, refused on the machine's other addresses; --any,
# --bind); and its files (0600; links and files planted by another user at
# FILE, FILE.2 and the port file's temporary name refused, their targets
# untouched; a stale FILE.2 of ours replaced). The file checks need root
# (CI runs as root) to act as nobody.
set -euo pipefail

if [ $# -lt 4 ]; then
    echo "usage: bash $0 HPROF_TOOL PROJECT_DIR WORKDIR HPROF_CTL" >&2
    exit 2
fi
HPROF=$1
WORK=$3
CTL=$4
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

CTL_PID=
fail() {
    echo "FAIL: $*" >&2
    for f in ctl.out ctl.err; do
        if [ -f "$f" ]; then
            echo "--- $f:" >&2
            head -c 20000 "$f" >&2
        fi
    done
    [ -n "$CTL_PID" ] && kill "$CTL_PID" 2>/dev/null
    exit 1
}
step() {
    echo "== $*"
}

# start_ctl ARGS...: hprof-ctl listening on a free loopback port, in the
# background (stdin from $CTL_STDIN, /dev/null by default; where it listens
# from $CTL_WHERE, --loopback by default, "" for no option), output in
# ctl.out and ctl.err; sets PORT.
start_ctl() {
    rm -f port ctl.out ctl.err
    # shellcheck disable=SC2086 # CTL_WHERE: empty (the default), or one option
    "$CTL" listen 0 ${CTL_WHERE---loopback} --port-file port "$@" <"${CTL_STDIN:-/dev/null}" >ctl.out 2>ctl.err &
    CTL_PID=$!
    for _ in $(seq 200); do
        [ -s port ] && break
        kill -0 "$CTL_PID" 2>/dev/null || fail "hprof-ctl $* exited at start"
        sleep 0.05
    done
    [ -s port ] || fail "hprof-ctl did not write its port file"
    PORT=$(cat port)
    grep -qx "hprof-ctl: listening on port $PORT" ctl.out || fail "no 'listening on port $PORT' line"
}

# finish_ctl RC: waits at most 10 s for hprof-ctl to exit with RC.
finish_ctl() {
    local want=$1 rc=0
    for _ in $(seq 200); do
        kill -0 "$CTL_PID" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$CTL_PID" 2>/dev/null && fail "hprof-ctl did not exit"
    wait "$CTL_PID" || rc=$?
    CTL_PID=
    [ "$rc" -eq "$want" ] || fail "hprof-ctl exited $rc, expected $want"
}

# wait_line TEXT: until ctl.out has a line containing TEXT (5 s at most).
wait_line() {
    for _ in $(seq 100); do
        grep -qF -- "$1" ctl.out && return 0
        sleep 0.05
    done
    fail "no line '$1' shown"
}

# has LINE-PREFIX: ctl.out has a line starting with it (fixed string).
has() {
    awk -v p="$1" 'index($0, p) == 1 { found = 1 } END { exit !found }' ctl.out ||
        fail "no line starting with '$1' in the output"
}

# read_cmds N OUT: reads N bytes of commands from fd 3 (5 s at most) into
# OUT as hex pairs, one space apart.
read_cmds() {
    { timeout 5 head -c "$1" <&3 || true; } | od -An -v -tx1 | tr -s ' \n' '  ' |
        sed 's/^ *//; s/ *$//' >"$2"
}

# expect_cmds OUT HEX...: the bytes read equal the concatenated HEX.
expect_cmds() {
    local out=$1
    shift
    local want
    want=$(echo "$*" | tr -d ' \n' | sed 's/../& /g; s/ *$//')
    [ "$(cat "$out")" = "$want" ] || fail "command bytes differ:
  got:  $(cat "$out")
  want: $want"
}
nbytes() {
    local s
    s=$(echo "$*" | tr -d ' ')
    echo $((${#s} / 2))
}

# rec_bytes FILE NAME: the bytes of records NAME in FILE (hprof info), 0 if none.
rec_bytes() {
    "$HPROF" info "$1" | awk -v n="$2" '
        { name = $0; sub(/ +[0-9]+ +[0-9]+$/, "", name) }
        name == n { print $NF; found = 1 }
        END { if (!found) print 0 }'
}
rec_count() {
    "$HPROF" info "$1" | awk -v n="$2" '
        { name = $0; sub(/ +[0-9]+ +[0-9]+$/, "", name) }
        name == n { print $(NF - 1); found = 1 }
        END { if (!found) print 0 }'
}
sub_count() { rec_count "$@"; }
byte_at() { # byte_at FILE OFFSET: two hex digits
    od -An -tx1 -j "$2" -N 1 "$1" | tr -d ' \n'
}
hex_u4() { printf '%08x' "$1"; }
# bin_u4 N: N as 4 big-endian bytes, raw.
bin_u4() {
    printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) \
        $(($1 >> 8 & 255)) $(($1 & 255)))"
}

# ------------------------------------------------------------------------------
step "usage errors exit 2, help exits 0"
usage() {
    local rc=0
    "$CTL" "$@" </dev/null >u.out 2>u.err || rc=$?
    [ "$rc" -eq 2 ] || fail "hprof-ctl $* exited $rc, expected 2"
    grep -q "^hprof-ctl: " u.err || fail "hprof-ctl $*: no error message: $(cat u.err)"
    grep -q "usage: hprof-ctl listen PORT" u.err || fail "hprof-ctl $*: no usage on stderr"
    echo "   exit 2: hprof-ctl $* -> $(head -1 u.err)"
}
usage
usage frobnicate
usage listen
usage listen abc
usage listen 65536
usage listen -1
usage listen 0 --bogus
usage listen 0 --out
usage listen 0 --agents 0
usage listen 0 --agents x
usage listen 0 --timeout 0
usage listen 0 --timeout abc
usage listen 0 frobnicate
usage listen 0 "sites cutoff 2"
usage listen 0 "sites sideways"
usage listen 0 "samples cutoff"
usage listen 0 "cpu on 0xzz"
usage listen 0 "cpu maybe"
usage listen 0 "alloc on 5"
usage listen 0 "depth 70000"
usage listen 0 "dump now"
usage listen 0 "@0 dump"
usage listen 0 "@1 quit"
usage listen 0 "sleep x"
usage listen 0 "wait"
printf 'dump\n# fine\n\nsites upside-down\n' >bad.script
usage listen 0 --script bad.script
grep -q "bad.script:4" u.err || fail "a bad script line is not located: $(cat u.err)"
"$CTL" help >help.out || fail "hprof-ctl help exited $?"
grep -q "wait-agents" help.out || fail "help does not list the directives"
"$CTL" listen --help >/dev/null || fail "hprof-ctl listen --help exited $?"

step "errors exit 1: an output directory that does not exist, a missing script"
rc=0
"$CTL" listen 0 --out "$WORK/no/such/dir/x.hprof" </dev/null >e.out 2>e.err || rc=$?
[ "$rc" -eq 1 ] || fail "an unwritable --out exited $rc, expected 1"
grep -q "^hprof-ctl: cannot write $WORK/no/such/dir/x.hprof: No such file or directory" e.err ||
    fail "no 'cannot write' message: $(cat e.err)"
rc=0
"$CTL" listen 0 --script no-such.script </dev/null >e.out 2>e.err || rc=$?
[ "$rc" -eq 1 ] || fail "a missing --script exited $rc, expected 1"

step "timeouts exit 3: no agent, a wait that is never satisfied"
start_ctl --timeout 0.5
finish_ctl 3
grep -q "no agent connected within 0.5 s" ctl.err || fail "no first-agent timeout message"

# ------------------------------------------------------------------------------
step "one binary agent: the stream byte for byte, its records shown, every command encoded"
"$HPROF" fixture f.hprof --segment-size 16K >/dev/null
nseg=$(rec_count f.hprof "HEAP DUMP SEGMENT")
[ "$nseg" -gt 1 ] || fail "the fixture has $nseg segment(s); several wanted"
# the thread object id of thread serial 2, as the reader sees it
obj2=$("$HPROF" print f.hprof | sed -n 's/^THREAD START (obj=\([0-9a-f]*\), id = 2,.*/\1/p')
[ -n "$obj2" ] || fail "no thread 2 in the fixture"
obj2=$(printf '%016x' "0x$obj2")
cat >cmds.script <<'EOF'
# the commands hprof-ctl sends once thread 2 is known
wait [1] START THREAD 2 "worker-1"
cpu off 2
@2 dump
summary
sites by-alloc gc
alloc off
clear-sites
clear-samples
traces
gc
  dump
samples cutoff 0.25
exit
sleep 10
alloc on
cpu on
eof
depth 3
EOF
# eof goes last: after it the agent reads no command, so hprof-ctl refuses
# the next one (depth 3) instead of sending it
want="03 00000001 00000006 0001 3f000000
      08 00000002 0000000a 0003 0000000000001234
      08 00000003 00000004 0007 0007
      08 00000004 0000000a 0004 $obj2
      04 00000005 00000000
      03 00000006 00000006 0006 00000000
      08 00000007 00000002 0002
      08 00000008 00000002 0006
      08 00000009 00000002 0005
      06 0000000a 00000000
      01 0000000b 00000000
      02 0000000c 00000000
      07 0000000d 00000006 0000 3e800000
      05 0000000e 00000000
      08 0000000f 00000002 0001
      08 00000010 0000000a 0003 0000000000000000
      ff"
start_ctl --out run.hprof --timeout 10 --script cmds.script \
    "sites incremental cutoff 0.5" "cpu on 0x1234" "depth 7"
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
cat f.hprof >&3
read_cmds "$(nbytes $want)" got.cmds
exec 3>&-
finish_ctl 0
expect_cmds got.cmds $want
echo "   $(nbytes $want) command bytes as documented"
cmp f.hprof run.hprof || fail "the file received differs from the stream sent"
"$HPROF" verify run.hprof >/dev/null || fail "hprof verify run.hprof failed"
[ ! -e run.hprof.2 ] || fail "a single heap dump made run.hprof.2"
grep -q "no agent 2 connected: 'dump' not sent" ctl.err || fail "'@2 dump' was not refused"
grep -qF "[1] -> sites incremental cutoff 0.5 (serial 1)" ctl.out || fail "no echo of a command"
grep -qF "[1] -> eof" ctl.out || fail "no echo of eof"
grep -qF "'depth 3' not sent to agent 1: it takes no more commands (it was sent EOF); nor will the next ones be" ctl.err ||
    fail "a command after eof was not refused: $(tail -3 ctl.err)"
has "[1] connected from 127.0.0.1:"
has "[1] format: binary JAVA PROFILE 1.0.2, id size 8"
has "[1] CONTROL SETTINGS: flags 0x3 (alloc traces on, cpu sampling on), depth 8"
has '[1] START THREAD 2 "worker-1" (object 0x'
has '[1] END THREAD 4 "short-lived"'
has "[1] UNLOAD CLASS 34 com.example.fixture.Gone"
# the heap dump's numbers, against the reader's
ninst=$(sub_count f.hprof "INSTANCE DUMP")
narr=$(($(sub_count f.hprof "OBJ ARRAY DUMP") + $(sub_count f.hprof "PRIM ARRAY DUMP")))
ncls=$(sub_count f.hprof "CLASS DUMP")
nroots=$("$HPROF" info f.hprof | awk '/^ROOT / { n += $(NF - 1) } END { print n + 0 }')
segbytes=$(rec_bytes f.hprof "HEAP DUMP SEGMENT")
has "[1] HEAP DUMP 1: $nseg segments, $segbytes bytes, $ninst instances, $narr arrays, $ncls classes, $nroots roots"
# sites, summary and samples, against `hprof print` (the original's text)
summary=$("$HPROF" print f.hprof | grep '^HEAP SUMMARY')
lb=$(echo "$summary" | sed 's/.*live bytes = \([0-9]*\).*/\1/')
lo=$(echo "$summary" | sed 's/.*live objs = \([0-9]*\).*/\1/')
ab=$(echo "$summary" | sed "s/.*alloc'ed bytes = \([0-9]*\).*/\1/")
ao=$(echo "$summary" | sed "s/.*alloc'ed objs = \([0-9]*\).*/\1/")
has "[1] HEAP SUMMARY: live $lb bytes in $lo instances, allocated $ab bytes in $ao instances"
nsites=$("$HPROF" sites f.hprof | grep -cE '^ +[0-9]+ +[0-9.]+% ')
top=$("$HPROF" sites f.hprof | grep -E '^ +1 ' | awk '{ print $NF " (trace " $(NF - 1) ") " $4 " live bytes in " $5 " instances" }')
has "[1] ALLOC SITES: $nsites sites (cutoff "
grep -qF "live $lb bytes in $lo instances, allocated $ab bytes in $ao instances; top: $top" ctl.out ||
    fail "ALLOC SITES line wrong, want '... top: $top'"
total=$("$HPROF" samples f.hprof | sed -n 's/^CPU SAMPLES BEGIN (total = \([0-9]*\)).*/\1/p')
ntraces=$("$HPROF" samples f.hprof | grep -cE '^ +[0-9]+ +[0-9.]+% ')
top3=$("$HPROF" samples f.hprof | grep -E '^ +[123] ' | awk '{ printf "%s%s trace %s %s", (NR > 1 ? ", " : ""), $4, $5, $6 }')
has "[1] CPU SAMPLES: total $total, $ntraces traces; top: $top3"
nrec=$("$HPROF" info f.hprof | awk '$1 == "total" { print $2; exit }')
has "[1] disconnected: $(stat -c %s f.hprof) bytes, $nrec records"
grep -q "ended inside" ctl.out && fail "a complete stream reported as cut"
echo "   $(grep -c '^\[1\]' ctl.out) lines shown, numbers as the reader's"

step "4-byte ids: CPU ON carries a 4-byte thread id"
"$HPROF" fixture f4.hprof --id-size 4 >/dev/null
start_ctl --out id4.hprof --timeout 10 "wait [1] format:" "cpu on 0x1234" "cpu off 0x123456789"
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
cat f4.hprof >&3
read_cmds 15 got.cmds
exec 3>&-
finish_ctl 0
expect_cmds got.cmds 08 00000001 00000006 0003 00001234
grep -q "cannot be encoded for agent 1" ctl.err || fail "a 36-bit id was not refused with 4-byte ids"
cmp f4.hprof id4.hprof || fail "id4.hprof differs from the stream"

# ------------------------------------------------------------------------------
step "heap dumps 2 and 3 go to complete files of their own"
"$HPROF" fixture a.hprof --objects 1000 --segment-size 4096 >/dev/null
"$HPROF" fixture b.hprof --objects 300 --segment-size 4096 >/dev/null
# the fixture's layout: header and names, the dump, then sites, summary, samples
split_fixture() { # split_fixture FILE: FILE.pre FILE.dump FILE.tail
    local f=$1 size dump tail pre
    size=$(stat -c %s "$f")
    dump=$(($(rec_bytes "$f" "HEAP DUMP SEGMENT") + $(rec_bytes "$f" "HEAP DUMP END") + \
        $(rec_bytes "$f" "HEAP DUMP")))
    tail=$(($(rec_bytes "$f" "ALLOC SITES") + $(rec_bytes "$f" "HEAP SUMMARY") + \
        $(rec_bytes "$f" "CPU SAMPLES")))
    pre=$((size - dump - tail))
    case "$(byte_at "$f" "$pre")" in 1c | 0c) ;; *) fail "$f: no heap dump at offset $pre" ;; esac
    [ "$(byte_at "$f" $((pre + dump)))" = 06 ] || fail "$f: no ALLOC SITES after the dump"
    head -c "$pre" "$f" >"$f.pre"
    tail -c +$((pre + 1)) "$f" | head -c "$dump" >"$f.dump"
    tail -c "$tail" "$f" >"$f.tail"
}
split_fixture a.hprof
split_fixture b.hprof
cat a.hprof b.hprof.dump b.hprof.tail a.hprof.dump >three.hprof
start_ctl --out dumps.hprof --timeout 10
cat three.hprof >"/dev/tcp/127.0.0.1/$PORT"
finish_ctl 0
cat a.hprof b.hprof.tail >want.main
cmp want.main dumps.hprof || fail "dumps.hprof is not the stream without dumps 2 and 3"
cat a.hprof.pre a.hprof.tail b.hprof.dump >want.2
cmp want.2 dumps.hprof.2 || fail "dumps.hprof.2 is not header + records so far + dump 2"
for f in dumps.hprof dumps.hprof.2 dumps.hprof.3; do
    [ -f "$f" ] || fail "$f was not written"
    "$HPROF" verify "$f" >/dev/null || fail "hprof verify $f failed"
done
[ ! -e dumps.hprof.4 ] || fail "three dumps made a fourth file"
"$HPROF" histo a.hprof >ha.txt
"$HPROF" histo b.hprof >hb.txt
"$HPROF" histo dumps.hprof >h1.txt
"$HPROF" histo dumps.hprof.2 >h2.txt
"$HPROF" histo dumps.hprof.3 >h3.txt
cmp -s ha.txt h1.txt || fail "dumps.hprof does not hold the first dump"
cmp -s hb.txt h2.txt || fail "dumps.hprof.2's histogram is not the second dump's"
cmp -s ha.txt h3.txt || fail "dumps.hprof.3's histogram is not the third dump's"
cmp -s ha.txt hb.txt && fail "the two fixtures have the same histogram: the test proves nothing"
has "[1] heap dump 2: dumps.hprof.2"
has "[1] heap dump 3: dumps.hprof.3"
has "[1] HEAP DUMP 1: $(rec_count a.hprof "HEAP DUMP SEGMENT") segments"
has "[1] HEAP DUMP 2: $(rec_count b.hprof "HEAP DUMP SEGMENT") segments, $(rec_bytes b.hprof "HEAP DUMP SEGMENT") bytes, $(sub_count b.hprof "INSTANCE DUMP") instances"
grep -qF "in dumps.hprof.2" ctl.out || fail "HEAP DUMP 2 does not name its file"
echo "   dumps.hprof, .2, .3: verify clean, histograms of dumps 1, 2, 3"

step "JAVA PROFILE 1.0.1: one HEAP DUMP record per dump, split the same way"
"$HPROF" fixture a1.hprof --version 1.0.1 >/dev/null
"$HPROF" fixture b1.hprof --version 1.0.1 --objects 200 >/dev/null
split_fixture a1.hprof
split_fixture b1.hprof
cat a1.hprof b1.hprof.dump >two1.hprof
start_ctl --out v101.hprof --timeout 10
cat two1.hprof >"/dev/tcp/127.0.0.1/$PORT"
finish_ctl 0
cmp a1.hprof v101.hprof || fail "v101.hprof is not the stream without dump 2"
"$HPROF" verify v101.hprof.2 >/dev/null || fail "hprof verify v101.hprof.2 failed"
"$HPROF" histo b1.hprof >hb1.txt
"$HPROF" histo v101.hprof.2 >h21.txt
cmp -s hb1.txt h21.txt || fail "v101.hprof.2's histogram is not the second dump's"
has "[1] HEAP DUMP 2: 1 HEAP DUMP record"

# ------------------------------------------------------------------------------
step "two agents at once: two files, commands to both, 8- and 4-byte ids"
"$HPROF" fixture fa.hprof --objects 3000 >/dev/null
"$HPROF" fixture fb.hprof --objects 500 --id-size 4 >/dev/null
cat >two.script <<'EOF'
wait-agents 2
wait [2] format: binary
cpu on 0x1234
@2 summary
EOF
start_ctl --out two.hprof --agents 2 --timeout 10 --script two.script
rm -f b.sent
(
    exec 3<>"/dev/tcp/127.0.0.1/$PORT"
    head -c 50000 fa.hprof >&3
    for _ in $(seq 100); do [ -f b.sent ] && break; sleep 0.05; done
    tail -c +50001 fa.hprof >&3
    read_cmds 19 a.cmds
    exec 3>&-
) &
apid=$!
wait_line "[1] connected"
(
    exec 3<>"/dev/tcp/127.0.0.1/$PORT"
    cat fb.hprof >&3
    touch b.sent
    read_cmds $((15 + 9)) b.cmds
    exec 3>&-
) &
bpid=$!
wait "$apid" || fail "fake agent 1 failed"
wait "$bpid" || fail "fake agent 2 failed"
finish_ctl 0
cmp fa.hprof two.hprof || fail "agent 1's file differs from its stream"
cmp fb.hprof two-2.hprof || fail "agent 2's file (two-2.hprof) differs from its stream"
expect_cmds a.cmds 08 00000001 0000000a 0003 0000000000001234
expect_cmds b.cmds 08 00000001 00000006 0003 00001234 04 00000002 00000000
has "[2] connected from 127.0.0.1:"
has "[2] format: binary JAVA PROFILE 1.0.2, id size 4"
has "[1] disconnected: $(stat -c %s fa.hprof) bytes"
has "[2] disconnected: $(stat -c %s fb.hprof) bytes"
"$HPROF" verify two-2.hprof >/dev/null || fail "hprof verify two-2.hprof failed"

# ------------------------------------------------------------------------------
step "garbage and cut streams do not disturb a good agent"
head -c 200000 /dev/urandom >random.bin
head -c 100000 f.hprof >cut.hprof
{ head -c 31 f.hprof; head -c 100000 /dev/urandom; } >hdrgarbage.bin
start_ctl --out run --agents 4 --timeout 10
rm -f others.done
(
    exec 3<>"/dev/tcp/127.0.0.1/$PORT"
    head -c 70000 f.hprof >&3
    for _ in $(seq 100); do [ -f others.done ] && break; sleep 0.05; done
    tail -c +70001 f.hprof >&3
    exec 3>&-
) &
gpid=$!
wait_line "[1] connected"
cat random.bin >"/dev/tcp/127.0.0.1/$PORT"
wait_line "[2] disconnected"
cat cut.hprof >"/dev/tcp/127.0.0.1/$PORT"
wait_line "[3] disconnected"
cat hdrgarbage.bin >"/dev/tcp/127.0.0.1/$PORT"
wait_line "[4] disconnected"
touch others.done
wait "$gpid" || fail "the good fake agent failed"
finish_ctl 0
cmp f.hprof run || fail "the good agent's file differs from its stream"
cmp random.bin run-2 || fail "the random stream was not written as is"
cmp cut.hprof run-3 || fail "the cut stream was not written as is"
cmp hdrgarbage.bin run-4 || fail "the header + garbage stream was not written as is"
has "[2] format: unknown"
has "[2] disconnected: 200000 bytes"
has "[3] HEAP DUMP 1: "
grep -qF "(incomplete: the stream ended inside it)" ctl.out || fail "the cut dump is not called incomplete"
has "[3] disconnected: 100000 bytes"
grep -qE '^\[3\] disconnected: .*, ended inside a record' ctl.out || fail "the cut stream is not reported"
grep -qE '^\[4\] disconnected: 100031 bytes, .*ended inside a record' ctl.out ||
    fail "the garbage after a header is not reported as cut"
has "[1] disconnected: $(stat -c %s f.hprof) bytes, $nrec records"
grep -qE '^\[1\] disconnected: .*ended inside' ctl.out && fail "the good agent was reported cut"
"$HPROF" verify run >/dev/null || fail "hprof verify run failed"

# ------------------------------------------------------------------------------
step "text streams (format=a): shown by section, THREAD START ids for cpu on SERIAL"
"$HPROF" print f.hprof >f.txt
start_ctl --out text.txt --timeout 10 'wait [1] THREAD START (obj=' "cpu on 2"
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
cat f.txt >&3
read_cmds 19 got.cmds
exec 3>&-
finish_ctl 0
cmp f.txt text.txt || fail "the text stream was not written as is"
expect_cmds got.cmds 08 00000001 0000000a 0003 "$obj2"
has "[1] format: text"
has "[1] JAVA PROFILE 1.0.2, created"
has "[1] THREAD START (obj="
has "[1] THREAD END (id = 4)"
has "[1] HEAP DUMP BEGIN"
has "[1] SITES BEGIN"
has "[1] HEAP SUMMARY"
has "[1] CPU SAMPLES BEGIN (total = $total)"
has "[1] disconnected: $(stat -c %s f.txt) bytes, $(wc -l <f.txt) lines"
grep -qE '^\[1\] +[0-9]' ctl.out && fail "table rows of the text stream were shown"
# a text dump the agent could not finish says so, and so does hprof-ctl
sed -n '1,/^HEAP DUMP BEGIN/p' f.txt >cut.txt
printf 'HEAP DUMP INCOMPLETE: writing the temporary file in /tmp failed: No space left on device; this section holds only the 0 objects (0 bytes) written before that\nHEAP DUMP END\n' >>cut.txt
start_ctl --out cut.txt.out --timeout 10
cat cut.txt >"/dev/tcp/127.0.0.1/$PORT"
finish_ctl 0
cmp cut.txt cut.txt.out || fail "the cut text stream was not written as is"
has "[1] HEAP DUMP INCOMPLETE: writing the temporary file in /tmp failed: No space left on device;"

step "in-band messages; a thread called 'HPROF ...' is no message; serials without an object id"
# hand-made records, 8-byte ids: utf8 ID TEXT, start_thread SERIAL OBJ NAME-ID
utf8() {
    printf '\001'
    bin_u4 0
    bin_u4 $((8 + ${#2}))
    bin_u4 0
    bin_u4 "$1"
    printf '%s' "$2"
}
start_thread() {
    printf '\012'
    bin_u4 0
    bin_u4 40
    bin_u4 "$1" # serial
    bin_u4 0
    bin_u4 "$2" # object id
    bin_u4 0    # trace
    for id in "$3" "$3" 0; do # name, group, parent group
        bin_u4 0
        bin_u4 "$id"
    done
}
msg="HPROF ERROR: command 7 (CONTROL ?): unknown CONTROL sub-command 0x0009"
msg2="HPROF: allocation tracking started by command 1"
{
    printf 'JAVA PROFILE 1.0.2\000'
    bin_u4 8
    bin_u4 0
    bin_u4 0
    utf8 43 "HPROF listener thread"
    start_thread 200007 0 43
    utf8 42 "$msg"
    utf8 44 "$msg2"
} >msg.hprof
start_ctl --out msg.hprof.out --timeout 10 "wait [1] START THREAD 200007" "cpu on 200007" "cpu off 9"
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
cat msg.hprof >&3
read_cmds $((19 + 19)) got.cmds
exec 3>&-
finish_ctl 0
cmp msg.hprof msg.hprof.out || fail "the message stream was not written as is"
has '[1] START THREAD 200007 "HPROF listener thread" (object 0x0'
has "[1] message: $msg"
has "[1] message: $msg2"
[ "$(grep -c '^\[1\] message: ' ctl.out)" -eq 2 ] || fail "a thread name was shown as a message"
expect_cmds got.cmds 08 00000001 0000000a 0003 0000000000030d47 08 00000002 0000000a 0004 0000000000000009
grep -qF "[1] -> cpu on 200007 (serial 1, thread serial sent as is" ctl.out ||
    fail "the echo does not say the serial went as is"

# ------------------------------------------------------------------------------
step "stdin: commands after the script, errors not fatal, quit"
rm -f ctl.in
mkfifo ctl.in
exec 4<>ctl.in
CTL_STDIN=ctl.in start_ctl --out stdin.hprof --timeout 10 "wait [1] format"
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
cat f.hprof >&3
printf 'dump\nfrobnicate\n@1 sites cutoff 0.01\n\n# a comment\n' >&4
read_cmds $((9 + 15)) got.cmds
expect_cmds got.cmds 02 00000001 00000000 03 00000002 00000006 0000 3c23d70a
grep -q "unknown command 'frobnicate'" ctl.err || fail "a bad stdin command was not reported"
echo quit >&4
finish_ctl 0
exec 3>&-
exec 4>&-
has "[1] disconnected: $(stat -c %s f.hprof) bytes, $nrec records, closed by quit"
cmp f.hprof stdin.hprof || fail "stdin.hprof differs from the stream"

step "wait directives that fail exit 3"
start_ctl --out w.hprof --timeout 0.5 "wait NEVER SHOWN"
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
cat f.hprof >&3
finish_ctl 3
exec 3>&-
grep -q "wait 'NEVER SHOWN': not seen within 0.5 s" ctl.err || fail "no wait timeout message"
start_ctl --out w.hprof --timeout 10 "wait NEVER SHOWN"
cat f.hprof >"/dev/tcp/127.0.0.1/$PORT"
finish_ctl 3
grep -q "not seen before every agent disconnected" ctl.err || fail "no early wait failure message"
start_ctl --out w.hprof --timeout 0.5 "wait-agents 2"
cat f.hprof >"/dev/tcp/127.0.0.1/$PORT"
finish_ctl 3
grep -q "wait-agents 2: only 1 agent(s) connected" ctl.err || fail "no wait-agents timeout message"

step "a stream cut inside a record header is still written byte for byte"
head -c 36 f.hprof >hdrcut.bin # the 31-byte file header, then 5 of a record header's 9
start_ctl --out hdrcut.hprof --timeout 10
cat hdrcut.bin >"/dev/tcp/127.0.0.1/$PORT"
finish_ctl 0
cmp hdrcut.bin hdrcut.hprof || fail "the bytes of a cut record header were lost"
grep -qE '^\[1\] disconnected: 36 bytes, 0 records, ended inside a record' ctl.out ||
    fail "the cut header is not reported: $(tail -2 ctl.out)"

step "an agent that never reads its commands stalls nobody"
# 2 000 000 commands (18 MB) fill the socket buffers of an agent that does
# not read them: hprof-ctl gives up on that agent's command channel instead
# of blocking in send, so a second agent is still accepted and quit works
mkfifo stall.in
exec 5<>stall.in # opened first: hprof-ctl's open for reading then returns
CTL_STDIN=stall.in start_ctl --out stall.hprof --agents 2
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
cat f.hprof >&3
wait_line "[1] connected from"
awk 'BEGIN { for (i = 0; i < 2000000; i++) print "gc" }' >&5
cat f.hprof >"/dev/tcp/127.0.0.1/$PORT" # agent 2 connects meanwhile
wait_line "[2] connected from"
echo quit >&5
finish_ctl 0
exec 5>&- 3>&-
grep -q "cannot send 'gc' to agent 1: it is not reading its commands; no more commands go to it" ctl.err ||
    fail "no message about the agent that does not read: $(tail -3 ctl.err)"
cmp f.hprof stall.hprof || fail "the stalled agent's file differs from its stream"
[ "$(grep -c 'not sent to agent 1' ctl.err)" = 1 ] || fail "the refusal is not said once: $(grep -c 'not sent to agent 1' ctl.err) times"

# ------------------------------------------------------------------------------
# can_connect ADDR: a TCP connection to ADDR:$PORT is accepted (5 s at most)
can_connect() {
    timeout 5 bash -c "exec 3<>/dev/tcp/$1/$PORT" 2>/dev/null
}
# the machine's other addresses (link-local IPv6 left out: it needs a scope)
ADDRS=$({ hostname -I 2>/dev/null || ip -o addr show 2>/dev/null | awk '{ sub(/\/.*/, "", $4); print $4 }'; } |
    tr ' ' '\n' | grep -v '^$' || true)
EXT4=$(echo "$ADDRS" | grep -E '^[0-9]+\.' | grep -v '^127\.' | head -1 || true)
EXT6=$(echo "$ADDRS" | grep ':' | grep -vi '^fe80' | grep -vx '::1' | head -1 || true)
HAVE6=0
grep -qE '^0{31}1 .* lo$' /proc/net/if_inet6 2>/dev/null && HAVE6=1

step "the default listener: loopback only, 127.0.0.1 and ::1"
CTL_WHERE="" start_ctl --out lo.hprof --agents 2 --timeout 10
grep -qF "hprof-ctl: on the loopback addresses only" ctl.out || fail "no line saying it listens on loopback only"
for ext in $EXT4 $EXT6; do
    if can_connect "$ext"; then fail "the default listener accepted a connection on $ext"; fi
    echo "   $ext: refused"
done
[ -n "$EXT4$EXT6" ] || echo "   (this machine has no non-loopback address: not tested)"
cat f.hprof >"/dev/tcp/127.0.0.1/$PORT"
wait_line "[1] disconnected"
if [ $HAVE6 = 1 ]; then
    cat f.hprof >"/dev/tcp/::1/$PORT" || fail "the default listener refused ::1"
    finish_ctl 0
    has "[2] connected from [::1]:"
    cmp f.hprof lo-2.hprof || fail "the agent on ::1: lo-2.hprof differs from its stream"
    echo "   127.0.0.1 and ::1: accepted"
else
    echo "   (this machine has no IPv6 loopback: ::1 not tested)"
    cat f.hprof >"/dev/tcp/127.0.0.1/$PORT"
    finish_ctl 0
fi
grep -q "warning: listening on" ctl.err && fail "a warning about exposure on loopback"
cmp f.hprof lo.hprof || fail "lo.hprof differs from its stream"

step "--any listens on every address, and says what that exposes"
exts="$EXT4 $EXT6"
[ -n "$EXT4$EXT6" ] || exts=127.0.0.1
CTL_WHERE=--any start_ctl --out any.hprof --agents "$(echo $exts | wc -w)" --timeout 10
grep -q "warning: listening on every address of this machine: anyone who can reach port $PORT can connect as an agent .*no authentication" ctl.err ||
    fail "--any: no warning about what it exposes: $(cat ctl.err)"
k=0
for ext in $exts; do
    k=$((k + 1))
    cat f.hprof >"/dev/tcp/$ext/$PORT" || fail "--any: no connection on $ext"
    wait_line "[$k] disconnected"
    echo "   $ext: accepted"
done
finish_ctl 0
cmp f.hprof any.hprof || fail "--any: any.hprof differs from its stream"

step "--bind ADDR: that address only; bad or conflicting choices are usage errors"
CTL_WHERE="--bind 127.0.0.1" start_ctl --out bind.hprof --agents 1 --timeout 10
if [ $HAVE6 = 1 ] && can_connect ::1; then fail "--bind 127.0.0.1 accepted ::1"; fi
for ext in $EXT4 $EXT6; do
    if can_connect "$ext"; then fail "--bind 127.0.0.1 accepted a connection on $ext"; fi
done
cat f.hprof >"/dev/tcp/127.0.0.1/$PORT"
finish_ctl 0
cmp f.hprof bind.hprof || fail "--bind: bind.hprof differs from its stream"
grep -q "warning: listening on" ctl.err && fail "--bind 127.0.0.1 (loopback) warned: $(cat ctl.err)"
if [ -n "$EXT4" ]; then
    CTL_WHERE="--bind $EXT4" start_ctl --out bind4.hprof --agents 1 --timeout 10
    grep -qF "warning: listening on $EXT4: anyone who can reach port $PORT can connect as an agent" ctl.err ||
        fail "--bind $EXT4: no warning about what it exposes: $(cat ctl.err)"
    if can_connect 127.0.0.1; then fail "--bind $EXT4 accepted 127.0.0.1"; fi
    cat f.hprof >"/dev/tcp/$EXT4/$PORT" || fail "--bind $EXT4: no connection there"
    finish_ctl 0
    cmp f.hprof bind4.hprof || fail "--bind $EXT4: bind4.hprof differs from its stream"
    echo "   --bind $EXT4: accepted there only, with a warning"
fi
usage listen 0 --any --loopback
usage listen 0 --bind 127.0.0.1 --any
usage listen 0 --bind nowhere
usage listen 0 --bind

# ------------------------------------------------------------------------------
# Files, against another user (nobody) sharing a sticky directory: root
# ignores modes, so what proves a refusal is the victim's content.
[ "$(id -u)" = 0 ] || fail "the file checks need root (to act as nobody); CI runs as root"
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
TOP=$(mktemp -d)
trap 'rm -rf "$TOP"' EXIT
chmod 755 "$TOP"
S=$TOP/shared
mkdir -m 1777 "$S"
mkdir -m 700 "$TOP/root"
VICTIM=$TOP/root/secret
victim() {
    echo "root's secret" >"$VICTIM"
    chmod 600 "$VICTIM"
}
check_victim() {
    [ "$(cat "$VICTIM")" = "root's secret" ] || fail "$1: root's file was overwritten: $(head -c 60 "$VICTIM" | tr -c '[:print:]' .)"
    [ "$(stat -c %a "$VICTIM")" = 600 ] || fail "$1: root's file changed mode: $(stat -c %a "$VICTIM")"
}

step "files are created 0600: FILE, FILE.2, FILE.3, the port file; a stale FILE.2 of ours is replaced"
umask 022
printf 'an old heap dump 2\n' >modes.hprof.2
chmod 644 modes.hprof.2
start_ctl --out modes.hprof --timeout 10
cat three.hprof >"/dev/tcp/127.0.0.1/$PORT"
finish_ctl 0
for f in modes.hprof modes.hprof.2 modes.hprof.3 port; do
    [ "$(stat -c %a $f)" = 600 ] || fail "$f: mode $(stat -c %a $f), expected 600"
done
cmp want.2 modes.hprof.2 || fail "modes.hprof.2 is not heap dump 2 (the stale file was not replaced)"
echo "   modes.hprof, .2, .3, port: 0600"

step "a link nobody planted at FILE: refused, exit 1, its target untouched"
victim
$AS_NOBODY ln -s "$VICTIM" "$S/ctl.hprof"
start_ctl --out "$S/ctl.hprof" --timeout 10
cat f.hprof >"/dev/tcp/127.0.0.1/$PORT"
finish_ctl 1
grep -qF "hprof-ctl: cannot write $S/ctl.hprof: it is a symbolic link; refusing to write through it" ctl.err ||
    fail "no message about the link at $S/ctl.hprof: $(cat ctl.err)"
check_victim "a link at FILE"
[ -L "$S/ctl.hprof" ] || fail "the planted link is gone"

step "a link nobody planted at FILE.2: heap dump 2 refused, its target untouched, dump 3 written"
victim
$AS_NOBODY ln -s "$VICTIM" "$S/d.hprof.2"
start_ctl --out "$S/d.hprof" --timeout 10
cat three.hprof >"/dev/tcp/127.0.0.1/$PORT"
finish_ctl 1
grep -qF "hprof-ctl: cannot write $S/d.hprof.2: it is a symbolic link; refusing to write through it" ctl.err ||
    fail "no message about the link at $S/d.hprof.2: $(cat ctl.err)"
check_victim "a link at FILE.2"
cmp want.main "$S/d.hprof" || fail "$S/d.hprof is not the stream without dumps 2 and 3"
"$HPROF" verify "$S/d.hprof.3" >/dev/null || fail "heap dump 3 was not written"

step "a file of nobody's at FILE: refused, unchanged"
$AS_NOBODY sh -c "echo nobody\\'s >'$S/theirs.hprof' && chmod 666 '$S/theirs.hprof'"
start_ctl --out "$S/theirs.hprof" --timeout 10
cat f.hprof >"/dev/tcp/127.0.0.1/$PORT"
finish_ctl 1
grep -qF "hprof-ctl: cannot write $S/theirs.hprof: it is owned by another user" ctl.err ||
    fail "no message about nobody's file: $(cat ctl.err)"
[ "$(cat "$S/theirs.hprof")" = "nobody's" ] || fail "nobody's file was overwritten"

step "a link nobody planted at the port file's temporary name: not written through"
victim
$AS_NOBODY ln -s "$VICTIM" "$S/port.tmp"
rc=0
"$CTL" listen 0 --port-file "$S/port" --timeout 0.2 </dev/null >pf.out 2>pf.err || rc=$?
[ "$rc" = 1 ] || fail "a link at the port file's temporary name: exit $rc, expected 1"
grep -qF "cannot write $S/port.tmp: it is a symbolic link" pf.err || fail "no message about $S/port.tmp: $(cat pf.err)"
check_victim "a link at the port file's temporary name"

echo "ALL OK"
