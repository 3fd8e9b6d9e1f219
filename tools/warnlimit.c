/*
 * warnlimit.c: the tools' bound on repeated messages (warnlimit.h).
 */
#include "warnlimit.h"

#include <inttypes.h>
#include <string.h>

void wl_init(wl_limit *l, unsigned max)
{
    memset(l, 0, sizeof *l);
    l->max = max;
}

static uint64_t *wl_count_of(wl_limit *l, const char *kind)
{
    for (unsigned i = 0; i < l->nkinds; i++)
        if (strcmp(l->k[i].kind, kind) == 0)
            return &l->k[i].n;
    if (l->nkinds < WL_KINDS) {
        l->k[l->nkinds].kind = kind;
        l->k[l->nkinds].n = 0;
        return &l->k[l->nkinds++].n;
    }
    return &l->other_n;
}

int wl_take(wl_limit *l, const char *kind)
{
    uint64_t *n = wl_count_of(l, kind ? kind : "other");
    ++*n;
    return l->max == 0 || *n <= l->max;
}

static uint64_t wl_over(const wl_limit *l, uint64_t n)
{
    return l->max && n > l->max ? n - l->max : 0;
}

uint64_t wl_hidden(const wl_limit *l)
{
    uint64_t h = wl_over(l, l->other_n);
    for (unsigned i = 0; i < l->nkinds; i++)
        h += wl_over(l, l->k[i].n);
    return h;
}

void wl_summary(const wl_limit *l, FILE *f, const char *prefix)
{
    for (unsigned i = 0; i < l->nkinds; i++)
        if (wl_over(l, l->k[i].n))
            fprintf(f, "%s... and %" PRIu64 " more %s problems not shown\n", prefix,
                    wl_over(l, l->k[i].n), l->k[i].kind);
    if (wl_over(l, l->other_n))
        fprintf(f, "%s... and %" PRIu64 " more problems of other kinds not shown\n", prefix,
                wl_over(l, l->other_n));
}
