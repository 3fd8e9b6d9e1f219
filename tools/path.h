/*
 * path.h (tools): the front end of `hprof path`, over libhprofheap
 * (heapgraph/hg_path.h).
 */
#ifndef HPROF_TOOLS_PATH_H
#define HPROF_TOOLS_PATH_H

/* `hprof path FILE CLASS|ID [--top N] [--json] [--weak] [--max-memory SIZE]`;
 * argv[0] is "path". Returns the exit status: 0, 1 input problem, 2 usage. */
int path_main(int argc, char **argv);

#endif
