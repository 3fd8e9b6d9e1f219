#!/usr/bin/env bash
# test_agent_options.sh: the agent's option contract on real JVMs (JDK 17 and
# 25, -Xcheck:jni): `help` (stdout, exit 0, every option listed) through
# -agentpath, -agentlib and -Xrunhprof; every bad value and bad combination
# (exit 1, `HPROF ERROR` naming the option), _JAVA_HPROF_OPTIONS, force=n
# naming (an existing file is kept, the new name has the pid), force=y
# overwriting, an output path that cannot be written (HPROF ERROR naming
# the path, the JVM does not start: exit 1), and the text heap dump, once
# refused at start-up, now accepted: no options at all (heap=all, format=a)
# and heap=dump,format=a run and write one HEAP DUMP section each.
#
# usage: bash test_agent_options.sh HPROF_TOOL PROJECT_DIR WORKDIR AGENT_SO   (run by ctest)
# Env: HPROF_TEST_JDKS, HPROF_TEST_KEEP_GOING=1 (see test_agent_sites.sh).
set -euo pipefail

# shellcheck source=agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" "$@"

# ---------------------------------------------------------------- the test
compile SitesDemo
AGENT_DIR=$(dirname "$AGENT")
OPTIONS="heap cpu monitor format file net depth interval cutoff lineno thread doe msa force verbose redact sample idsize shape gzip gc_okay"

# bad OPTSTRING NAME: the JVM refuses to start (exit 1) with an HPROF ERROR naming NAME
bad() {
    local opts=$1 name=$2 n
    BADN=$((BADN + 1))
    n=bad$V-$BADN
    jrun $n 1 allow "-agentpath:$AGENT=$opts" -cp classes SitesDemo 1 1 1 1
    grep -q "HPROF ERROR" $n.err || fail "'$opts': no HPROF ERROR on stderr: $(head -3 $n.err)"
    grep "HPROF ERROR" $n.err | grep -qF -- "$name" ||
        fail "'$opts': the HPROF ERROR does not name '$name': $(grep "HPROF ERROR" $n.err | head -2)"
    if grep -q '^ready' $n.out; then fail "'$opts': the program ran despite the bad option"; fi
    echo "   refused: $opts -> $(grep -m1 "HPROF ERROR" $n.err | cut -c1-110)"
}

