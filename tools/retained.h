/*
 * retained.h (tools): the front end of `hprof retained`, over libhprofheap
 * (heapgraph/hg_dom.h).
 */
#ifndef HPROF_TOOLS_RETAINED_H
#define HPROF_TOOLS_RETAINED_H

/* `hprof retained FILE [--top N] [--json] [--no-weak] [--max-memory SIZE]`; argv[0] is
 * "retained". Returns the exit status: 0, 1 input problem, 2 usage. */
int retained_main(int argc, char **argv);

#endif
