#!/usr/bin/env bash
# test_outfile.sh: how `hprof convert`, `redact`, `disasm` and `asm` write
# their -o OUT (hw_outfile in libhprofwriter), the same rules for all four.
#
# usage: bash test_outfile.sh HPROF_TOOL PROJECT_DIR WORKDIR   (run by ctest)
# Owns, for each command: `-o -` is standard output; `-o FIFO` reaches the
# reader and the FIFO stays one; `-o ./null` (a character device made with
# mknod as root, else /dev/null itself) stays a device, also after a failing
# run; `-o LINK` is refused and its target untouched; a symbolic link
# planted at the old temporary name OUT.tmp redirects nothing; `-o INPUT` is
# refused and the input intact; a failing run leaves the previous OUT intact
# and no temporary file; a successful one replaces it; standard output that
# is the input (`>> INPUT`) is refused. And `asm >> file` (an
# O_APPEND standard output) of a heap dump record past the 16 MiB streaming
# threshold, or after bytes already written, gives exactly the right bytes.
set -euo pipefail

if [ $# -lt 3 ]; then
    echo "usage: bash $0 HPROF_TOOL PROJECT_DIR WORKDIR" >&2
    exit 2
fi
HPROF=$1
WORK=$3
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
step() {
    echo "== $*"
}
# expect_rc WANT CMD...: runs CMD (stdout to out.txt, stderr to err.txt)
expect_rc() {
    local want=$1 rc=0
    shift
    "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" = "$want" ] || fail "'$*' exited $rc, expected $want: $(head -c 400 err.txt)"
}
# has_msg TEXT: err.txt holds TEXT
has_msg() {
    grep -qF -- "$1" err.txt || fail "expected '$1' in: $(cat err.txt)"
}
no_tmp() {
    ! ls "$1".tmp* >/dev/null 2>&1 || fail "a temporary file of $1 was left behind: $(ls "$1".tmp*)"
}

"$HPROF" fixture base.hprof --objects 2000 --id-size 4 >/dev/null
cp base.hprof base.copy
head -c 5000 base.hprof >cut.hprof # truncated: convert and redact fail on it
"$HPROF" disasm base.hprof -o base.txt
cp base.txt base.txt.copy
printf 'bogus\n' >bad.txt # asm fails on it
mkdir adir                # disasm fails reading it, after opening OUT

# run CMD GOOD|BAD OUT: one command on its good or failing input
run() {
    local cmd=$1 which=$2 out=$3
    case $cmd/$which in
    convert/good) "$HPROF" convert base.hprof -o "$out" --id-size 8 ;;
    convert/bad) "$HPROF" convert cut.hprof -o "$out" --id-size 8 ;;
    redact/good) "$HPROF" redact base.hprof -o "$out" --quiet ;;
    redact/bad) "$HPROF" redact cut.hprof -o "$out" --quiet ;;
    disasm/good) "$HPROF" disasm base.hprof -o "$out" ;;
    disasm/bad) "$HPROF" disasm adir -o "$out" ;;
    asm/good) "$HPROF" asm base.txt -o "$out" ;;
    asm/bad) "$HPROF" asm bad.txt -o "$out" ;;
    esac
}
input_of() {
    case $1 in
    asm) echo base.txt ;;
    *) echo base.hprof ;;
    esac
}

if [ "$(id -u)" = 0 ]; then
    NULLDEV=./null
    mknod ./null c 1 3
    echo "   character device: ./null (mknod c 1 3)"
else
    NULLDEV=/dev/null
    echo "   character device: /dev/null (not root: no mknod)"
fi

