/*
 * fixture.h: `hprof fixture OUT [options]`, a deterministic HPROF file that
 * exercises every record and heap sub-record libhprofwriter can write.
 *
 * Owns the fixture's object graph and its documented counts, which tests
 * (tests/integration/test_fixture.sh, test_visualvm.sh) assert against an
 * independent reader. For `--objects N` (default 1000) the heap holds,
 * whatever the id size, version, names or seed:
 *
 *   com/example/fixture/Node      N
 *   com/example/fixture/SubNode   N / 20          (integer division)
 *   com/example/fixture/Marker    3               (held only by JAVA FRAME roots)
 *   java/lang/String              16 + N/10 + 41  (random + fixed strings)
 *   java/lang/Thread 4, java/lang/ThreadGroup 2, java/lang/Class 9 (primitive
 *   mirrors), java/util/Properties 1, ConcurrentHashMap 1, ConcurrentHashMap$Node 8
 *   [Lcom/example/fixture/Node;   1, of length N + N/20 + 3 + N/8 (trailing nulls)
 *   [I 6, [Z [C [F [D [S [J 3 each, [B 3 + one per String, [[I 1,
 *   [Ljava/lang/Object; 4, [Ljava/lang/String; 1, [L...ConcurrentHashMap$Node; 1
 *   33 classes with a CLASS DUMP (plus one LOAD CLASS that is later unloaded)
 *   42 GC roots (49 with --android): 3 THREAD OBJECT, 4 JAVA FRAME, 1 JNI LOCAL,
 *   1 NATIVE STACK, 1 THREAD BLOCK, 1 MONITOR USED, 2 JNI GLOBAL,
 *   28 STICKY CLASS, 1 UNKNOWN (+ 0x89-0x8E and 0x90 with --android)
 *   threads "main" (2 frames), "worker-1" (5 frames), "worker-2" (4 frames)
 *   System.props: java.version=17.0.15, hprof.fixture.objects=N, ...
 *
 * Big primitive arrays have min(N, 1048576) elements.
 *
 * Deliberate departures from HotSpot's shape: the empty TRACE serial 1 comes
 * before the LOAD CLASS records (HotSpot writes it after them; `hprof verify`
 * wants every trace serial defined before use); the legacy records of the
 * original agent (CONTROL SETTINGS, START/END THREAD, UNLOAD CLASS, ALLOC
 * SITES, HEAP SUMMARY, CPU SAMPLES) are present; java/lang/Object's CLASS
 * DUMP says instance size 16, so VisualVM can size objects with 8-byte ids.
 * With --android the file holds ROOT JNI MONITOR (0x8E) in ART's layout (id,
 * u4 thread, u4 frame), which VisualVM 2.1.5 misreads as an id alone: such
 * files are for Android tooling (hprof-conv, shark, perflib), not VisualVM.
 */
#ifndef HPROF_TOOLS_FIXTURE_H
#define HPROF_TOOLS_FIXTURE_H

/* argv[0] is "fixture". Returns 0 (written), 1 (write failed) or 2 (usage). */
int fixture_main(int argc, char **argv);

#endif /* HPROF_TOOLS_FIXTURE_H */
