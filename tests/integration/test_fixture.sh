#!/usr/bin/env bash
# test_fixture.sh: `hprof fixture`: determinism, option checking, and a clean
# `hprof verify` on every combination of options.
#
# usage: bash test_fixture.sh HPROF_TOOL PROJECT_DIR WORKDIR   (run by ctest)
# Owns the fixture's command-line contract: exit codes 0/1/2, byte-identical
# output for the same options, the counts fixture.h documents, and an output
# created 0600 and never written through a symbolic link.
set -euo pipefail

if [ $# -lt 3 ]; then  # a 4th argument (the agent) is ignored
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

step "the tool runs and prints its usage"
"$HPROF" fixture --help >help.txt || fail "fixture --help exited $?"
grep -q -- "--id-size" help.txt || fail "fixture --help does not list --id-size"

step "determinism: the same options twice give the same bytes"
for opts in "" "--id-size 4 --version 1.0.1" "--names dot --segment-size 4096 --seed 99" \
            "--android --objects 50"; do
    # shellcheck disable=SC2086
    "$HPROF" fixture a.hprof $opts >/dev/null
    # shellcheck disable=SC2086
    "$HPROF" fixture b.hprof $opts >/dev/null
    cmp a.hprof b.hprof || fail "two runs with options '$opts' differ"
    echo "   identical: '$opts' ($(stat -c %s a.hprof) bytes)"
done

step "a different seed gives different bytes, of the same shape"
"$HPROF" fixture a.hprof --seed 1 >/dev/null
"$HPROF" fixture b.hprof --seed 2 >/dev/null
if cmp -s a.hprof b.hprof; then fail "--seed 1 and --seed 2 wrote identical files"; fi
"$HPROF" histo a.hprof | grep -E 'Node$|SubNode$|Marker$' | awk '{print $2, $4}' >ha.txt
"$HPROF" histo b.hprof | grep -E 'Node$|SubNode$|Marker$' | awk '{print $2, $4}' >hb.txt
cmp ha.txt hb.txt || fail "instance counts depend on the seed"
echo "   seeds 1 and 2 differ in bytes, not in counts"

step "writing to stdout (OUT = -) gives the same bytes as a file"
"$HPROF" fixture - --seed 5 >c.hprof 2>/dev/null
"$HPROF" fixture d.hprof --seed 5 >/dev/null
cmp c.hprof d.hprof || fail "fixture - differs from fixture FILE"

step "bad options: exit 2 with a message naming the option"
bad() {
    local want=$1
    shift
    local rc=0
    "$HPROF" fixture "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" -eq 2 ] || fail "fixture $* exited $rc, expected 2"
    grep -q -- "$want" err.txt || fail "fixture $*: stderr does not mention '$want': $(cat err.txt)"
    echo "   exit 2: fixture $* -> $(head -1 err.txt)"
}
bad "--id-size" x.hprof --id-size 5
bad "--id-size" x.hprof --id-size
bad "--id-size" x.hprof --id-size=16
bad "--version" x.hprof --version 1.0.4
bad "--version" x.hprof --version 1.0
bad "--objects" x.hprof --objects -1
bad "--objects" x.hprof --objects 12abc
bad "--objects" x.hprof --objects 99999999999999999999999
bad "--objects" x.hprof --objects ""
bad "--segment-size" x.hprof --segment-size 0
bad "--segment-size" x.hprof --segment-size 63
bad "--segment-size" x.hprof --segment-size 2G
bad "--names" x.hprof --names dots
bad "--seed" x.hprof --seed abc
bad "--seed" x.hprof --seed 18446744073709551616
bad "unknown option" x.hprof --bogus
bad "missing OUT" --objects 10
bad "one output file" x.hprof y.hprof
[ ! -e x.hprof ] || fail "a usage error still created the output file"

step "write failures: exit 1 with a message"
rc=0
"$HPROF" fixture /nonexistent-dir/x.hprof >/dev/null 2>err.txt || rc=$?
[ "$rc" -eq 1 ] || fail "fixture into a missing directory exited $rc, expected 1"
echo "   exit 1: $(head -1 err.txt)"
if [ -w /dev/full ]; then
    rc=0
    "$HPROF" fixture /dev/full >/dev/null 2>err.txt || rc=$?
    [ "$rc" -eq 1 ] || fail "fixture into /dev/full exited $rc, expected 1"
    echo "   exit 1: $(head -1 err.txt)"
