#!/usr/bin/env bash
# test_agent_files.sh: the files the agent writes, on a real JVM (the first
# JDK found; -Xcheck:jni), against another user (nobody) who shares a sticky
# world-writable directory with the JVM's user (root, as CI runs):
#  - a symbolic link nobody planted at the output path (pointing at a
#    root-owned 0600 file): the JVM does not start (exit 1), an HPROF ERROR
#    names the path and says it is a symbolic link, and the file it points
#    to keeps its content and mode (text and binary);
#  - force=n with a dangling link planted at the output path: the link's
#    target is not created, the output goes to a new name with the pid,
#    a regular file of root's, 0600;
#  - a regular file of nobody's (0666) or a second hard link to a root file
#    at the output path: refused, unchanged (root ignores modes: only the
#    content proves it was not written);
#  - modes: the text output, the binary output and heap dump 2's file
#    (<output>.2) are created 0600 under umask 022; a link planted at
#    <output>.2 is refused (HPROF ERROR naming it, exit 0), its target kept;
#    a binary output that is a FIFO or /dev/null gets heap dump 2 too (no
#    <output>.2 beside it: /dev/null.2 was once made by root);
#  - heap dump temporary files (format=a) live in $TMPDIR under a name of
#    their own, not beside the output: nobody can dump with file=/dev/null,
#    nothing is left in $TMPDIR, and a $TMPDIR that does not exist gives an
#    HPROF ERROR naming it and TMPDIR (the JVM still exits 0);
#  - format=a with $TMPDIR on a full file system (a 1 MiB tmpfs mounted in a
#    mount namespace of the JVM's own: needs root, as CI has; without it the
#    test fails, it does not skip): exit 0, an HPROF ERROR, and the text
#    section says HEAP DUMP INCOMPLETE with the reason (No space left on
#    device) just before its HEAP DUMP END.
#
# usage: bash test_agent_files.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

[ "$(id -u)" = 0 ] || fail "this test needs root (to act as another user and to mount a tmpfs); CI runs as root"
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
$AS_NOBODY true || fail "cannot run commands as nobody with setpriv"

compile SitesDemo HeapDemo
JAVA=$FIRST_JDK/bin/java
JCMD=$FIRST_JDK/bin/jcmd
umask 022

# a sticky world-writable directory shared with nobody, plus what nobody
# needs to run a JVM of its own (the agent, the classes), outside $WORK
# (whose parents nobody may not be able to enter)
TOP=$(mktemp -d)
trap 'rm -rf "$TOP"' EXIT
chmod 755 "$TOP"
S=$TOP/shared
mkdir -m 1777 "$S"
mkdir -m 700 "$TOP/root"         # root's own files, out of nobody's reach
mkdir -m 755 "$TOP/pub"
cp "$AGENT" "$TOP/pub/libhprof.so"
cp -r classes "$TOP/pub/classes"
chmod -R a+rX "$TOP/pub"
VICTIM=$TOP/root/secret
victim() { # victim: (re)makes root's 0600 file
    echo "root's secret" >"$VICTIM"
    chmod 600 "$VICTIM"
}
check_victim() { # check_victim WHAT
    expect_eq "$1: the content of root's file" "root's secret" "$(cat "$VICTIM")"
    expect_eq "$1: the mode of root's file" 600 "$(stat -c %a "$VICTIM")"
}
A="-agentpath:$AGENT"

# ---------------------------------------------------------------- symlinks
for fmt in a b; do
    step "format=$fmt: a link nobody planted at the output path is refused"
    victim
    rm -f "$S/out"
    $AS_NOBODY ln -s "$VICTIM" "$S/out"
    jrun link$fmt 1 allow "$A=heap=sites,format=$fmt,file=$S/out" -cp classes SitesDemo 1 10 1 1
    grep "HPROF ERROR" link$fmt.err | grep -F "$S/out" | grep -q "symbolic link" ||
        fail "no HPROF ERROR naming $S/out as a symbolic link: $(head -3 link$fmt.err)"
    if grep -q '^ready' link$fmt.out; then fail "the program ran with its output refused"; fi
    check_victim "format=$fmt, a link at the output"
    [ -L "$S/out" ] || fail "the planted link is gone"
    echo "   ok: $(grep -m1 'HPROF ERROR' link$fmt.err)"
