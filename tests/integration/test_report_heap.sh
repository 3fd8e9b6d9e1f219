#!/usr/bin/env bash
# test_report_heap.sh: `hprof report`'s retained tables and leak suspects
# (docs/report.md) on jcmd GC.heap_dump dumps of demo-java/RetainDemo
# (JDK 17 and 25), read back from the JSON with python3:
#  - the TABLEs retained-objects and retained-classes hold exactly the rows
#    of `hprof retained --json --top 20` (ids, classes, shallow and retained
#    bytes, retained objects), in its order; among them RetainDemo's known
#    answers: BIG (the Object[1000000]) retains 1001 objects, HOLDER 2003;
#  - the HEAP object's reachable and unreachable counts are those `hprof
#    retained` prints;
#  - one leak suspect, BIG: an object, 1001 objects, its id, its path from
#    a GC root ending RetainDemo.BIG -> java.lang.Object[], its sentence;
#  - --no-retained, a --max-memory too small, the dump on standard input:
#    no retained tables, the reason given, the histogram still there, exit
#    0; a bad size: exit 2; a dump cut in half: the tables and a warning;
#  - the page (-o) in headless Chromium (tests/report/check_report.js): the
#    suspect's sentence as text, the retained tables and their cells;
#  - demo-java/SuspectDemo: two suspects, exact: a long[][] held by a local
#    of main() (3 202 016 bytes, 102 objects; its root the Java frame of the
#    thread named "main" at the marked line) and 4 Sessions held by locals
#    of 4 threads (a class suspect: 2 400 128 bytes, 8 objects; its root a
#    Java frame of a thread "worker-N"), their sentences in the page.
# Chromium, node and the harness missing is a failure, not a skip.
#
# usage: bash test_report_heap.sh HPROF_TOOL PROJECT_DIR WORKDIR   (run by ctest)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/heap_lib.sh" "$@"