fi

step "the output is created 0600, never written through a symbolic link"
# a dump holds what a program held: created as HotSpot creates its dumps
rm -f m.hprof
(umask 022 && "$HPROF" fixture m.hprof >/dev/null) || fail "fixture m.hprof failed"
[ "$(stat -c %a m.hprof)" = 600 ] || fail "m.hprof has mode $(stat -c %a m.hprof), expected 600"
echo "keep me" >victim.txt
ln -sf victim.txt link.hprof
rc=0
"$HPROF" fixture link.hprof >/dev/null 2>err.txt || rc=$?
[ "$rc" -eq 1 ] || fail "fixture through a symbolic link exited $rc, expected 1"
grep -q "link.hprof: it is a symbolic link; refusing to write through it" err.txt ||
    fail "no message about the symbolic link: $(cat err.txt)"
[ "$(cat victim.txt)" = "keep me" ] || fail "fixture wrote through the symbolic link"
echo "   0600; exit 1: $(head -1 err.txt)"

step "segments: 1.0.1 writes one HEAP DUMP, a small --segment-size many segments"
"$HPROF" fixture s.hprof --version 1.0.1 >sum.txt
grep -q " 0 segments" sum.txt || fail "1.0.1 wrote segments: $(cat sum.txt)"
"$HPROF" info s.hprof | grep -q "^HEAP DUMP " || fail "1.0.1: no HEAP DUMP record in hprof info"
"$HPROF" fixture s.hprof --segment-size 4096 >sum.txt
segs=$(sed -n 's/.* \([0-9]*\) segments.*/\1/p' sum.txt)
[ "$segs" -ge 20 ] || fail "--segment-size 4096 wrote only $segs segments"
"$HPROF" info s.hprof | grep -q "^HEAP DUMP END" || fail "1.0.2: no HEAP DUMP END"
echo "   1.0.1: 0 segments; 1.0.2 with 4 KiB segments: $segs segments"

step "documented counts (fixture.h) for --objects 1000 and 2000"
for n in 1000 2000; do
    "$HPROF" fixture h.hprof --objects "$n" >/dev/null
    "$HPROF" histo h.hprof >histo.txt
    count() { awk -v c="$1" '$4 == c {print $2}' histo.txt; }
    [ "$(count com/example/fixture/Node)" = "$n" ] || fail "Node count != $n"
    [ "$(count com/example/fixture/SubNode)" = "$((n / 20))" ] || fail "SubNode count != $((n / 20))"
    [ "$(count com/example/fixture/Marker)" = "3" ] || fail "Marker count != 3"
    [ "$(count java/lang/String)" = "$((16 + n / 10 + 41))" ] || fail "String count != $((16 + n / 10 + 41))"
    echo "   --objects $n: Node $n, SubNode $((n / 20)), Marker 3, String $((16 + n / 10 + 41))"
done

step "hprof verify is clean on every combination of options"
combos=0
for id in 4 8; do
  for ver in 1.0.1 1.0.2 1.0.3; do
    for names in slash dot; do
      for android in "" --android; do
        for objects in 0 1 1000; do
          for seg in 64 4096 1M; do
            [ "$ver" = 1.0.1 ] && [ "$seg" != 1M ] && continue   # no segments in 1.0.1
            # shellcheck disable=SC2086
            "$HPROF" fixture v.hprof --id-size $id --version $ver --names $names $android \
                --objects $objects --segment-size $seg >/dev/null
            # Android sub-records are reported (once) as a compatibility
            # warning; everything else must be clean
            ignore=""
            [ -n "$android" ] && ignore="--ignore android-extension"
            # shellcheck disable=SC2086
            if ! "$HPROF" verify $ignore v.hprof >verify.txt 2>&1; then
                cat verify.txt >&2
                fail "hprof verify: problems with --id-size $id --version $ver --names $names" \
                     "$android --objects $objects --segment-size $seg"
            fi
            combos=$((combos + 1))
          done
        done
      done
    done
  done
done
echo "   $combos combinations verified clean"

step "a bigger file: --objects 200000 with 64 KiB segments"
"$HPROF" fixture big.hprof --objects 200000 --segment-size 64K
"$HPROF" verify big.hprof >/dev/null || fail "hprof verify: problems in big.hprof"

echo "PASS: test_fixture"
