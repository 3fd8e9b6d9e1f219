#!/usr/bin/env bash
# test_diff.sh: `hprof diff` on real dumps (jcmd GC.heap_dump) of programs
# with known growth, on JDK 17 and 25.
#
# usage: bash test_diff.sh HPROF_TOOL PROJECT_DIR WORKDIR   (run by ctest)
# Owns: fixtures 1000 against 2000 nodes (every variant: names, ids,
# versions, gzip); demo-java/RetainDemo dumped before and after its "add" step (exactly
# M = 100000 RetainDemo$Added more, nothing else that stays): the diff's top
# row is that class, +M instances, +16 bytes each (12-byte header with
# compressed class pointers + an int); --json parsed by python3, --top; a
# dump diffed with itself is all zeros; the same diff from the dumps
# rewritten as 1.0.1, 4-byte ids and gzip (hprof convert, jcmd -gz); two
# runs of LambdaDemo match class by class (hidden-class addresses
# normalized, no address left in a name); bad inputs (not HPROF, no heap
# dump, cut, missing, usage) give their message and exit status.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/heap_lib.sh" "$@"

M=100000
compile RetainDemo LambdaDemo

# json_row FILE CLASS: "instances_before instances_after bytes_before
# bytes_after" of CLASS in a diff --json, or "none"
json_row() {
    python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"classes"}, d.keys()
rows = [r for r in d["classes"] if r["class"] == sys.argv[2]]
for r in d["classes"]:
    assert set(r) == {"class", "instances_before", "instances_after", "bytes_before", "bytes_after"}, r
print(" ".join(str(rows[0][k]) for k in ("instances_before", "instances_after", "bytes_before", "bytes_after")) if rows else "none")
PY
}

step "fixtures (no JVM): 1000 against 2000 nodes, slash and dot names, 8- and 4-byte ids, 1.0.2 and 1.0.1, gzip"
"$HPROF" fixture fa.hprof --objects 1000 >/dev/null
"$HPROF" fixture fb.hprof --objects 2000 --names dot --id-size 4 --version 1.0.1 >/dev/null
gzip -c fb.hprof >fb.hprof.gz
"$HPROF" diff --json fa.hprof fb.hprof.gz >f.json || fail "diff of fixtures exited $?"
expect_eq "fixture Node" "1000 2000 56000 112000" "$(json_row f.json com.example.fixture.Node)"
expect_eq "fixture SubNode" "50 100 3200 6400" "$(json_row f.json com.example.fixture.SubNode)"
expect_eq "fixture Marker (the same in both)" "3 3 72 72" "$(json_row f.json com.example.fixture.Marker)"
# one row per class although the two files spell names differently
expect_eq "fixture rows (histo's classes)" "$("$HPROF" histo fa.hprof | grep -c '^ *[0-9]*:')" \
    "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["classes"]))' f.json)"
expect_eq "first fixture row" com.example.fixture.Node \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["classes"][0]["class"])' f.json)"
echo "   ok"

