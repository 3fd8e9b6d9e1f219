#!/usr/bin/env bash
# Runs every test from scratch: installs missing packages, then
#  1. a normal build (-Wall -Wextra -Werror) and every ctest test (unit + integration),
#     then the stress suite (tests/stress/, STRESS_TIER=quick, or long),
#  2. an ASan+UBSan build, the unit tests and the tools' integration tests
#     (hprof, hprof-ctl) under it; then the same sanitizers with clang (every
#     target built, the agent against clang's shared runtime) and the unit
#     tests under them (about 20 s: clang's UBSan checks what gcc's does not),
#  3. a libFuzzer build and short fuzz runs of the reader and verifier, the
#     agent's options, the net= command codec, the converter, the text
#     assembler and the text round trip (asm(disasm(X)) == X), hprof-ctl's
#     parsers, the redactor and the heap graph (dominators, paths).
# Build trees go to build/test, build/asan, build/clang-asan, build/fuzz
# (recreated each run).
# FUZZ_SECONDS (default 30) sets the fuzz run's length.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=$(nproc 2>/dev/null || echo 2)

# stage TEXT: a stage's heading, with the minutes and seconds since the start
stage() { printf '== %s [%d:%02d]\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }

scripts/deps.sh

stage "1/3: build and run all tests"
rm -rf build/test
cmake -S . -B build/test -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/test -j"$jobs"
(cd build/test && ctest --output-on-failure -j"$jobs")
n_main=$(cd build/test && ctest -N | sed -n 's/^Total Tests: //p')

stage "stress (${STRESS_TIER:-quick} tier): real JVMs that once froze, each case several runs per JDK"
# the scripts side by side (each runs its JVMs one at a time; every run's
# deadline is 10-40 times its normal length): logs printed when all are done
n_stress=0
pids=() names=()
for st in tests/stress/stress_*.sh; do
    [ "$(basename "$st")" = stress_lib.sh ] && continue
    name=$(basename "$st" .sh)
    bash "$st" "$root/build/test/tools/hprof" "$root" "$root/build/test/$name.work" \
        "$root/build/test/agent/libhprof.so" "$root/build/test/tools/hprof-ctl" \
        >"build/test/$name.log" 2>&1 &
    pids+=($!) names+=("$name")
done
failed=""
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed="$failed ${names[$i]}"
done
for name in "${names[@]}"; do
    log=build/test/$name.log
    cat "$log"
    case " $failed " in *" $name "*) continue ;; esac
    n=$(sed -n 's/^\([0-9][0-9]*\) passed, 0 failed$/\1/p' "$log" | tail -1)
    [ -n "$n" ] || { echo "stress: $name printed no result line" >&2; exit 1; }
    n_stress=$((n_stress + n))
done
if [ -n "$failed" ]; then
    for name in $failed; do echo "stress: $name failed (its log: build/test/$name.log)" >&2; done
    exit 1
fi

stage "2/3: unit tests, and the tools' integration tests (hprof, hprof-ctl), under ASan + UBSan"
rm -rf build/asan
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DHPROF_SANITIZE=ON >/dev/null
cmake --build build/asan -j"$jobs"
(cd build/asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -L unit -j"$jobs")
# the tools parse whatever they are given: their integration tests (garbage
# and cut streams for hprof-ctl, the corpus for hprof print) under ASan too
tools_re='^integration[.]test_(ctl|fixture|print)$'
(cd build/asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -R "$tools_re" -j"$jobs")
n_asan=$(cd build/asan && { ctest -N -L unit; ctest -N -R "$tools_re"; } | sed -n 's/^Total Tests: //p' |
         awk '{ s += $1 } END { print s }')
stage "2/3 (clang): the unit tests under clang's ASan + UBSan"
rm -rf build/clang-asan
CC=clang cmake -S . -B build/clang-asan -DCMAKE_BUILD_TYPE=Debug -DHPROF_SANITIZE=ON >/dev/null
cmake --build build/clang-asan -j"$jobs"
(cd build/clang-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -L unit -j"$jobs")
n_asan=$((n_asan + $(cd build/clang-asan && ctest -N -L unit | sed -n 's/^Total Tests: //p')))

