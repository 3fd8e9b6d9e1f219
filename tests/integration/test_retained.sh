#!/usr/bin/env bash
# test_retained.sh: `hprof retained` and `hprof path` on real `jcmd
# GC.heap_dump` dumps of demo-java/RetainPathDemo.java (JDK 17 and 25), whose
# retained sets and paths are known by hand:
#   - the Holder retains exactly N + 2 objects (itself, its Leaf[N], the N
#     leaves) and 24 + align8(16 + 4 N) + 24 N bytes; the Shared it shares
#     with another holder is not among them;
#   - the class rows: N Leaf instances, 24 N bytes shallow and retained;
#     the SoftTarget (only its SoftReference reaches it) counted, and left
#     out with --no-weak;
#   - the path to the Target: the Java frame of main() at PATH-ROOT in the
#     thread named "main", then the fields alpha, beta, gamma in that order;
#   - the SoftTarget: no path through strong references (exit 1), one
#     through SoftReference.referent with --weak;
#   - the same numbers from the gzip dump (jcmd GC.heap_dump -gz=1) and
#     from the dump converted to 1.0.1, and the path of an object given by id;
#   - bad input: a truncated dump, a text file, a missing class: exit 1 and
#     an `hprof:` message, no crash.
# The JSON is read with python3, independently of the tool.
# usage: bash test_retained.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO
set -uo pipefail
source "$(dirname "$0")/agent_lib.sh"

N=50000
compile RetainPathDemo
ROOT_LINE=$(line_of RetainPathDemo.java PATH-ROOT)