done

step "force=n: a dangling link planted at the output path: its target is not created"
rm -f "$S/n.txt" "$TOP/root/made-by-link"
$AS_NOBODY ln -s "$TOP/root/made-by-link" "$S/n.txt"
jrun forcen 0 no "$A=heap=sites,force=n,file=$S/n.txt" -cp classes SitesDemo 1 10 1 1
[ ! -e "$TOP/root/made-by-link" ] || fail "force=n created the target of a dangling link: $(ls -l "$TOP/root")"
[ -L "$S/n.txt" ] || fail "the planted link is gone"
new=$(find "$S" -maxdepth 1 -type f -name 'n.*.txt' -user root)
[ "$(echo "$new" | grep -c .)" = 1 ] || fail "force=n: expected one new output n.PID.txt, found: $(ls -l "$S")"
expect_eq "force=n: the new output's mode" 600 "$(stat -c %a "$new")"
grep -q '^SITES END$' "$new" || fail "force=n: $new has no SITES section"
echo "   ok: wrote $(basename "$new"), 0600; the link's target does not exist"

step "a file of nobody's, or a second hard link to root's file, at the output path: refused"
rm -f "$S/theirs.txt"
$AS_NOBODY sh -c "echo nobody\\'s >'$S/theirs.txt' && chmod 666 '$S/theirs.txt'"
jrun theirs 1 allow "$A=heap=sites,file=$S/theirs.txt" -cp classes SitesDemo 1 10 1 1
grep "HPROF ERROR" theirs.err | grep -F "$S/theirs.txt" | grep -q "owned by another user" ||
    fail "no HPROF ERROR about another user's file: $(head -3 theirs.err)"
expect_eq "nobody's file" "nobody's" "$(cat "$S/theirs.txt")"
victim
ln "$VICTIM" "$S/hard.txt" # (protected_hardlinks stops nobody; a link root made stands in)
jrun hard 1 allow "$A=heap=sites,file=$S/hard.txt" -cp classes SitesDemo 1 10 1 1
grep "HPROF ERROR" hard.err | grep -F "$S/hard.txt" | grep -q "hard links" ||
    fail "no HPROF ERROR about a hard link: $(head -3 hard.err)"
check_victim "a hard link at the output"
rm -f "$S/hard.txt"
echo "   ok: $(grep -m1 'HPROF ERROR' theirs.err | cut -c1-120)"

# ---------------------------------------------------------------- modes
# two_dumps NAME OPTS: SitesDemo waiting on stdin, a jcmd dump, then the
# exit dump (binary: the second goes to <output>.2)
two_dumps() {
    local name=$1 opts=$2
    rm -f fifo.$name
    mkfifo fifo.$name
    # -Xshare:off: heap=dump is HotSpot's dump, which with CDS names archived
    # objects it does not hold (verify warns of them; docs/heap-dump.md)
    timeout 120 "$JAVA" -Xcheck:jni -Xshare:off "$A=$opts" -cp classes SitesDemo 1 10 1 1 wait \
        <fifo.$name >$name.out 2>$name.err &
    local pid=$! jpid
    exec 7>fifo.$name
    for _ in $(seq 1 200); do
        grep -q '^ready' $name.out 2>/dev/null && break
        sleep 0.1
    done
    grep -q '^ready' $name.out || fail "$name: SitesDemo never got ready: $(head -5 $name.err)"
    jpid=$(pgrep -P $pid | head -1)
    "$JCMD" "$jpid" JVMTI.data_dump >$name.jcmd || fail "$name: jcmd JVMTI.data_dump: $(cat $name.jcmd)"
    for _ in $(seq 1 300); do
        grep -q 'done\.' $name.err 2>/dev/null && break
        sleep 0.1
    done
    echo quit >&7
    exec 7>&-
    local rc=0
    wait $pid || rc=$?
    rm -f fifo.$name
    expect_eq "$name: exit status" 0 $rc
}

