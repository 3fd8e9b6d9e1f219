#!/usr/bin/env python3
"""gen_report_perf.py: writes a java.hprof.txt (the agent's text layout) whose
CPU SAMPLES hold N distinct stacks (default 100 000), for the size and speed
case of `hprof report` (docs/report.md): a thread's run() at the root, then
DEPTH - 1 levels each chosen among WIDTH methods (WIDTH ** (DEPTH - 1) >= N),
so the flame graph has N leaves under a realistic fan-out; counts are
deterministic (1 + i * 7919 % 50).

usage: gen_report_perf.py OUT.txt [N [DEPTH [WIDTH]]]   (defaults 100000, 6, 12)
Then: hprof report OUT.txt -o perf.html
"""
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    depth = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    width = int(sys.argv[4]) if len(sys.argv) > 4 else 12
    if width ** (depth - 1) < n:
        sys.exit("WIDTH ** (DEPTH - 1) must be at least N")
    counts = []
    with open(out, "w", encoding="ascii") as f:
        f.write("JAVA PROFILE 1.0.1, created Fri Nov 27 05:00:00 2026\n\n"
                "A generated profile: %d distinct stacks (scripts/gen_report_perf.py).\n"
                "\n--------\n\n" % n)
        f.write('THREAD START (obj=50000001, id = 200001, name="worker", group="main")\n')
        for i in range(n):
            frames = []
            x = i
            for level in range(depth - 1, 0, -1):
                k = x % width
                x //= width
                frames.append("com.example.p%d.C%d.m%d(C%d.java:%d)" % (level, k, k, k, 10 * level + k))
            frames.append("java.lang.Thread.run(Thread.java:840)")
            f.write("TRACE %d: (thread=200001)\n" % (300001 + i))
            for fr in frames:
                f.write("\t%s\n" % fr)
            counts.append((1 + i * 7919 % 50, 300001 + i, frames[0].split("(")[0]))
        total = sum(c for c, _, _ in counts)
        counts.sort(key=lambda r: (-r[0], r[1]))
        f.write("CPU SAMPLES BEGIN (total = %d) Fri Nov 27 05:00:01 2026\n" % total)
        f.write("rank   self  accum   count trace method\n")
        acc = 0
        for rank, (c, t, m) in enumerate(counts, 1):
            acc += c
            f.write("%4d %5.2f%% %5.2f%% %7d %5d %s\n" % (rank, 100.0 * c / total, 100.0 * acc / total, c, t, m))
        f.write("CPU SAMPLES END\n")


if __name__ == "__main__":
    main()
