#!/usr/bin/env bash
# run.sh: the writer/reader benchmark, side by side with the disk's own ceiling.
#
# Owns one benchmark run: builds bench_writer and hprof (Release, in
# build-bench, or uses the build dir given as $1), then measures, REPS times
# each (default 5), interleaved round by round so that the load of this
# shared 2-core machine falls on every measurement alike:
#   dd 1 GiB into the page cache (and with conv=fdatasync), the ceiling;
#   bench_writer into a file, io_thread=0 and io_thread=1;
#   bench_writer reading that file back (hr_parse, every sub-record counted);
#   hprof info on the cached file;
# and, in one process each (the memory sink's pages are faulted in once,
# see bench_writer.c): the writer into memory (warm and --cold), into a
# discarding sink, and the synthetic heap alone. Prints medians and the
# ratios the targets are about. Temp files go to $BENCH_DIR or a mktemp -d
# in /tmp; the 1 GiB files are deleted at the end.
#
# Usage: bench/run.sh [BUILD_DIR]     env: REPS=5 SIZE=1073741824 BENCH_DIR=
set -euo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-5}
SIZE=${SIZE:-1073741824}
MIB=$((SIZE / 1048576))

if [ $# -ge 1 ]; then
    BUILD=$(cd "$1" && pwd)
else
    BUILD=$ROOT/build-bench
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD" --target bench_writer -j2 >/dev/null
BW=$BUILD/bench/bench_writer
HPROF=$BUILD/tools/hprof
if ! cmake --build "$BUILD" --target hprof -j2 >/dev/null 2>&1; then
    echo "note: the hprof target does not build; 'hprof info' is skipped" >&2
    HPROF=
fi

if [ -n "${BENCH_DIR:-}" ]; then
    DIR=$BENCH_DIR
    mkdir -p "$DIR"
    OWN_DIR=0
else
    DIR=$(mktemp -d /tmp/hprof-bench.XXXXXX)
    OWN_DIR=1
fi
HP=$DIR/bench.hprof
RAW=$DIR/raw.txt
cleanup() {
    rm -f "$HP"
    if [ "$OWN_DIR" = 1 ]; then rm -rf "$DIR"; fi
}
trap cleanup EXIT
: >"$RAW"

# record NAME BYTES SECONDS: one sample, kept in $RAW
record() { echo "$1 $2 $3" >>"$RAW"; }

# settle: every timed write starts from a page cache with nothing dirty.
# Without it the kernel is still writing the previous GiB back (kworker CPU
# on 2 cores, dirty throttling).
#
# And every timed write follows an untimed one of the same kind (warm), the
# previous file being deleted only right before the next one is written
# (dd_secs; bench_writer unlinks its --out just before starting its clock).
# This VM hands free memory back to the host (page_reporting_order=11 on the
# kernel command line): a write into pages freed seconds before, or into
# memory the kernel has to find anew, pays a host fault per page. Measured:
# dd bs=1M after a dd, 0.27 s; after 'rm; sleep 3', 1.0-1.3 s; right after
# bench_writer's file was deleted, 0.7-1.9 s (why that file's pages serve dd
# worse than dd's own is not established; the warm-up makes it moot).
settle() { sync; }

# dd_secs [conv]: seconds dd takes to write SIZE bytes of zeros (its own
# count). It writes to the same path as the writer: see settle.
dd_secs() {
    rm -f "$HP"
    local out
    out=$(dd if=/dev/zero of="$HP" bs=1M count="$MIB" "$@" 2>&1 | grep copied)
    # "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 0.2887 s, 3.7 GB/s"
    echo "$out" | awk '{print $1, $(NF-3)}'
}

# bench ARGS...: runs bench_writer, records its measurement lines
bench() {
    "$BW" --size "$SIZE" --out "$HP" "$@" | while read -r name bytes _ secs _; do
        case $name in '#'*) continue ;; esac
        record "$name" "$bytes" "$secs"
    done
}

echo "hprof writer benchmark: $SIZE bytes, $REPS rounds, files in $DIR"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
"$BW" --size "$SIZE" --mode gen | grep '^# mix' || true

