#!/usr/bin/env bash
# test_agent_names.sh: hidden classes (lambdas) are spelled one way, HotSpot's
# (`LambdaDemo$$Lambda[$N]+0x<address>`), in the agent's TEXT output, in
# `hprof sites` of its binary output and in `hprof histo` of its heap dump
# (written by HotSpot's dumper), on JDK 17 and 25; and `--normalize` turns
# them into `LambdaDemo$$Lambda+<hidden>`, so that two runs compare.
#
# usage: bash test_agent_names.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
# Env: HPROF_TEST_JDKS="jdk1 jdk2" overrides the JDK list.
# The demo is demo-java/LambdaDemo.java: 3000 instances of one lambda class
# and 2000 of another, all live at exit; its header documents the numbers.
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

compile LambdaDemo
A_N=3000 B_N=2000
# HotSpot's spelling: JDK 17 lambdas carry a counter, JDK 21+ do not
HOTSPOT_RE='^LambdaDemo\$\$Lambda(\$[0-9]+)?\+0x[0-9a-f]+$'

# lambda_rows FILE: "name count" of each SITES row (in the agent's text layout)
# of a LambdaDemo lambda class, sorted by count
lambda_rows() {
    site_rows "$1" | awk '$9 ~ /^LambdaDemo\$\$Lambda/ { print $9, $7 }' | sort -k2,2n
}
# expect_rows WHAT ROWS NAME_RE: two rows, counts B_N and A_N, names matching NAME_RE
expect_rows() {
    local what=$1 rows=$2 re=$3
    expect_eq "$what: lambda rows" 2 "$(echo "$rows" | grep -c . || true)"
    expect_eq "$what: lambda counts" "$B_N $A_N" "$(echo "$rows" | awk '{printf "%s%s", s, $2; s = " "}')"
    echo "$rows" | awk '{print $1}' | grep -vE "$re" >"$what.badnames" &&
        fail "$what: names not spelled as $re: $(cat "$what.badnames")"
    echo "   ok: $what: $(echo "$rows" | tr '\n' ' ')"
}
# spelled ROWS: the names with the address replaced, to compare two spellings
spelled() {
    echo "$1" | sed -E 's/\+0x[0-9a-f]+ /+ADDR /'
}

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    A="-agentpath:$AGENT"

    step "text output: HotSpot's spelling, nothing spelled the JVMTI way"
    jrun t$V 0 no "$A=heap=sites,cutoff=0,file=$WORK/t$V.txt" -cp classes LambdaDemo
    TEXT_ROWS=$(lambda_rows t$V.txt)
    expect_rows "t$V.txt" "$TEXT_ROWS" "$HOTSPOT_RE"
    if grep -E 'LambdaDemo\$\$Lambda[$0-9]*\.0x' t$V.txt >t$V.jvmti; then
        fail "t$V.txt: hidden classes spelled with '.0x': $(head -3 t$V.jvmti)"
    fi
    grep -qE '^	LambdaDemo\$\$Lambda(\$[0-9]+)?\+0x[0-9a-f]+\.get\(' t$V.txt ||
        fail "t$V.txt: no TRACE frame of the lambda's get() in HotSpot's spelling"

    step "binary output through hprof sites: the same spelling"
    jrun b$V 0 no "$A=heap=sites,cutoff=0,format=b,file=$WORK/b$V.hprof" -cp classes LambdaDemo
    "$HPROF" verify b$V.hprof >b$V.verify || fail "b$V.hprof: hprof verify: $(tail -3 b$V.verify)"
    "$HPROF" sites b$V.hprof >b$V.sites || fail "hprof sites b$V.hprof failed"
    BIN_ROWS=$(lambda_rows b$V.sites)
    expect_rows "b$V.sites" "$BIN_ROWS" "$HOTSPOT_RE"
    expect_eq "text and binary spell the lambdas alike" "$(spelled "$TEXT_ROWS")" "$(spelled "$BIN_ROWS")"

    step "--normalize: no address, no counter; two runs give the same rows"
    "$HPROF" sites --normalize b$V.hprof >b$V.norm || fail "hprof sites --normalize failed"
    expect_rows "b$V.norm" "$(lambda_rows b$V.norm)" '^LambdaDemo\$\$Lambda\+<hidden>$'
    if grep -q '+0x' b$V.norm; then
        fail "b$V.norm: an address is left: $(grep -m1 '+0x' b$V.norm)"
    fi
    jrun c$V 0 no "$A=heap=sites,cutoff=0,format=b,file=$WORK/c$V.hprof" -cp classes LambdaDemo
    "$HPROF" sites --normalize c$V.hprof >c$V.norm || fail "hprof sites --normalize c$V failed"
    expect_eq "two runs, normalized lambda rows" "$(lambda_rows b$V.norm)" "$(lambda_rows c$V.norm)"
    "$HPROF" collapsed --sites --normalize b$V.hprof >b$V.folded || fail "hprof collapsed --normalize failed"
    grep -qE ';LambdaDemo\$\$Lambda\+<hidden> [0-9]+$' b$V.folded ||
        fail "b$V.folded: no normalized lambda leaf"
    if grep -q '+0x' b$V.folded; then
        fail "b$V.folded: an address is left: $(grep -m1 '+0x' b$V.folded)"
    fi

    step "heap dump (HotSpot's dumper): the same spelling; histo --normalize merges"
    jrun d$V 0 no "$A=heap=dump,format=b,file=$WORK/d$V.hprof" -cp classes LambdaDemo
    "$HPROF" histo d$V.hprof >d$V.histo || fail "hprof histo d$V.hprof failed"
    HISTO_ROWS=$(awk '$4 ~ /^LambdaDemo\$\$Lambda/ { print $4, $2 }' d$V.histo | sort -k2,2n)
    expect_rows "d$V.histo" "$HISTO_ROWS" "$HOTSPOT_RE"
    expect_eq "agent and HotSpot spell the lambdas alike" "$(spelled "$TEXT_ROWS")" "$(spelled "$HISTO_ROWS")"
    "$HPROF" histo --normalize d$V.hprof >d$V.nhisto || fail "hprof histo --normalize failed"
    expect_eq "histo --normalize: one merged row" "LambdaDemo\$\$Lambda+<hidden> $((A_N + B_N))" \
        "$(awk '$4 ~ /^LambdaDemo\$\$Lambda/ { print $4, $2 }' d$V.nhisto)"
done
echo "PASS"