command -v node >/dev/null || fail "node is missing (scripts/deps.sh installs it)"
[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium is missing (scripts/deps.sh installs Debian's chromium)"
[ -f "$SRC/tests/report/node_modules/playwright-core/package.json" ] ||
    fail "the harness is not installed: run scripts/deps.sh (npm ci in tests/report)"

# py FILE... -- EXPR: a Python expression over j0, j1... (the parsed JSON files)
py() {
    local args=()
    while [ "$1" != "--" ]; do
        args+=("$1")
        shift
    done
    python3 -c "
import json, sys
js = [json.load(open(f)) for f in sys.argv[2:]]
for k, v in enumerate(js):
    globals()['j%d' % k] = v
def table(j, tid):
    t = [t for t in j['tables'] if t['id'] == tid]
    return t[0] if t else None
print(eval(sys.argv[1]))" "$2" "${args[@]}" || fail "cannot evaluate $2"
}

compile RetainDemo SuspectDemo
ROOT_LINE=$(grep -n 'SUSPECT-ROOT$' "$SRC/demo-java/SuspectDemo.java" | cut -d: -f1)
WORKER_LINE=$(grep -n 'done.await();' "$SRC/demo-java/SuspectDemo.java" | cut -d: -f1)
[ -n "$ROOT_LINE" ] && [ -n "$WORKER_LINE" ] || fail "SuspectDemo.java has no SUSPECT-ROOT or done.await() line"
for JDK in $JDKS; do
    V=$("$JDK/bin/java" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    step "RetainDemo dumped by jcmd GC.heap_dump"
    demo_start r$V "$JDK" RetainDemo 1000 200 300 100000
    demo_dump r$V "$JDK" "$WORK/retain$V.hprof"
    demo_end r$V

    step "the retained tables are hprof retained's rows"
    "$HPROF" retained retain$V.hprof --top 20 --json >ret$V.json 2>ret$V.err || fail "hprof retained: $(cat ret$V.err)"
    "$HPROF" retained retain$V.hprof --top 1 >ret$V.txt 2>/dev/null || fail "hprof retained (table)"
    "$HPROF" report retain$V.hprof --json rep$V.json 2>rep$V.err || fail "hprof report: $(cat rep$V.err)"
    expect_eq "retained-objects rows" 20 "$(py rep$V.json -- "len(table(j0, 'retained-objects')['rows'])")"
    expect_eq "retained-objects = hprof retained's objects" True "$(py rep$V.json ret$V.json -- \
        "[r[:5] for r in table(j0, 'retained-objects')['rows']] == [[o['id'], o['class'], o['shallow_bytes'], o['retained_bytes'], o['retained_objects']] for o in j1['objects']]")"
    expect_eq "retained-classes = hprof retained's classes" True "$(py rep$V.json ret$V.json -- \
        "[r[:4] for r in table(j0, 'retained-classes')['rows']] == [[c['class'], c['instances'], c['shallow_bytes'], c['retained_bytes']] for c in j1['classes']]")"
    expect_eq "retained-objects columns" "['id', 'class', 'shallow', 'retained', 'retained_objects', 'share']" \
        "$(py rep$V.json -- "[c['key'] for c in table(j0, 'retained-objects')['columns']]")"
    BIGROW="[r for r in table(j0, 'retained-objects')['rows'] if r[1] == 'java.lang.Object[]' and r[2] == 4000016]"
    expect_eq "BIG's row: retained objects, bytes" "[[1001, $((4000016 + 1000 * 16))]]" \
        "$(py rep$V.json -- "[[r[4], r[3]] for r in $BIGROW]")"
    expect_eq "HOLDER retains 2003 objects" "[2003]" \
        "$(py rep$V.json -- "[r[4] for r in table(j0, 'retained-objects')['rows'] if r[1] == 'RetainDemo\$Holder']")"
    expect_eq "BIG's share" True "$(py rep$V.json -- \
        "all(abs(r[5] - 100 * r[3] / j0['heap']['reachable_bytes']) <= 0.005 for r in $BIGROW)")"

    step "the HEAP object: reachable and unreachable as hprof retained says"
    FIRST=$(head -1 ret$V.txt)
    REACH=$(echo "$FIRST" | sed -E 's/^[^:]*: ([0-9]+) objects reachable.*/\1/')
    UNREACH=$(echo "$FIRST" | sed -E 's/.* ([0-9]+) unreachable objects.*/\1/')
    RBYTES=$(echo "$FIRST" | sed -E 's/.* GC roots, ([0-9]+) bytes;.*/\1/')
    expect_eq "reachable_objects" "$REACH" "$(py rep$V.json -- "j0['heap']['reachable_objects']")"
    expect_eq "unreachable_objects" "$UNREACH" "$(py rep$V.json -- "j0['heap']['unreachable_objects']")"
    expect_eq "reachable_bytes" "$RBYTES" "$(py rep$V.json -- "j0['heap']['reachable_bytes']")"
    py rep$V.json -- "j0['heap']['retained_rule']" | grep -q "^Eclipse MAT's (its default preferences; .*): the dominator tree of every object the GC roots reach" ||
        fail "no retained_rule"

    step "one leak suspect: BIG, with its path"
    expect_eq "suspects" 1 "$(py rep$V.json -- "len(j0['heap']['suspects'])")"
    BIGID=$(py rep$V.json -- "$BIGROW[0][0]")
    expect_eq "the suspect" "['object', 'java.lang.Object[]', '$BIGID', 1, 1001, 4016016]" \
        "$(py rep$V.json -- "[j0['heap']['suspects'][0][k] for k in ('kind', 'class', 'id', 'instances', 'retained_objects', 'retained_bytes')]")"
    expect_eq "its path's end" "['RetainDemo.BIG', 'java.lang.Object[]']" \
        "$(py rep$V.json -- "j0['heap']['suspects'][0]['path'][-2:]")"
    SENTENCE="One instance of \`java.lang.Object[]\` ($BIGID) retains 4.0 MB (4 016 016 bytes, "
    expect_eq "its sentence" "$SENTENCE" "$(py rep$V.json -- "j0['heap']['suspects'][0]['text'][:${#SENTENCE}]")"
    py rep$V.json -- "j0['heap']['suspects'][0]['text']" | grep -q " in 1 001 objects; its shortest path from a GC root: .*RetainDemo.BIG -> java.lang.Object\[\]$" ||
        fail "the sentence: $(py rep$V.json -- "j0['heap']['suspects'][0]['text']")"

    step "--no-retained, --max-memory too small, a bad size"
    "$HPROF" report retain$V.hprof --no-retained --json norep$V.json 2>/dev/null || fail "--no-retained failed"
    expect_eq "--no-retained: tables" "['histogram', 'roots']" "$(py norep$V.json -- "[t['id'] for t in j0['tables']]")"
    expect_eq "--no-retained: note" "not computed (--no-retained)" "$(py norep$V.json -- "j0['heap']['retained_note']")"
    "$HPROF" report retain$V.hprof --max-memory 1M --json memrep$V.json 2>/dev/null || fail "--max-memory 1M failed"
    expect_eq "--max-memory 1M: tables" "['histogram', 'roots']" "$(py memrep$V.json -- "[t['id'] for t in j0['tables']]")"
    py memrep$V.json -- "j0['warnings']" | grep -q "no retained sizes or leak suspects: retain$V.hprof: .*would need \\(about\\|more than\\) [0-9]* MB" ||
        fail "no memory warning: $(py memrep$V.json -- "j0['warnings']")"
    rc=0
    "$HPROF" report retain$V.hprof --max-memory lots --json bad.json 2>bad.err || rc=$?
    expect_eq "--max-memory lots: exit status" 2 "$rc"
    grep -q "^hprof: report: --max-memory needs a size" bad.err || fail "message: $(cat bad.err)"

    step "standard input, a dump cut short"
    "$HPROF" report - --json stdin$V.json <retain$V.hprof 2>/dev/null || fail "report of standard input failed"
    expect_eq "standard input: tables" "['histogram', 'roots']" "$(py stdin$V.json -- "[t['id'] for t in j0['tables']]")"
    expect_eq "standard input: note" "not computed: standard input cannot be read again" \
        "$(py stdin$V.json -- "j0['heap']['retained_note']")"
    head -c $(($(stat -c %s retain$V.hprof) / 2)) retain$V.hprof >cut$V.hprof
    "$HPROF" report cut$V.hprof --json cut$V.json 2>/dev/null || fail "report of a cut dump failed"
    py cut$V.json -- "j0['warnings']" | grep -q "cut$V.hprof: the retained sizes cover what could be read of the heap dump" ||
        fail "cut dump: no warning: $(py cut$V.json -- "j0['warnings']")"
    expect_eq "cut dump: tables" "['retained-objects', 'retained-classes', 'histogram', 'roots']" \
        "$(py cut$V.json -- "[t['id'] for t in j0['tables']]")"

    step "the page in headless Chromium"
    "$HPROF" report retain$V.hprof -o rep$V.html 2>/dev/null || fail "hprof report -o failed"
    K=$(py rep$V.json -- "[r[0] for r in table(j0, 'retained-objects')['rows']].index('$BIGID') + 1")
    node "$SRC/tests/report/check_report.js" rep$V.html \
        --text "$SENTENCE" --text " in 1 001 objects; its shortest path from a GC root: " \
        --text "RetainDemo.BIG -> java.lang.Object[]" --text "Leak suspects" \
        --table retained-objects:20 --table retained-classes:20 \
        --cell "retained-objects:$K:id:$BIGID" --cell "retained-objects:$K:retained_objects:1001" \
        --cell "retained-objects:$K:retained:4016016" \
        --screenshot shot-heap$V.png >page$V.out ||
        fail "check_report.js (above)"

    step "SuspectDemo: a suspect held by main's local, a class suspect of 4 threads' locals"
    demo_start s$V "$JDK" SuspectDemo
    demo_dump s$V "$JDK" "$WORK/suspect$V.hprof"
    demo_end s$V
    "$HPROF" report suspect$V.hprof --json sus$V.json 2>sus$V.err || fail "hprof report: $(cat sus$V.err)"
    expect_eq "suspects" \
        "[['object', 'long[][]', 1, 3202016, 102], ['class', 'SuspectDemo\$Session', 4, 2400128, 8]]" \
        "$(py sus$V.json -- "[[s[k] for k in ('kind', 'class', 'instances', 'retained_bytes', 'retained_objects')] for s in j0['heap']['suspects']]")"
    expect_eq "the object suspect's root" "Java frame of thread \"main\" at SuspectDemo.main(SuspectDemo.java:$ROOT_LINE)" \
        "$(py sus$V.json -- "j0['heap']['suspects'][0]['root']")"
    expect_eq "the class suspect's root" "Java frame of thread \"worker-N\" at SuspectDemo.lambda\$main\$0(SuspectDemo.java:$WORKER_LINE)" \
        "$(py sus$V.json -- "j0['heap']['suspects'][1]['root']" | sed 's/worker-[0-3]/worker-N/')"
    expect_eq "the class suspect's biggest" "[600032]" \
        "$(py sus$V.json -- "[r[3] for r in table(j0, 'retained-objects')['rows'] if r[0] == j0['heap']['suspects'][1]['id']]")"
    "$HPROF" report suspect$V.hprof -o sus$V.html 2>/dev/null || fail "hprof report -o failed"
    node "$SRC/tests/report/check_report.js" sus$V.html \
        --text "One instance of \`long[][]\` (" \
        --text ") retains 3.2 MB (3 202 016 bytes, " \
        --text " in 102 objects; its shortest path from a GC root: Java frame of thread \"main\" at SuspectDemo.main(SuspectDemo.java:$ROOT_LINE): long[][]" \
        --text "4 instances of \`SuspectDemo\$Session\` retain 2.4 MB (2 400 128 bytes, " \
        --text " together in 8 objects; the shortest path from a GC root to the biggest (" \
        >pages$V.out || fail "check_report.js (above)"
done
echo "test_report_heap: OK"