T0=$(date +%s)
for r in $(seq 1 "$REPS"); do
    printf 'round %d/%d ...' "$r" "$REPS"
    # warm-up, then the timed write: deleting the warm-up's file drops its
    # dirty pages unwritten, so no sync is needed in between
    settle; dd_secs >/dev/null
    read -r b s < <(dd_secs); record dd "$b" "$s"
    settle; dd_secs conv=fdatasync >/dev/null
    read -r b s < <(dd_secs conv=fdatasync); record dd-fdatasync "$b" "$s"
    for io in 0 1; do
        settle; "$BW" --size "$SIZE" --out "$HP" --mode file --io $io >/dev/null
        bench --mode file --io $io
    done
    settle; bench --mode read
    if [ -n "$HPROF" ]; then
        # "read in 0.352 s (3050 MB/s)"; bytes from "bytes:      N"
        out=$("$HPROF" info "$HP")
        b=$(echo "$out" | awk '/^bytes:/ {print $2}')
        s=$(echo "$out" | awk '/^read in/ {print $3}')
        record hprof-info "$b" "$s"
    fi
    echo " done"
done
echo "memory sink, discarding sink, generator alone ($REPS runs each) ..."
settle
bench --mode memory --repeat "$REPS"
bench --mode memory --repeat "$REPS" --cold
bench --mode null --repeat "$REPS"
bench --mode gen --repeat "$REPS"
T1=$(date +%s)

# Medians of seconds per name -> GB/s (bytes are the same in every sample).
awk -v reps="$REPS" '
function median(name,   n, i, j, t, a) {
    n = cnt[name]
    for (i = 1; i <= n; i++) a[i] = sec[name, i]
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function gbps(name) { return cnt[name] ? bytes[name] / median(name) / 1e9 : 0 }
function line(name, what,   m, lo, hi, i) {
    if (!cnt[name]) { printf "%-16s %-44s %s\n", name, what, "(not measured)"; return }
    m = median(name); lo = hi = sec[name, 1]
    for (i = 2; i <= cnt[name]; i++) { if (sec[name, i] < lo) lo = sec[name, i]; if (sec[name, i] > hi) hi = sec[name, i] }
    printf "%-16s %-44s %8.3f s %7.2f GB/s  [%.2f .. %.2f GB/s]\n", name, what, m, gbps(name),
           bytes[name] / hi / 1e9, bytes[name] / lo / 1e9
}
function verdict(ok) { return ok ? "MET" : "MISSED" }
{ name = $1; cnt[name]++; bytes[name] = $2; sec[name, cnt[name]] = $3 }
END {
    print ""
    printf "%-16s %-44s %10s %12s  %s\n", "measurement", "", "median", "", "[slowest .. fastest]"
    line("dd", "dd bs=1M into the page cache")
    line("dd-fdatasync", "dd bs=1M conv=fdatasync (to the disk)")
    line("file-sync", "writer -> file, io_thread=0")
    line("file-iothread", "writer -> file, io_thread=1")
    line("memory", "writer -> memory sink (pages pre-faulted)")
    line("memory-cold", "writer -> memory sink (fresh pages)")
    line("null", "writer -> discarding sink (encoding only)")
    line("gen", "synthetic heap alone, no writer")
    line("read", "hr_parse of the cached file, counting")
    line("hprof-info", "hprof info on the cached file")
    dd = gbps("dd"); fs = gbps("file-sync"); fi = gbps("file-iothread")
    print ""
    print "ratios and targets (medians):"
    if (dd > 0) {
        printf "  file write vs dd ceiling:  io_thread=0 %5.1f%%, io_thread=1 %5.1f%%   target >= 90%%: %s\n",
               100 * fs / dd, 100 * fi / dd, verdict(fi >= 0.9 * dd || fs >= 0.9 * dd)
    }
    printf "  memory sink:               %5.2f GB/s                           target >= 2 GB/s: %s\n",
           gbps("memory"), verdict(gbps("memory") >= 2)
    if (cnt["hprof-info"])
        printf "  hprof info:                %5.2f GB/s                           target >= 1 GB/s: %s\n",
               gbps("hprof-info"), verdict(gbps("hprof-info") >= 1)
    if (gbps("null") > 0 && gbps("gen") > 0)
        printf "  encoder alone (null minus generator time): %.2f GB/s\n",
               bytes["null"] / (median("null") - median("gen") * bytes["null"] / bytes["gen"]) / 1e9
}' "$RAW"
echo ""
echo "total benchmark time: $((T1 - T0)) s"
