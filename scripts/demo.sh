#!/usr/bin/env bash
# The demo: builds everything, runs a small Java program (demo-java/AllocDemo:
# 4 threads x 25000 Payload objects kept, 4 x 25000 Temp objects dropped)
# under the agent with heap=sites, and shows the allocation sites it found,
# in text and in binary (read back with the hprof tool); then a live session:
# the JVM sends its profile to hprof-ctl over a socket (net=) and hprof-ctl
# asks it for sites, a heap summary and a heap dump while it runs; last, a
# run with CPU sampling too, turned into one HTML page (hprof report: flame
# graphs of the CPU and of the allocations, the tables), whose path it
# prints last.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "demo: scripts/deps.sh installs with apt-get whatever is missing of what the build and the"
echo "      tests use: CUnit, zlib, pkg-config, clang, VisualVM (its heap library), python3, gdb, time, groff, man-db,"
echo "      chromium and node (the report's browser tests)"
scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DHPROF_TESTS=OFF >/dev/null
cmake --build build/demo -j"$jobs" --target hprof hprof_agent hprof-ctl >/dev/null
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
echo
echo "--- live control: hprof-ctl listens, the agent connects (net=), commands go to the running JVM ---"
"$JAVA_HOME/bin/javac" -d "$out" demo-java/NetDemo.java
ctl=$PWD/build/demo/tools/hprof-ctl
rm -f "$out"/port
printf 'wait-agents 1\nsleep 1500\nsites cutoff 0.05\nwait ALLOC SITES\nsummary\nwait HEAP SUMMARY\ndump\nwait HEAP DUMP\nexit\n' >"$out"/cmds
echo "\$ hprof-ctl listen 0 --port-file port --out live.hprof --script cmds   # (cmds: sites, summary, dump, exit)"
"$ctl" listen 0 --loopback --port-file "$out"/port --out "$out"/live.hprof --script "$out"/cmds --timeout 60 </dev/null \
  | grep -vE '^\[1\] (START|END) THREAD' &
ctl_pid=$!
for _ in $(seq 1 100); do [ -s "$out"/port ] && break; sleep 0.1; done
echo "\$ java -agentpath:$agent=net=localhost:$(cat "$out"/port),heap=all,format=b -cp $out NetDemo   # allocates 5000 Blobs, waits"
rm -f "$out"/in && mkfifo "$out"/in
"$JAVA_HOME/bin/java" -agentpath:"$agent"=net=localhost:"$(cat "$out"/port)",heap=all,format=b,verbose=n \
  -cp "$out" NetDemo <"$out"/in >/dev/null &
java_pid=$!
exec 9>"$out"/in
echo "alloc 5000" >&9
wait $java_pid || true # ended by hprof-ctl's exit
exec 9>&-
wait $ctl_pid || true
echo "\$ hprof histo live.hprof   # the dump taken on command"
"$hprof" histo "$out"/live.hprof | sed -n '1,6p'
echo
echo "--- the report: one HTML page, flame graphs of the CPU and of the allocations, the tables ---"
echo "\$ java -agentpath:$agent=heap=sites,cpu=samples,interval=1,depth=12,cutoff=0,file=$out/profile.txt -cp $out AllocDemo"
"$JAVA_HOME/bin/java" -agentpath:"$agent"=heap=sites,cpu=samples,interval=1,depth=12,cutoff=0,file="$out"/profile.txt,verbose=n \
  -cp "$out" AllocDemo >/dev/null
echo "\$ hprof report profile.txt -o report.html"
"$hprof" report "$out"/profile.txt -o "$out"/report.html
echo "open it in any browser (it needs no network):"
echo "$out/report.html"
