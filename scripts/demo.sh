#!/usr/bin/env bash
# The demo: builds everything, then writes an HPROF heap dump with the
# library and shows what the `hprof` tool reads in it.
# (Until the JVMTI agent lands, the dump is a generated fixture.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh >/dev/null
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
cmake --build build/demo -j"$(nproc 2>/dev/null || echo 2)" --target hprof >/dev/null
hprof=build/demo/tools/hprof
out=build/demo/demo.hprof

echo "\$ hprof fixture $out --objects 20000"
$hprof fixture "$out" --objects 20000
echo
echo "\$ hprof info $out"
$hprof info "$out"
echo
echo "\$ hprof histo --top 12 $out"
$hprof histo --top 12 "$out"
echo
echo "\$ hprof verify $out"
$hprof verify "$out"
