#!/usr/bin/env bash
# test_heap_input.sh: how `hprof retained` and `hprof path` take their input
# and options, on fixtures (no JVM):
#   - the standard input: a file redirected (plain or gzip) gives what the
#     file gives; a pipe is refused at once with its reason, exit 1 (the
#     graph is read in two passes, path's names in a third);
#   - path to a class the dump defines but has no instance of (the fixture's
#     java.lang.Object): says so, exit 1, not "no path from a GC root";
#   - path --top N: the N paths' own memory (a link names its step in 168
#     bytes) counts against the limit: 3000 Node paths (6000 steps) need
#     2 MB more than the graph's 33 MB, refused under --max-memory 33M
#     (once taken regardless of it), given under 36M;
#   - --max-memory: sizes with K/M/G; " -1", "-1", "2GB", "G", "" are usage
#     errors (exit 2), " -1" once read as 2^64 - 1 bytes.
#
# usage: bash test_heap_input.sh HPROF_TOOL PROJECT_DIR WORKDIR   (run by ctest)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/heap_lib.sh" "$@"

"$HPROF" fixture f.hprof --objects 3000 >/dev/null || fail "fixture"
gzip -c f.hprof >f.hprof.gz
CLS=com.example.fixture.Node

step "standard input: a redirected file as the file, a pipe refused"
"$HPROF" retained f.hprof --top 5 --json >file.json 2>/dev/null || fail "retained f.hprof exited $?"
"$HPROF" retained - --top 5 --json <f.hprof >stdin.json 2>/dev/null || fail "retained - < f.hprof exited $?"
"$HPROF" retained - --top 5 --json <f.hprof.gz >stdin-gz.json 2>/dev/null || fail "retained - < f.hprof.gz exited $?"
cmp -s file.json stdin.json || fail "retained - < f.hprof differs from the file's"
cmp -s file.json stdin-gz.json || fail "retained - < f.hprof.gz differs from the file's"
"$HPROF" path f.hprof $CLS --json >pfile.json 2>/dev/null || fail "path f.hprof exited $?"
"$HPROF" path - $CLS --json <f.hprof >pstdin.json 2>/dev/null || fail "path - < f.hprof exited $?"
cmp -s pfile.json pstdin.json || fail "path - < f.hprof differs from the file's"
# pipe_refused CMD ARGS...: `hprof CMD ARGS` fed by a pipe (plain, gzip)
pipe_refused() {
    local c=$1 f
    for f in f.hprof f.hprof.gz; do
        cat $f | "$HPROF" "$@" >pipe.out 2>pipe.err
        expect_eq "$c from a pipe of $f: exit status" 1 $?
        grep -q "^hprof: $c: the standard input is a pipe; the analysis reads the dump more than once" pipe.err ||
            fail "$c from a pipe of $f: $(cat pipe.err)"
        [ -s pipe.out ] && fail "$c from a pipe of $f wrote: $(cat pipe.out)"
    done
}
pipe_refused retained -
pipe_refused path - $CLS

step "--max-memory: K/M/G sizes; signs, spaces and other suffixes are usage errors"
"$HPROF" retained f.hprof --max-memory 1G >/dev/null 2>&1 || fail "--max-memory 1G exited $?"
"$HPROF" retained f.hprof --max-memory 1K >/dev/null 2>mm.err
expect_eq "--max-memory 1K: exit status" 1 $?
grep -q "would need more than 32 MB (0 objects read so far, 42 bytes each at least, and 32 MB); 0 MB are available (--max-memory)" mm.err || fail "1K: $(cat mm.err)"
for bad in " -1" "-1" "2GB" "G" "" " 5G" "+5G"; do
    "$HPROF" retained f.hprof --max-memory "$bad" >/dev/null 2>bad.err
    expect_eq "retained --max-memory '$bad': exit status" 2 $?
    grep -q "^hprof: retained: --max-memory needs a size" bad.err || fail "'$bad': $(cat bad.err)"
    "$HPROF" path f.hprof $CLS --max-memory "$bad" >/dev/null 2>bad.err
    expect_eq "path --max-memory '$bad': exit status" 2 $?
done
step "path --top N: the paths' memory within the limit"
"$HPROF" path f.hprof $CLS --top 3000 --max-memory 33M >top.out 2>top.err
expect_eq "path --top 3000 --max-memory 33M: exit status" 1 $?
grep -q "^hprof: path: f.hprof: the paths of 3000 objects (6000 steps) would need 2 MB more than the graph's 33 MB; 33 MB are available (--max-memory): ask for fewer with --top$" top.err ||
    fail "--top 3000 in 33M: $(cat top.err)"
"$HPROF" path f.hprof $CLS --top 3000 --max-memory 36M --json >top.json 2>top.err || fail "--top 3000 in 36M exited $?"
expect_eq "paths in 36M" 3000 "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["paths"]))' top.json)"

step "path to a class without instances"
"$HPROF" path f.hprof java.lang.Object >none.out 2>none.err
expect_eq "path java.lang.Object: exit status" 1 $?
grep -q "^hprof: path: class java.lang.Object has no instances in f.hprof$" none.err || fail "no instances: $(cat none.err)"
grep -q "no path" none.err && fail "no instances: $(cat none.err)"
[ -s none.out ] && fail "no instances wrote: $(cat none.out)"
echo "PASS"
