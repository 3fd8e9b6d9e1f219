/*
 * fuzz_heapgraph.c: libFuzzer target for libhprofheap (heapgraph/): any
 * bytes are loaded as a heap graph (both reference modes), its dominator
 * tree computed, paths searched and named. Invariants (a violation aborts,
 * so libFuzzer reports it with its input):
 *  - a refused input has a message and no graph;
 *  - every edge and root names an object of the graph;
 *  - the virtual root's retained bytes and objects are the reachable
 *    objects' shallow bytes and count; an object retains at least itself;
 *    its immediate dominator is reachable and retains more than it;
 *  - a path starts at a root, follows edges, ends at its target.
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DHPROF_FUZZ=ON -DHPROF_TESTS=ON
 *        cmake --build build-fuzz --target fuzz_heapgraph
 * Run:   build-fuzz/tests/fuzz/fuzz_heapgraph -max_total_time=60 tests/fuzz/corpus
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapgraph/hg_dom.h"
#include "heapgraph/hg_path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FH_CHECK(cond)                                                                \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "fuzz_heapgraph: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                  \
        }                                                                             \
    } while (0)

static void fh_paths(const uint8_t *data, size_t size, const hg_graph *g)
{
    hg_paths *p = NULL;
    FH_CHECK(hg_paths_compute(g, &p) == 0);
    uint32_t n = hg_count(g), chain[64];
    hg_link links[64];
    size_t nl = 0;
    for (uint32_t i = 0; i < n && nl < 32; i += 1 + n / 8) {
        uint32_t len = hg_paths_chain(p, i, chain, 64);
        if (!len)
            continue;
        FH_CHECK(hg_root_of(g, chain[0]) != NULL);
        if (len > 64)
            continue;
        FH_CHECK(chain[len - 1] == i);
        for (uint32_t s = 0; s + 1 < len && nl < 64; s++) {
            uint32_t deg, found = 0;
            const uint32_t *o = hg_out(g, chain[s], &deg);
            for (uint32_t e = 0; e < deg; e++)
                found |= o[e] == chain[s + 1];
            FH_CHECK(found);
            links[nl].from = chain[s];
            links[nl].to = chain[s + 1];
            nl++;
        }
    }
    hg_frame_req fr[2] = {{.thread = 1, .depth = 0, .has_depth = 1}, {.thread = 2, .depth = 5}};
    hr_source *src = hr_source_memory(data, size);
    char err[128];
    if (hg_paths_name(src, g, links, nl, fr, 2, err, sizeof err) == 0)
        for (size_t k = 0; k < nl; k++)
            FH_CHECK(links[k].field[0] != 0);
    hr_source_close(src);
    hg_paths_free(p);
}

static void fh_dom(hg_graph *g)
{
    uint32_t n = hg_count(g);
    for (uint32_t i = 0; i <= n; i++) {
        uint32_t deg;
        const uint32_t *o = hg_out(g, i, &deg);
        for (uint32_t e = 0; e < deg; e++)
            FH_CHECK(o[e] < n);
    }
    hg_dom *d = NULL;
    if (hg_dom_compute(g, &d) != 0)
        return;
    uint64_t bytes = 0, count = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!hg_dom_is_reachable(d, i))
            continue;
        bytes += hg_shallow(g, i);
        count++;
        FH_CHECK(hg_dom_retained(d, i) >= hg_shallow(g, i));
        FH_CHECK(hg_dom_retained_count(d, i) >= 1);
        uint32_t up = hg_dom_idom(d, i);
        if (up != HG_NONE) {
            FH_CHECK(hg_dom_is_reachable(d, up));
            FH_CHECK(hg_dom_retained_count(d, up) > hg_dom_retained_count(d, i));
        }
    }
    FH_CHECK(count == hg_dom_reachable(d));
    FH_CHECK(bytes == hg_dom_total_bytes(d));
    FH_CHECK(count + hg_dom_unreachable(d) == n);
    uint32_t top[4];
    uint32_t nt = hg_dom_top(d, 4, top);
    for (uint32_t k = 1; k < nt; k++)
        FH_CHECK(hg_dom_retained(d, top[k - 1]) >= hg_dom_retained(d, top[k]));
    const hg_class_row *rows;
    if (hg_dom_classes(d, &rows) == 0) {
        uint64_t inst = 0;
        for (uint32_t c = 0; c <= hg_nclasses(g); c++)
            inst += rows[c].instances;
        FH_CHECK(inst == count);
    }
    hg_dom_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int strong = 0; strong <= 1; strong++) {
        hr_source *src = hr_source_memory(data, size);
        hg_load_opts o = {.strong_only = strong, .for_dominators = 1, .max_memory = 256u << 20};
        hg_graph *g = NULL;
        hg_load_stats st;
        char err[256];
        err[0] = 0;
        hg_status s = hg_graph_load(src, &o, &g, &st, err, sizeof err);
        hr_source_close(src);
        if (s != HG_OK) {
            FH_CHECK(g == NULL && err[0]);
            return 0;
        }
        if (strong)
            fh_paths(data, size, g);
        else
            fh_dom(g);
        hg_graph_free(g);
    }
    return 0;
}