for JDK in $FOUND_JDKS; do
    JAVA=$JDK/bin/java
    V=$("$JAVA" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
    CTX="JDK $V"
    BADN=0

    step "help: usage on stdout, exit 0, every option listed"
    jrun help$V 0 no "-agentpath:$AGENT=help" -cp classes SitesDemo 1 1 1 1
    [ -s help$V.out ] || fail "help printed nothing on stdout"
    if grep -q '^ready' help$V.out; then fail "help: the program ran after the usage text"; fi
    for o in $OPTIONS; do
        grep -qE "(^|[^a-z_])$o=" help$V.out || fail "help does not list the option $o="
    done
    for word in Usage Default Examples; do
        grep -qi "$word" help$V.out || fail "help has no '$word' part"
    done
    LD_LIBRARY_PATH=$AGENT_DIR jrun helplib$V 0 no "-agentlib:hprof=help" -version
    cmp -s help$V.out helplib$V.out || fail "-agentlib:hprof=help (LD_LIBRARY_PATH) prints a different text"
    LD_LIBRARY_PATH=$AGENT_DIR jrun helpxrun$V 0 no "-Xrunhprof:help" -version
    cmp -s help$V.out helpxrun$V.out || fail "-Xrunhprof:help prints a different text"
    echo "   ok: $(wc -l <help$V.out) lines, the same through -agentpath, -agentlib and -Xrunhprof"

    step "every bad value: exit 1, HPROF ERROR naming the option"
    bad heap=foo heap
    bad heap= heap
    bad cpu=fast cpu
    bad monitor=maybe monitor
    bad format=c format
    bad file= file
    bad "file=$WORK/a.txt,file=$WORK/b.txt" file
    bad net=localhost net
    bad net=localhost:notaport net
    bad depth=-1 depth
    bad depth=deep depth
    bad interval=0 interval
    bad interval=ten interval
    bad cutoff=2 cutoff
    bad cutoff=abc cutoff
    bad lineno=yes lineno
    bad thread=1 thread
    bad doe=x doe
    bad msa=x msa
    bad force=x force
    bad verbose=x verbose
    bad sample=lots sample
    bad sample=-5 sample
    bad idsize=3 idsize
    bad shape=jvmti shape
    bad gzip=9 gzip
    bad gc_okay=x gc_okay
    bad logflags=zz logflags
    bad exitpause=y exitpause
    bad bogus=1 bogus
    bad heap=sites,, "empty option"
    bad help,heap=sites help
    step "bad combinations: format=b with cpu=times, cpu=old, monitor=y"
    bad format=b,cpu=times cpu=times
    bad cpu=old,format=b cpu=old
    bad format=b,monitor=y monitor=y
    bad gzip=y,net=localhost:9 "gzip=y cannot be combined with net="
    step "_JAVA_HPROF_OPTIONS is appended to the options"
    _JAVA_HPROF_OPTIONS=depth=deep bad heap=sites,file=$WORK/env.txt depth
    _JAVA_HPROF_OPTIONS=depth=1 jrun env$V 0 no "-agentpath:$AGENT=heap=sites,file=$WORK/env$V.txt" -cp classes SitesDemo 2 100 1 1
    awk '/^TRACE [0-9]+:/ {n = 0; next} /^\t/ {if (++n > 1) bad = 1} END {exit bad}' env$V.txt ||
        fail "_JAVA_HPROF_OPTIONS=depth=1: traces with more than 1 frame in env$V.txt"

    step "an output path that cannot be written: HPROF ERROR naming it, exit 1"
    jrun nopath$V 1 allow "-agentpath:$AGENT=heap=sites,file=/nonexistent/dir/x" -cp classes SitesDemo 1 1 1 1
    grep "HPROF ERROR" nopath$V.err | grep -qF "/nonexistent/dir/x" ||
        fail "file=/nonexistent/dir/x: expected an HPROF ERROR naming the path, stderr: $(head -3 nopath$V.err)"
    if grep -q '^ready' nopath$V.out; then fail "file=/nonexistent/dir/x: the program ran"; fi
    mkdir -p adir
    jrun dirpath$V 1 allow "-agentpath:$AGENT=heap=sites,format=b,file=$WORK/adir" -cp classes SitesDemo 1 1 1 1
    grep "HPROF ERROR" dirpath$V.err | grep -qF "$WORK/adir" ||
        fail "file=<a directory>: expected an HPROF ERROR naming it, stderr: $(head -3 dirpath$V.err)"
    echo "   ok: $(grep -m1 "HPROF ERROR" nopath$V.err)"

    step "force=n: an existing file is kept, the output gets a name with the pid"
    mkdir -p f$V
    for fmt in a b; do
        if [ $fmt = a ]; then base=out.txt; else base=out.hprof; fi
        echo "keep me" >f$V/$base
        rc=0
        "$JAVA" -Xcheck:jni "-agentpath:$AGENT=heap=sites,format=$fmt,force=n,file=$WORK/f$V/$base" \
            -cp classes SitesDemo 1 10 1 1 >force$V$fmt.out 2>force$V$fmt.err &
        pid=$!
        wait $pid || rc=$?
        expect_eq "force=n,format=$fmt: exit status" 0 $rc
        expect_eq "force=n,format=$fmt: the existing $base" "keep me" "$(cat f$V/$base)"
        new=$(ls f$V | grep -v "^$base\$" | grep -F "$pid" || true)
        [ "$(echo "$new" | grep -c .)" = 1 ] ||
            fail "force=n,format=$fmt: expected one new file with the pid $pid in its name, found: $(ls f$V | tr '\n' ' ')"
        echo "   ok: format=$fmt: $base kept, wrote $new"
        if [ $fmt = a ]; then
            grep -q '^SITES END$' "f$V/$new" || fail "force=n: $new has no SITES section"
        else
            "$HPROF" verify "f$V/$new" >/dev/null 2>&1 || fail "force=n: hprof verify $new failed"
        fi
        rm -f f$V/*
    done
    step "force=y (the default) overwrites"
    echo "old" >ow$V.txt
    jrun ow$V 0 no "-agentpath:$AGENT=heap=sites,file=$WORK/ow$V.txt" -cp classes SitesDemo 1 10 1 1
    head -1 ow$V.txt | grep -q '^JAVA PROFILE 1.0.1' || fail "force=y: ow$V.txt was not overwritten: $(head -1 ow$V.txt)"
    step "the default file name: java.hprof.txt, java.hprof"
    mkdir -p def$V
    (cd def$V && jrun ../def$V/a 0 no "-agentpath:$AGENT=heap=sites" -cp ../classes SitesDemo 1 10 1 1)
    (cd def$V && jrun ../def$V/b 0 no "-agentpath:$AGENT=heap=sites,format=b" -cp ../classes SitesDemo 1 10 1 1)
    [ -s def$V/java.hprof.txt ] && [ -s def$V/java.hprof ] || fail "default names: found $(ls def$V | tr '\n' ' ')"

    step "no options at all (heap=all, format=a) and heap=dump,format=a: accepted, a text heap dump"
    mkdir -p none$V
    (cd none$V && jrun ../none$V/run 0 no "-agentpath:$AGENT" -cp ../classes SitesDemo 1 10 1 1)
    grep -q '^ready' none$V/run.out || fail "no options: the program did not run: $(head -3 none$V/run.err)"
    expect_eq "no options: HEAP DUMP BEGIN lines" 1 "$(grep -c '^HEAP DUMP BEGIN (' none$V/java.hprof.txt || true)"
    expect_eq "no options: HEAP DUMP END lines" 1 "$(grep -cx 'HEAP DUMP END' none$V/java.hprof.txt || true)"
    expect_eq "no options: SITES sections" 1 "$(grep -c '^SITES BEGIN (' none$V/java.hprof.txt || true)"
    jrun hdtext$V 0 no "-agentpath:$AGENT=heap=dump,format=a,file=$WORK/hdtext$V.txt" -cp classes SitesDemo 1 10 1 1
    expect_eq "heap=dump,format=a: HEAP DUMP sections" 1 "$(grep -cx 'HEAP DUMP END' hdtext$V.txt || true)"
    expect_eq "heap=dump,format=a: SITES sections" 0 "$(grep -c '^SITES BEGIN' hdtext$V.txt || true)"
    grep -q '^OBJ [0-9a-f]* (sz=[0-9]*, trace=300000, class=java.lang.String@[0-9a-f]*)$' hdtext$V.txt ||
        fail "heap=dump,format=a: no OBJ line of a String"
    echo "   ok: both ran; one HEAP DUMP section each, SITES only with heap=all"
done
CTX=""
if [ "$FAILURES" -gt 0 ]; then
    echo "$FAILURES failure(s)" >&2
    exit 1
fi
echo "all agent option checks passed on:$FOUND_JDKS"