for JDK in $JDKS; do
    V=$("$JDK/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"

    step "RetainDemo: a dump, $M RetainDemo\$Added more, a dump"
    demo_start r$V "$JDK" RetainDemo 1000 200 300 $M
    demo_dump r$V "$JDK" "$WORK/before$V.hprof"
    demo_say r$V add "^added $M\$"
    demo_dump r$V "$JDK" "$WORK/after$V.hprof"
    "$JDK/bin/jcmd" "$DEMO_JPID" GC.heap_dump -gz=1 "$WORK/after$V.hprof.gz" >r$V.jcmdgz 2>&1 ||
        fail "jcmd GC.heap_dump -gz=1: $(cat r$V.jcmdgz)"
    demo_end r$V

    "$HPROF" diff before$V.hprof after$V.hprof >d$V.txt || fail "hprof diff exited $?"
    top=$(awk 'NR == 3 { print $1, $2, $3, $4, $5, $6, $7 }' d$V.txt)
    expect_eq "top row of the diff" "0 $M +$M 0 $((M * 16)) +$((M * 16)) RetainDemo\$Added" "$top"
    # the rows are ordered by byte growth
    awk 'NR > 2 && $1 ~ /^[0-9]+$/ && $7 != "Total" { d = $6 + 0; if (n++ && d > prev) { print "not ordered: " $0; exit 1 } prev = d }' \
        d$V.txt || fail "rows not ordered by byte growth"
    # the table's Total line: instances before and after are the histograms' totals
    tb=$("$HPROF" histo before$V.hprof | awk '$1 == "Total" { print $2, $3 }')
    ta=$("$HPROF" histo after$V.hprof | awk '$1 == "Total" { print $2, $3 }')
    expect_eq "Total line (instances and bytes, before and after: histo's totals)" \
        "$(echo $tb $ta | awk '{ print $1, $3, $2, $4 }')" "$(awk '$7 == "Total" { print $1, $2, $4, $5 }' d$V.txt)"
    # Java spelling: no JVM descriptors, no slashes
    ! grep -qE ' (\[|java/)' d$V.txt || fail "a JVM spelling in the diff: $(grep -E ' (\[|java/)' d$V.txt | head -2)"
    grep -qE ' java\.lang\.Object\[\]$' d$V.txt || fail "no java.lang.Object[] row"
    echo "   ok: top row $top"

    step "--json, --top"
    "$HPROF" diff --json before$V.hprof after$V.hprof >d$V.json || fail "hprof diff --json exited $?"
    expect_eq "RetainDemo\$Added in --json" "0 $M 0 $((M * 16))" "$(json_row d$V.json 'RetainDemo$Added')"
    expect_eq "RetainDemo\$Leaf in --json (unchanged)" "1700 1700 27200 27200" "$(json_row d$V.json 'RetainDemo$Leaf')"
    expect_eq "RetainDemo\$Marker in --json (unchanged)" "1000 1000 16000 16000" "$(json_row d$V.json 'RetainDemo$Marker')"
    expect_eq "first class in --json" 'RetainDemo$Added' "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["classes"][0]["class"])' d$V.json)"
    "$HPROF" diff --top 3 --json before$V.hprof after$V.hprof >d$V.top.json
    expect_eq "--top 3 rows" 3 "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["classes"]))' d$V.top.json)"
    nrows=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["classes"]))' d$V.json)
    expect_eq "--top 3 table: rows and the 'more' line" "3 ... $((nrows - 3)) more" \
        "$("$HPROF" diff --top 3 before$V.hprof after$V.hprof | awk 'NR > 2 && $7 != "Total"' | awk 'END { print NR - 1, $1, $2, $3 }')"

    step "a dump diffed with itself: all zeros"
    "$HPROF" diff --json after$V.hprof after$V.hprof >self$V.json || fail "self diff exited $?"
    python3 - self$V.json <<'PY' || fail "self diff is not all zeros"