step "outputs are created 0600: text, binary, heap dump 2's file"
jrun mode 0 no "$A=heap=sites,file=$WORK/mode.txt" -cp classes SitesDemo 1 10 1 1
expect_eq "mode.txt" 600 "$(stat -c %a mode.txt)"
two_dumps modeb "heap=dump,format=b,file=$WORK/mode.hprof"
! grep -q "HPROF ERROR" modeb.err || fail "modeb: $(grep "HPROF ERROR" modeb.err | head -2)"
for f in mode.hprof mode.hprof.2; do
    [ -f $f ] || fail "no $f"
    expect_eq "$f" 600 "$(stat -c %a $f)"
    "$HPROF" verify $f >/dev/null || fail "hprof verify $f failed"
done
echo "   ok: mode.txt, mode.hprof, mode.hprof.2: 0600"

step "a link planted at <output>.2: heap dump 2 is refused, the program goes on"
victim
rm -f "$S/d.hprof" "$S/d.hprof.2"
$AS_NOBODY ln -s "$VICTIM" "$S/d.hprof.2"
two_dumps dump2 "heap=dump,format=b,file=$S/d.hprof"
grep "HPROF ERROR" dump2.err | grep -F "$S/d.hprof.2" | grep -q "symbolic link" ||
    fail "no HPROF ERROR naming $S/d.hprof.2 as a symbolic link: $(head -3 dump2.err)"
check_victim "a link at <output>.2"
"$HPROF" verify "$S/d.hprof" >/dev/null || fail "the first dump ($S/d.hprof) does not verify"
echo "   ok: $(grep -m1 'HPROF ERROR' dump2.err | cut -c1-120)"

step "format=b into a FIFO or /dev/null: heap dump 2 follows the first down it, no <output>.2"
rm -f fifo.hprof fifo.hprof.2 got.hprof
mkfifo fifo.hprof
cat fifo.hprof >got.hprof &
catpid=$!
two_dumps fifo "heap=dump,format=b,file=$WORK/fifo.hprof"
wait $catpid || fail "the FIFO's reader failed"
! grep -q "HPROF ERROR" fifo.err || fail "fifo: $(grep "HPROF ERROR" fifo.err | head -2)"
[ ! -e fifo.hprof.2 ] || fail "heap dump 2 went to fifo.hprof.2, beside the FIFO"
expect_eq "heap dumps read from the FIFO" 2 "$("$HPROF" info got.hprof | awk '$1 == "HEAP" && $3 == "END" { print $4 }')"
# (two dumps in one stream, as net= sends them: ids repeat from one to the
# next, so `hprof verify` of the whole stream is not clean by design)
"$HPROF" info got.hprof >/dev/null || fail "hprof info cannot read what came out of the FIFO"
existed=0
[ -e /dev/null.2 ] && existed=1
two_dumps devnull2 "heap=dump,format=b,file=/dev/null"
if [ $existed = 0 ] && [ -e /dev/null.2 ]; then
    rm -f /dev/null.2
    fail "heap dump 2 of file=/dev/null created /dev/null.2"
fi
! grep -q "HPROF ERROR" devnull2.err || fail "devnull2: $(grep "HPROF ERROR" devnull2.err | head -2)"
echo "   ok: both dumps came out of the FIFO; no fifo.hprof.2, no /dev/null.2"

# ---------------------------------------------------------------- temporary files
step "temporary files in TMPDIR: nobody dumps to /dev/null; nothing is left behind"
mkdir -m 1777 "$TOP/tmp"
rc=0
(cd "$S" && TMPDIR=$TOP/tmp timeout 120 $AS_NOBODY "$JAVA" -XX:-UsePerfData \
    "-agentpath:$TOP/pub/libhprof.so=heap=dump,file=/dev/null" -cp "$TOP/pub/classes" SitesDemo 1 10 1 1 \
    >"$WORK/devnull.out" 2>"$WORK/devnull.err") || rc=$?
expect_eq "nobody, heap=dump,file=/dev/null: exit status" 0 $rc
! grep -q "HPROF ERROR" devnull.err || fail "nobody, file=/dev/null: $(grep "HPROF ERROR" devnull.err | head -2)"
grep -q '^ready' devnull.out || fail "nobody, file=/dev/null: the program did not run"
expect_eq "files left in TMPDIR" "" "$(ls -A "$TOP/tmp")"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
echo "   ok: exit 0, no HPROF ERROR, $TOP/tmp empty"