for cmd in convert redact disasm asm; do
    step "$cmd: a regular OUT, then the reference bytes"
    echo previous >"ref.$cmd"
    expect_rc 0 run "$cmd" good "ref.$cmd"
    ! cmp -s <(echo previous) "ref.$cmd" || fail "$cmd did not replace the previous OUT"
    no_tmp "ref.$cmd"
    [ "$(stat -c %s "ref.$cmd")" -gt 1000 ] || fail "$cmd wrote $(stat -c %s "ref.$cmd") bytes"

    step "$cmd: -o - is standard output"
    expect_rc 0 run "$cmd" good -
    cmp out.txt "ref.$cmd" || fail "$cmd -o -: other bytes on stdout"
    [ ! -e ./- ] || fail "$cmd -o - created a file named -"

    step "$cmd: -o FIFO reaches the reader, the FIFO stays a FIFO"
    rm -f fifo
    mkfifo fifo
    cat fifo >fifo.got &
    reader=$!
    expect_rc 0 run "$cmd" good fifo
    wait $reader
    cmp fifo.got "ref.$cmd" || fail "$cmd -o fifo: the reader got other bytes"
    [ -p fifo ] || fail "$cmd replaced the FIFO"
    no_tmp fifo

    step "$cmd: -o $NULLDEV stays a character device, also after a failing run"
    expect_rc 0 run "$cmd" good "$NULLDEV"
    [ -c "$NULLDEV" ] || fail "$cmd: $NULLDEV is no longer a character device"
    expect_rc 1 run "$cmd" bad "$NULLDEV"
    [ -c "$NULLDEV" ] || fail "$cmd: a failing run replaced or removed $NULLDEV"
    no_tmp "$NULLDEV"

    step "$cmd: -o LINK refused, the target untouched"
    echo keep >target.txt
    rm -f link.out
    ln -s target.txt link.out
    expect_rc 1 run "$cmd" good link.out
    has_msg "link.out: it is a symbolic link; refusing to write through it"
    [ "$(cat target.txt)" = keep ] && [ -L link.out ] || fail "$cmd: the link or its target was touched"
    no_tmp link.out

    step "$cmd: a link planted at OUT.tmp redirects nothing"
    echo keep >victim.txt
    rm -f planted.out planted.out.tmp
    ln -s victim.txt planted.out.tmp
    expect_rc 0 run "$cmd" good planted.out
    [ "$(cat victim.txt)" = keep ] || fail "$cmd wrote through planted.out.tmp"
    cmp planted.out "ref.$cmd" || fail "$cmd -o planted.out: other bytes"
    [ -L planted.out.tmp ] || fail "$cmd removed the planted link"
    ! ls planted.out.tmp.* >/dev/null 2>&1 || fail "$cmd left a temporary file"

    step "$cmd: -o INPUT refused, the input intact"
    in=$(input_of "$cmd")
    expect_rc 1 run "$cmd" good "$in"
    has_msg "$in: it is the input file; refusing to overwrite it"
    cmp base.hprof base.copy || fail "$cmd -o $in changed base.hprof"
    cmp base.txt base.txt.copy || fail "$cmd -o $in changed base.txt"
    no_tmp "$in"

    step "$cmd: a failing run leaves the previous OUT intact, no temporary file"
    expect_rc 1 run "$cmd" bad "ref.$cmd"
    [ -s err.txt ] || fail "$cmd failed without a message"
    cp "ref.$cmd" before
    expect_rc 1 run "$cmd" bad "ref.$cmd"
    cmp before "ref.$cmd" || fail "$cmd: a failing run changed the previous OUT"
    no_tmp "ref.$cmd"
    expect_rc 1 run "$cmd" bad new.out
    [ ! -e new.out ] || fail "$cmd: a failing run left new.out"
    no_tmp new.out
done

step "redact -o - without --quiet: the summary goes to stderr, stdout is the dump alone"
expect_rc 0 "$HPROF" redact base.hprof -o -
cmp out.txt ref.redact || fail "redact -o -: the summary is mixed into the dump"
grep -q "^redacted base.hprof -> -: $(stat -c %s base.hprof) bytes" err.txt || fail "no summary on stderr: $(cat err.txt)"

step "standard output appended to the input: refused, the input intact"
expect_rc_append() { # expect_rc_append WANT FILE CMD...: CMD >>FILE
    local want=$1 file=$2 rc=0
    shift 2
    "$@" >>"$file" 2>err.txt || rc=$?
    [ "$rc" = "$want" ] || fail "'$* >>$file' exited $rc, expected $want: $(head -c 400 err.txt)"
}
expect_rc_append 1 base.hprof "$HPROF" disasm base.hprof
has_msg "hprof: (stdout): standard output is the input file; refusing to write to it"
expect_rc_append 1 base.txt "$HPROF" asm base.txt
has_msg "hprof: (stdout): standard output is the input file; refusing to write to it"
expect_rc_append 1 base.hprof "$HPROF" redact base.hprof -o - --quiet
has_msg "hprof: redact: (stdout): standard output is the input file; refusing to write to it"
cmp base.hprof base.copy || fail "appending to the input changed base.hprof"
cmp base.txt base.txt.copy || fail "appending to the input changed base.txt"

step "convert, redact, disasm and asm wrote what they wrote before (exact sizes)"
[ "$(stat -c %s ref.disasm)" = "$(stat -c %s base.txt)" ] || fail "disasm: $(stat -c %s ref.disasm) bytes"
cmp ref.asm base.hprof || fail "asm(disasm(base)) differs from base"
[ "$(stat -c %s ref.redact)" = "$(stat -c %s base.hprof)" ] || fail "redact changed the size"

step "asm >> file: a heap dump record past 16 MiB, O_APPEND and after other bytes"
"$HPROF" fixture big.hprof --objects 200000 --version 1.0.1 >/dev/null
size=$(stat -c %s big.hprof)
[ "$size" -gt $((16 * 1024 * 1024 + 4096)) ] || fail "big.hprof has $size bytes, not past 16 MiB"
"$HPROF" disasm big.hprof -o big.txt
printf 'PREFIX' >app.out
"$HPROF" asm big.txt >>app.out
[ "$(stat -c %s app.out)" = $((size + 6)) ] || fail "asm >> app.out: $(stat -c %s app.out) bytes, want $((size + 6))"
cmp <(printf PREFIX; cat big.hprof) app.out || fail "asm >> app.out: other bytes"
: >app0.out
"$HPROF" asm big.txt >>app0.out
cmp big.hprof app0.out || fail "asm >> an empty file: other bytes"
{
    printf 'PREFIX'
    "$HPROF" asm big.txt
} >off.out
cmp <(printf PREFIX; cat big.hprof) off.out || fail "asm after 6 bytes on the same stdout: other bytes"
"$HPROF" asm big.txt -o big.back
cmp big.hprof big.back || fail "asm -o big.back: other bytes"
echo "   $size-byte record: appended, offset by 6 and through -o: the same bytes"

echo "PASS: test_outfile"
