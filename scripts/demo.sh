#!/usr/bin/env bash
# The demo: builds everything, runs a small Java program (demo-java/AllocDemo:
# 4 threads x 25000 Payload objects kept, 4 x 25000 Temp objects dropped)
# under the agent with heap=sites, and shows the allocation sites it found,
# in text and in binary (read back with the hprof tool).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
cmake --build build/demo -j"$jobs" --target hprof hprof_agent >/dev/null
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
agent=$PWD/build/demo/agent/libhprof.so
hprof=$PWD/build/demo/tools/hprof
out=$PWD/build/demo/run
rm -rf "$out" && mkdir -p "$out"
"$JAVA_HOME/bin/javac" -d "$out" demo-java/AllocDemo.java

echo "\$ java -agentpath:$agent=heap=sites,file=$out/java.hprof.txt -cp $out AllocDemo"
"$JAVA_HOME/bin/java" -agentpath:"$agent"=heap=sites,file="$out"/java.hprof.txt -cp "$out" AllocDemo
echo
echo "--- the top of the SITES section, then the traces of its first three rows ---"
awk '/^SITES BEGIN/ {on = 1} on && n < 8 {print; n++}' "$out"/java.hprof.txt
traces=$(awk '/^SITES BEGIN/ {on = 1; next} on && $1 ~ /^[0-9]+$/ && $1 <= 3 {print $8}' "$out"/java.hprof.txt)
for t in $traces; do
  awk -v want="TRACE $t:" '$0 == want {on = 1; print; next} on && /^\t/ {print; next} {on = 0}' \
    "$out"/java.hprof.txt
done
echo
echo "\$ java -agentpath:$agent=heap=sites,format=b,file=$out/java.hprof ... ; hprof verify; hprof info"
"$JAVA_HOME/bin/java" -agentpath:"$agent"=heap=sites,format=b,file="$out"/java.hprof,verbose=n -cp "$out" AllocDemo >/dev/null
"$hprof" verify "$out"/java.hprof
"$hprof" info "$out"/java.hprof | sed -n '1,20p'
