/*
 * heapcmd.h: what `hprof retained` and `hprof path` share (tools/retained.c,
 * tools/path.c): loading the graph with the user's messages, the notes on
 * what was skipped, JSON strings, the --max-memory size.
 */
#ifndef HPROF_TOOLS_HEAPCMD_H
#define HPROF_TOOLS_HEAPCMD_H

#include <stdint.h>
#include <stdio.h>

#include "heapgraph/hg_graph.h"

/* Opens `path` ("-": standard input, which must be a file to be read
 * twice) and loads its graph; on failure prints "hprof: CMD: ..." and
 * returns NULL with *status the exit status (1). *src and *fd are left open
 * for later passes: close them with heapcmd_close. */
hg_graph *heapcmd_load(const char *cmd, const char *path, const hg_load_opts *o,
                       hg_load_stats *st, hr_source **src, int *fd, int *status);
void heapcmd_close(hr_source *src, int fd);
/* The notes on standard error: dangling references, duplicates, a dump cut
 * short. Returns 1 when the dump was malformed (exit status 1), else 0. */
int heapcmd_notes(const char *cmd, const char *path, const hg_load_stats *st);
/* `s` as a JSON string, quotes included. */
void heapcmd_json_str(FILE *f, const char *s);
/* "1500M", "2G", "800000000": bytes; 0 when malformed. */
uint64_t heapcmd_parse_size(const char *s);
/* A count > 0 for --top; 0 when malformed. */
uint32_t heapcmd_parse_count(const char *s);

#endif
