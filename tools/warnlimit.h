/*
 * warnlimit.h: the tools' bound on repeated messages.
 *
 * A hostile file can hold a problem per record: 100 000 unknown records in a
 * 500 KB .gz once made `hprof print` write 5 GB to stderr. Each tool that
 * reports problems as it reads shows the first `max` of each kind in full,
 * counts the rest, and ends with one line per kind it cut ("... and 99990
 * more unknown-tag problems not shown"). No allocation, no globals: the
 * state lives in the caller's context.
 */
#ifndef HPROF_TOOLS_WARNLIMIT_H
#define HPROF_TOOLS_WARNLIMIT_H

#include <stdint.h>
#include <stdio.h>

#define WL_MAX_DEFAULT 10u /* messages of one kind shown in full */
#define WL_KINDS 32u       /* kinds counted apart; later ones share one count */

typedef struct wl_kind {
    const char *kind; /* not copied: the reader's kinds are literals */
    uint64_t n;
} wl_kind;

typedef struct wl_limit {
    unsigned max; /* 0: no limit */
    unsigned nkinds;
    wl_kind k[WL_KINDS];
    uint64_t other_n; /* messages of kinds past the WL_KINDS first */
} wl_limit;

void wl_init(wl_limit *l, unsigned max);
/* Counts one message of `kind` (a string that outlives `l`); returns 1 when
 * it is to be shown (among the first `max` of its kind), 0 when only counted. */
int wl_take(wl_limit *l, const char *kind);
/* How many messages were counted but not shown. */
uint64_t wl_hidden(const wl_limit *l);
/* For each kind with messages not shown, writes one line to `f`:
 * "<prefix>... and N more KIND problems not shown\n". */
void wl_summary(const wl_limit *l, FILE *f, const char *prefix);

#endif /* HPROF_TOOLS_WARNLIMIT_H */