stage "3/3: libFuzzer run of the reader and verifier (${FUZZ_SECONDS:-30} s)"
rm -rf build/fuzz
CC=clang cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHPROF_FUZZ=ON -DHPROF_TESTS=ON \
  >/dev/null
cmake --build build/fuzz -j"$jobs" --target fuzz_reader fuzz_opts fuzz_cmd fuzz_convert fuzz_asm \
  fuzz_asm_roundtrip fuzz_ctl fuzz_redact fuzz_textprof fuzz_heapgraph fuzz_report fuzz_histo fuzz_hsattach
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
F=build/fuzz/tests/fuzz
# Two lanes side by side (each fuzzer is one thread; jobs CPUs): every run
# and its length as before, the stage's wall time about halved. A lane
# stops at its first failure (set -e in its subshell); its log is printed
# when both are done, and either lane's failure fails the stage.
lane1() {
    set -euo pipefail
    # inputs that once crashed or misled the reader: each must now run clean
    $F/fuzz_reader tests/fuzz/crashes/* 2>&1 | tail -n 2
    mkdir -p "$work/reader"
    cp -r "$root"/tests/fuzz/corpus/. "$work/reader"/ 2>/dev/null || true
    $F/fuzz_reader -max_total_time="${FUZZ_SECONDS:-30}" -max_len=65536 \
      -artifact_prefix="$work/" -print_final_stats=1 "$work/reader" 2>&1 | tail -n 12
    echo "fuzz: no crash in ${FUZZ_SECONDS:-30} s (reader, verifier)"
    mkdir -p "$work/opts"
    $F/fuzz_opts -max_total_time=10 -artifact_prefix="$work/" "$work/opts" 2>&1 | tail -n 2
    echo "fuzz: no crash in 10 s (agent options)"
    mkdir -p "$work/cmd"
    $F/fuzz_cmd -max_total_time=10 -artifact_prefix="$work/" "$work/cmd" 2>&1 | tail -n 2
    echo "fuzz: no crash in 10 s (net= command codec)"
    # the converter: its first byte picks the options (fuzz_convert.c), so the
    # seeds are the corpus and the crashes behind a few such bytes
    mkdir -p "$work/convert"
    for f in "$root"/tests/fuzz/corpus/* "$root"/tests/fuzz/crashes/*; do
        for b in 00 01 06 09 16 25 42 8a; do
            { printf "\\x$b"; cat "$f"; } >"$work/convert/$b-$(basename "$f")"
        done
    done
    $F/fuzz_convert -max_total_time=10 -max_len=65536 -artifact_prefix="$work/" \
      "$work/convert" 2>&1 | tail -n 2
    echo "fuzz: no crash in 10 s (converter)"
    mkdir -p "$work/asm"
    $F/fuzz_asm -max_total_time=10 -artifact_prefix="$work/" "$work/asm" 2>&1 | tail -n 2
    echo "fuzz: no crash in 10 s (text assembler)"
    mkdir -p "$work/rt"
    cp -r "$root"/tests/fuzz/corpus/. "$root"/tests/fuzz/crashes/. "$work/rt"/ 2>/dev/null || true
    $F/fuzz_asm_roundtrip -max_total_time=10 -max_len=65536 -artifact_prefix="$work/" \
      "$work/rt" 2>&1 | tail -n 2
    echo "fuzz: asm(disasm(X)) == X for 10 s of inputs (text round trip)"
}
lane2() {
    set -euo pipefail
    mkdir -p "$work/ctl"
    cp -r "$root"/tests/fuzz/corpus/. "$work/ctl"/ 2>/dev/null || true
    $F/fuzz_ctl -max_total_time=10 -max_len=65536 -artifact_prefix="$work/" \
      "$work/ctl" 2>&1 | tail -n 2
    echo "fuzz: no crash in 10 s (hprof-ctl's stream receiver, scanner and command parser)"
    mkdir -p "$work/redact"
    cp -r "$root"/tests/fuzz/corpus/. "$work/redact"/ 2>/dev/null || true
    $F/fuzz_redact tests/fuzz/crashes/* 2>&1 | tail -n 2
    $F/fuzz_redact -max_total_time=10 -max_len=65536 -artifact_prefix="$work/" \
      "$work/redact" 2>&1 | tail -n 2
    echo "fuzz: no crash in 10 s (redact)"
    mkdir -p "$work/heapgraph"
    cp -r "$root"/tests/fuzz/corpus/. "$work/heapgraph"/ 2>/dev/null || true
    $F/fuzz_heapgraph -max_total_time=10 -max_len=65536 -artifact_prefix="$work/" \
      "$work/heapgraph" 2>&1 | tail -n 2
    echo "fuzz: no crash in 10 s (heap graph, dominators, paths)"
    # the agent's text layout (textprof/), seeded with the JDK 8 layout fixture
    mkdir -p "$work/textprof"
    cp "$root"/tests/fixtures/jdk8-java.hprof.txt "$work/textprof"/
    $F/fuzz_textprof tests/fuzz/crashes/textprof-* 2>&1 | tail -n 2
    $F/fuzz_textprof -max_total_time=10 -max_len=65536 -artifact_prefix="$work/" \
      "$work/textprof" 2>&1 | tail -n 2
    echo "fuzz: no crash in 10 s (text layout reader)"
    # the report's data (any bytes as a profile and as a diff) and the class
    # histogram with the Java names hprof diff builds, on the reader's corpus
    mkdir -p "$work/report" "$work/histo"
    cp -r "$root"/tests/fuzz/corpus/. "$root"/tests/fixtures/jdk8-java.hprof.txt "$work/report"/ 2>/dev/null || true
    $F/fuzz_report -max_total_time=10 -max_len=65536 -artifact_prefix="$work/" \
      "$work/report" 2>&1 | tail -n 2
    echo "fuzz: no crash in 10 s (report data)"
    cp -r "$root"/tests/fuzz/corpus/. "$work/histo"/ 2>/dev/null || true
    $F/fuzz_histo -max_total_time=10 -max_len=65536 -artifact_prefix="$work/" \
      "$work/histo" 2>&1 | tail -n 2
    echo "fuzz: no crash in 10 s (class histogram, diff names)"
    # the agent's attach client: the listener's reply and a quoted path
    mkdir -p "$work/hsattach"
    $F/fuzz_hsattach -max_total_time=10 -max_len=4096 -artifact_prefix="$work/" \
      "$work/hsattach" 2>&1 | tail -n 2
    echo "fuzz: no crash in 10 s (attach client: replies, quoting)"
}
lane1 >"$work/lane1.log" 2>&1 &
p1=$!
lane2 >"$work/lane2.log" 2>&1 &
p2=$!
r1=0 r2=0
wait $p1 || r1=$?
wait $p2 || r2=$?
cat "$work/lane1.log" "$work/lane2.log"
if [ $r1 != 0 ] || [ $r2 != 0 ]; then
    echo "fuzz: a lane failed (lane 1: exit $r1, lane 2: exit $r2); an input that crashed is in the lines above" >&2
    exit 1
fi
n_fuzz=$(cat "$work/lane1.log" "$work/lane2.log" | grep -cE '^fuzz: (no crash|asm)')
[ "$n_fuzz" = 13 ] || { echo "fuzz: $n_fuzz runs said they passed, 13 expected" >&2; exit 1; }

stage "all tests passed"
echo "== $n_main built normally, $n_stress stress cases, $n_asan under ASan+UBSan (gcc and clang), 13 fuzz runs"
echo "$((n_main + n_stress + n_asan + 13)) passed, 0 failed"