step "a TMPDIR that does not exist: an HPROF ERROR naming it, the program goes on"
TMPDIR=$TOP/no-such-dir jrun notmp 0 allow "$A=heap=dump,file=$WORK/notmp.txt" -cp classes SitesDemo 1 10 1 1
grep "HPROF ERROR" notmp.err | grep -F "$TOP/no-such-dir" | grep -F "No such file or directory" | grep -q TMPDIR ||
    fail "no HPROF ERROR naming the temporary directory and TMPDIR: $(head -3 notmp.err)"
grep -qx -- "--------" notmp.txt || fail "notmp.txt lost its header"
echo "   ok: $(grep -m1 'HPROF ERROR' notmp.err | cut -c1-140)"

step "format=a, TMPDIR on a full file system: HotSpot's dump fails (heap=dump), the walk's section says HEAP DUMP INCOMPLETE (heap=all)"
mkdir -p "$TOP/small"
# the JVM in a mount namespace of its own, TMPDIR on a 1 MiB tmpfs there
cat >tmpfs-java <<EOF
#!/bin/sh
unshare -m sh -c 'mount -t tmpfs -o size=1m hprof-test "$TOP/small" || { echo "tmpfs-java: cannot mount a tmpfs (root and mount namespaces needed)" >&2; exit 97; }; export TMPDIR="$TOP/small"; exec "\$0" "\$@"' "$JAVA" "\$@"
EOF
chmod +x tmpfs-java
# heap=dump: HotSpot's dumper writes into TMPDIR, fails, and leaves nothing;
# the text says so in-band
JAVA=$WORK/tmpfs-java jrun hfull 0 allow "$A=heap=dump,file=$WORK/hfull.txt" -cp classes HeapDemo 2000 70 1 </dev/null
# (JDK 17: dumpHeap0's IOException; JDK 21+, GC.heap_dump through the
# attach listener: "Dump file is incomplete: No space left on device")
grep -qE "HPROF ERROR: heap dump: HotSpot's dumper \((HotSpotDiagnosticMXBean.dumpHeap|GC.heap_dump)\) made no dump: (java.io.IOException|Dump file is incomplete): No space left on device" hfull.err ||
    fail "no HPROF ERROR about HotSpot's dump in the full temporary directory: $(head -3 hfull.err)"
expect_eq "hfull.txt: HEAP DUMP BEGIN lines" 0 "$(grep -c '^HEAP DUMP BEGIN (' hfull.txt || true)"
grep -qE "^HPROF ERROR: heap dump 1: HotSpot's dumper made no dump: (java.io.IOException|Dump file is incomplete): No space left on device" hfull.txt ||
    fail "hfull.txt: no in-band HPROF ERROR"
# heap=all: the walk's temporary file
JAVA=$WORK/tmpfs-java jrun full 0 allow "$A=heap=all,file=$WORK/full.txt" -cp classes HeapDemo 2000 70 1 </dev/null
grep -q "HPROF ERROR: heap dump: writing its temporary file in $TOP/small failed: .*No space left on device; the dump is incomplete" full.err ||
    fail "no HPROF ERROR about the full temporary directory: $(head -3 full.err)"
expect_eq "full.txt: HEAP DUMP BEGIN lines" 1 "$(grep -c '^HEAP DUMP BEGIN (' full.txt || true)"
inc=$(grep -B1 -m1 -x 'HEAP DUMP END' full.txt | head -1)
case "$inc" in
"HEAP DUMP INCOMPLETE: writing the temporary file in $TOP/small failed: No space left on device; this section holds only the "*" objects ("*" bytes) written before that") ;;
*) fail "full.txt: the line before HEAP DUMP END is not HEAP DUMP INCOMPLETE with the reason: [$inc]" ;;
esac
# the counts it gives are those of the section
n=$(sed -n 's/^HEAP DUMP BEGIN (\([0-9]*\) objects, \([0-9]*\) bytes).*/\1 \2/p' full.txt)
expect_eq "the counts of HEAP DUMP INCOMPLETE and BEGIN" "$n" "$(echo "$inc" | sed 's/.*holds only the \([0-9]*\) objects (\([0-9]*\) bytes).*/\1 \2/')"
echo "   ok: $inc"

if [ "$FAILURES" -gt 0 ]; then
    echo "FAIL: test_agent_files ($FAILURES failure(s))" >&2
    exit 1
fi
echo "PASS: test_agent_files"