import json, sys
rows = json.load(open(sys.argv[1]))["classes"]
assert len(rows) > 100, len(rows)
bad = [r for r in rows if r["instances_before"] != r["instances_after"] or r["bytes_before"] != r["bytes_after"]]
assert not bad, bad[:3]
assert sum(r["instances_after"] for r in rows) > 100000
print("   ok: %d classes, every one unchanged" % len(rows))
PY

    step "the same diff from other variants: 1.0.1, 4-byte ids, gzip"
    "$HPROF" convert before$V.hprof -o b4.hprof --id-size 4 --renumber --version 1.0.1 >/dev/null ||
        fail "hprof convert --id-size 4 --version 1.0.1"
    "$HPROF" convert after$V.hprof -o a.hprof.gz --gzip >/dev/null || fail "hprof convert --gzip"
    "$HPROF" diff --json b4.hprof a.hprof.gz >v$V.json || fail "diff of 1.0.1/4-byte and gzip exited $?"
    cmp -s v$V.json d$V.json || fail "the diff of the converted dumps differs: $(diff v$V.json d$V.json | head -5)"
    # jcmd's own gzip (a later dump: a few JDK objects may differ, not the top row)
    "$HPROF" diff --json before$V.hprof after$V.hprof.gz >gz$V.json || fail "diff of jcmd -gz=1's dump exited $?"
    expect_eq "RetainDemo\$Added from jcmd -gz=1's dump" "0 $M 0 $((M * 16))" "$(json_row gz$V.json 'RetainDemo$Added')"
    echo "   ok: same JSON"

    step "LambdaDemo twice: hidden classes matched across runs"
    for run in 1 2; do
        demo_start l$V$run "$JDK" LambdaDemo 3000 2000 wait
        demo_dump l$V$run "$JDK" "$WORK/lambda$V.$run.hprof"
        demo_end l$V$run
    done
    "$HPROF" histo lambda$V.1.hprof >lh$V.txt || fail "hprof histo of LambdaDemo's dump"
    grep -qE 'LambdaDemo\$\$Lambda[$0-9]*\+0x[0-9a-f]+$' lh$V.txt ||
        fail "the dump does not spell LambdaDemo's lambdas with an address: nothing to normalize"
    "$HPROF" diff --json lambda$V.1.hprof lambda$V.2.hprof >l$V.json || fail "diff of LambdaDemo runs exited $?"
    expect_eq 'LambdaDemo$$Lambda+<hidden> (both lambda classes, 3000 + 2000)' "5000 5000 80000 80000" \
        "$(json_row l$V.json 'LambdaDemo$$Lambda+<hidden>')"
    python3 - l$V.json <<'PY' || fail "a class only on one side because of its address"
import json, sys
rows = json.load(open(sys.argv[1]))["classes"]
addr = [r["class"] for r in rows if "0x" in r["class"]]
assert not addr, addr[:3]
onesided = [r["class"] for r in rows if "<hidden>" in r["class"] and (r["instances_before"] == 0) != (r["instances_after"] == 0)]
assert not onesided, onesided
print("   ok: %d classes, %d hidden ones, none one-sided" % (len(rows), sum("<hidden>" in r["class"] for r in rows)))
PY
done
CTX=""

step "bad inputs"
echo "not a heap dump" >text.txt
rc=0; "$HPROF" diff text.txt before$V.hprof >bad1.out 2>bad1.err || rc=$?
expect_eq "not HPROF: exit status" 1 $rc
grep -q "^hprof: text.txt is not an HPROF file" bad1.err || fail "not HPROF: $(cat bad1.err)"
[ ! -s bad1.out ] || fail "not HPROF: something printed: $(head -2 bad1.out)"
head -c 31 before$V.hprof >header.hprof
rc=0; "$HPROF" diff before$V.hprof header.hprof >bad2.out 2>bad2.err || rc=$?
expect_eq "no heap dump: exit status" 1 $rc
grep -q "^hprof: header.hprof has no heap dump" bad2.err || fail "no heap dump: $(cat bad2.err)"
# a dump cut in its middle: what was read is still shown, exit 1
head -c $(($(stat -c %s after$V.hprof) / 2)) after$V.hprof >cut.hprof
rc=0; "$HPROF" diff before$V.hprof cut.hprof >bad3.out 2>bad3.err || rc=$?
expect_eq "cut dump: exit status" 1 $rc
grep -q "^hprof: cut.hprof is malformed: truncated at offset [0-9]*: .*covers what could be read" bad3.err ||
    fail "cut dump: $(cat bad3.err)"
grep -q ' Total (' bad3.out || fail "cut dump: no table shown"
rc=0; "$HPROF" diff before$V.hprof missing.hprof >/dev/null 2>bad4.err || rc=$?
expect_eq "missing file: exit status" 1 $rc
grep -q "^hprof: cannot open missing.hprof: No such file or directory" bad4.err || fail "missing: $(cat bad4.err)"
for args in "before$V.hprof" "a b c" "--top 0 a b" "--top x a b" "--frob a b" "- -"; do
    rc=0
    # shellcheck disable=SC2086 # the arguments, split
    "$HPROF" diff $args >/dev/null 2>usage.err || rc=$?
    expect_eq "usage error ($args): exit status" 2 $rc
    grep -q "^hprof: diff: " usage.err || fail "usage error ($args): $(cat usage.err)"
done
echo "   ok"
echo "PASS"