# json_get FILE EXPR: a Python expression over `j` (the parsed JSON)
json_get() {
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1" ||
        fail "cannot read $1 as JSON"
}

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"

    step "RetainPathDemo $N: two dumps by jcmd GC.heap_dump (plain, gzip)"
    rm -f fifo$V d$V.hprof d$V.hprof.gz
    mkfifo fifo$V
    "$JAVA" -cp classes RetainPathDemo $N <fifo$V >r$V.out 2>r$V.err &
    pid=$!
    exec 7>fifo$V
    for _ in $(seq 1 300); do grep -q '^ready' r$V.out 2>/dev/null && break; sleep 0.1; done
    grep -q '^ready' r$V.out || fail "RetainPathDemo did not start: $(cat r$V.err)"
    "$JDK/bin/jcmd" $pid GC.heap_dump "$WORK/d$V.hprof" >jcmd$V.out 2>&1 || fail "jcmd: $(cat jcmd$V.out)"
    "$JDK/bin/jcmd" $pid GC.heap_dump -gz=1 "$WORK/d$V.hprof.gz" >>jcmd$V.out 2>&1 || fail "jcmd -gz: $(cat jcmd$V.out)"
    exec 7>&-
    wait $pid || fail "RetainPathDemo exited with $?"

    step "retained: the Holder's set, the Leaf class"
    "$HPROF" retained d$V.hprof --top 10 --json >ret$V.json 2>ret$V.err || fail "retained failed: $(cat ret$V.err)"
    H="[o for o in j['objects'] if o['class'] == 'RetainPathDemo\$Holder']"
    expect_eq "Holder rows" 1 "$(json_get ret$V.json "len($H)")"
    expect_eq "Holder retained_objects" $((N + 2)) "$(json_get ret$V.json "$H[0]['retained_objects']")"
    expect_eq "Holder retained_bytes" $((24 + (16 + 4 * N + 7) / 8 * 8 + 24 * N)) \
        "$(json_get ret$V.json "$H[0]['retained_bytes']")"
    expect_eq "Holder shallow_bytes" 24 "$(json_get ret$V.json "$H[0]['shallow_bytes']")"
    expect_eq "object keys" "['class', 'id', 'retained_bytes', 'retained_objects', 'shallow_bytes']" \
        "$(json_get ret$V.json "sorted(j['objects'][0])")"
    "$HPROF" retained d$V.hprof --top 100000 --json >retall$V.json 2>/dev/null || fail "retained --top 100000 failed"
    L="[c for c in j['classes'] if c['class'] == 'RetainPathDemo\$Leaf'][0]"
    expect_eq "Leaf instances" $N "$(json_get retall$V.json "$L['instances']")"
    expect_eq "Leaf shallow_bytes" $((24 * N)) "$(json_get retall$V.json "$L['shallow_bytes']")"
    expect_eq "Leaf retained_bytes" $((24 * N)) "$(json_get retall$V.json "$L['retained_bytes']")"
    S="[c for c in j['classes'] if c['class'] == 'RetainPathDemo\$Shared'][0]"
    expect_eq "Shared instances" 1 "$(json_get retall$V.json "$S['instances']")"
    expect_eq "Shared retained_bytes" 16 "$(json_get retall$V.json "$S['retained_bytes']")"
    expect_eq "class keys" "['class', 'instances', 'retained_bytes', 'shallow_bytes']" \
        "$(json_get retall$V.json "sorted(j['classes'][0])")"
    ST="[c['instances'] for c in j['classes'] if c['class'] == 'RetainPathDemo\$SoftTarget']"
    expect_eq "SoftTarget rows (its referent is a reference)" "[1]" "$(json_get retall$V.json "$ST")"
    "$HPROF" retained d$V.hprof --top 100000 --json --no-weak >retnw$V.json 2>/dev/null || fail "retained --no-weak failed"
    expect_eq "SoftTarget rows with --no-weak (unreachable)" "[]" "$(json_get retnw$V.json "$ST")"
    expect_eq "Holder retained_objects with --no-weak" $((N + 2)) "$(json_get retnw$V.json "$H[0]['retained_objects']")"
    "$HPROF" retained d$V.hprof --top 5 >rett$V.txt 2>/dev/null || fail "retained (table) failed"
    grep -Eq "^ *$((24 + (16 + 4 * N + 7) / 8 * 8 + 24 * N)) +$((N + 2)) +24 +0x[0-9a-f]+ +RetainPathDemo\\\$Holder$" rett$V.txt ||
        fail "the table has no Holder row: $(cat rett$V.txt)"

    step "retained: the gzip dump gives the same numbers"
    "$HPROF" retained d$V.hprof.gz --top 10 --json >retgz$V.json 2>/dev/null || fail "retained .gz failed"
    expect_eq "gzip Holder retained_objects" $((N + 2)) "$(json_get retgz$V.json "$H[0]['retained_objects']")"

    step "retained: the same dump as JAVA PROFILE 1.0.1 (one HEAP DUMP record) gives the same numbers"
    "$HPROF" convert d$V.hprof -o d$V-101.hprof --version 1.0.1 >/dev/null 2>conv$V.err || fail "convert: $(cat conv$V.err)"
    "$HPROF" retained d$V-101.hprof --top 10 --json >ret101$V.json 2>/dev/null || fail "retained 1.0.1 failed"
    cmp -s ret$V.json ret101$V.json || fail "retained: 1.0.1 and 1.0.2 differ"
    rm -f d$V-101.hprof

    step "path: RetainPathDemo\$Target through alpha, beta, gamma from main's frame"
    "$HPROF" path d$V.hprof 'RetainPathDemo$Target' --json >path$V.json 2>path$V.err || fail "path failed: $(cat path$V.err)"
    expect_eq "paths" 1 "$(json_get path$V.json "len(j['paths'])")"
    P="j['paths'][0]"
    expect_eq "fields in order" "alpha beta gamma None" "$(json_get path$V.json "' '.join(str(s['field']) for s in $P['steps'])")"
    expect_eq "classes in order" "RetainPathDemo\$First RetainPathDemo\$Second RetainPathDemo\$Third RetainPathDemo\$Target" \
        "$(json_get path$V.json "' '.join(s['class'] for s in $P['steps'])")"
    expect_eq "root kind" "Java frame" "$(json_get path$V.json "$P['root']['kind']")"
    expect_eq "root frame" "RetainPathDemo.main(RetainPathDemo.java:$ROOT_LINE)" "$(json_get path$V.json "$P['root']['frame']")"
    expect_eq "root thread name" "main" "$(json_get path$V.json "$P['root']['thread_name']")"
    expect_eq "target class" "RetainPathDemo\$Target" "$(json_get path$V.json "$P['target']['class']")"
    expect_eq "target is the last step" True "$(json_get path$V.json "$P['target']['id'] == $P['steps'][-1]['id']")"
    # JVM spelling of the class: the same answer
    "$HPROF" path d$V.hprof 'LRetainPathDemo$Target;' --json >pathvm$V.json 2>/dev/null || fail "path (JVM spelling) failed"
    cmp -s path$V.json pathvm$V.json || fail "path: JVM and Java spellings differ"

    step "path: the SoftTarget only with --weak, through referent"
    "$HPROF" path d$V.hprof 'RetainPathDemo$SoftTarget' >soft$V.out 2>soft$V.err
    expect_eq "exit status without --weak" 1 $?
    grep -q "^hprof: path: no path from a GC root" soft$V.err || fail "no 'no path' message: $(cat soft$V.err)"
    "$HPROF" path d$V.hprof 'RetainPathDemo$SoftTarget' --weak --json >softw$V.json 2>/dev/null || fail "path --weak failed"
    expect_eq "referent step" "java.lang.ref.SoftReference referent" \
        "$(json_get softw$V.json "' '.join(str(x) for x in [j['paths'][0]['steps'][-2]['class'], j['paths'][0]['steps'][-2]['field']])")"

    step "path by id: the Holder, held by the static holder of class RetainPathDemo"
    hid=$(json_get ret$V.json "$H[0]['id']")
    "$HPROF" path d$V.hprof "$hid" --json >pid$V.json 2>/dev/null || fail "path $hid failed"
    expect_eq "target id" "$hid" "$(json_get pid$V.json "j['paths'][0]['target']['id']")"
    expect_eq "last link" "class RetainPathDemo holder" \
        "$(json_get pid$V.json "' '.join([j['paths'][0]['steps'][-2]['class'], j['paths'][0]['steps'][-2]['field']])")"
    dec=$(python3 -c "print(int('$hid', 16))")
    "$HPROF" path d$V.hprof "$dec" --json >piddec$V.json 2>/dev/null || fail "path $dec failed"
    cmp -s pid$V.json piddec$V.json || fail "path: hex and decimal ids differ"

    step "bad input: cut dump, text file, unknown class, usage"
    head -c $(($(stat -c %s d$V.hprof) * 2 / 3)) d$V.hprof >cut$V.hprof
    "$HPROF" retained cut$V.hprof >cut$V.out 2>cut$V.err
    expect_eq "cut dump exit status" 1 $?
    grep -q "^hprof: retained: cut$V.hprof is cut short or malformed" cut$V.err || fail "cut: $(cat cut$V.err)"
    "$HPROF" retained "$SRC/demo-java/RetainPathDemo.java" >/dev/null 2>txt$V.err
    expect_eq "text file exit status" 1 $?
    grep -q "^hprof: retained: .*not an HPROF file" txt$V.err || fail "text: $(cat txt$V.err)"
    "$HPROF" path d$V.hprof 'no.Such' >/dev/null 2>nc$V.err
    expect_eq "unknown class exit status" 1 $?
    grep -q "^hprof: path: no class no.Such in" nc$V.err || fail "unknown class: $(cat nc$V.err)"
    "$HPROF" retained d$V.hprof --top 0 >/dev/null 2>&1
    expect_eq "--top 0 exit status" 2 $?
    "$HPROF" retained d$V.hprof --max-memory 1M >/dev/null 2>mm$V.err
    expect_eq "--max-memory 1M exit status" 1 $?
    grep -q "would need \(about\|more than\) [0-9]* MB.*; 1 MB are available" mm$V.err || fail "memory: $(cat mm$V.err)"
    rm -f d$V.hprof d$V.hprof.gz cut$V.hprof retall$V.json retnw$V.json
done
[ "$FAILURES" = 0 ] || { echo "$FAILURES failures"; exit 1; }
echo "test_retained: OK"
