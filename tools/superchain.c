/*
 * superchain.c: distinct classes on each super chain (superchain.h).
 *
 * One memoised walk per class not yet done: the classes met are pushed on
 * a path until the walk reaches a class done before (its count is known),
 * the end of the chain, or a class already on this path (a cycle: each of
 * its members has the cycle's length). The path then unwinds, each class
 * counting one more than the next. Every class is pushed once: O(n).
 */
#include "superchain.h"

#include <stdlib.h>

int sc_chain_lengths(const size_t *super_ix, size_t n, uint32_t *len)
{
    if (!n)
        return 0;
    size_t *path = malloc(n * sizeof *path);
    size_t *pos = malloc(n * sizeof *pos); /* SC_NONE: not seen; else its place on the path */
    uint8_t *done = calloc(n, 1);
    if (!path || !pos || !done) {
        free(path);
        free(pos);
        free(done);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        pos[i] = SC_NONE;
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        size_t np = 0, cur = i;
        uint32_t base = 0;
        for (;;) {
            if (done[cur]) {
                base = len[cur];
                break;
            }
            if (pos[cur] != SC_NONE) {
                /* back on this walk's path: path[pos[cur]..np-1] is a cycle */
                size_t from = pos[cur];
                base = (uint32_t)(np - from);
                for (size_t k = from; k < np; k++) {
                    len[path[k]] = base;
                    done[path[k]] = 1;
                }
                np = from;
                break;
            }
            pos[cur] = np;
            path[np++] = cur;
            if (super_ix[cur] == SC_NONE || super_ix[cur] >= n)
                break;
            cur = super_ix[cur];
        }
        while (np) {
            size_t k = path[--np];
            len[k] = ++base;
            done[k] = 1;
        }
    }
    free(path);
    free(pos);
    free(done);
    return 0;
}
