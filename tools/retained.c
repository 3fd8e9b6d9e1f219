/*
 * retained.c (tools): `hprof retained FILE [--top N] [--json]`: the objects
 * and classes that retain the most memory, from the dominator tree
 * (heapgraph/hg_dom.h). Options, the library's calls, the table or JSON;
 * what the numbers mean is docs/heap-analysis.md.
 */
#include "retained.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapcmd.h"
#include "heapgraph/hg_dom.h"

static const char retained_usage[] =
    "usage: hprof retained FILE [--top N] [--json] [--no-weak] [--max-memory SIZE]\n"
    "  --no-weak  java.lang.ref.Reference.referent is no reference: what only weak, soft,\n"
    "             phantom or final references reach is unreachable (default: a reference,\n"
    "             as in MAT's dominator tree)\n";

static int retained_usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "hprof: retained: %s%s\n%s", msg, arg, retained_usage);
    return 2;
}

typedef struct retained_cls {
    uint32_t c;
    const hg_class_row *r;
} retained_cls;

static int retained_cls_cmp(const void *a, const void *b)
{
    const retained_cls *x = a, *y = b;
    if (x->r->retained != y->r->retained)
        return x->r->retained > y->r->retained ? -1 : 1;
    return x->c < y->c ? -1 : x->c > y->c;
}

static void retained_print(const hg_graph *g, hg_dom *d, const uint32_t *top, uint32_t ntop,
                           const retained_cls *cls, uint32_t ncls, int json)
{
    if (json) {
        printf("{\"objects\": [");
        for (uint32_t k = 0; k < ntop; k++) {
            uint32_t i = top[k];
            printf("%s\n  {\"id\": \"0x%" PRIx64 "\", \"class\": ", k ? "," : "", hg_id(g, i));
            heapcmd_json_str(stdout, hg_object_class(g, i));
            printf(", \"shallow_bytes\": %" PRIu64 ", \"retained_bytes\": %" PRIu64
                   ", \"retained_objects\": %" PRIu64 "}",
                   hg_shallow(g, i), hg_dom_retained(d, i), hg_dom_retained_count(d, i));
        }
        printf("],\n \"classes\": [");
        for (uint32_t k = 0; k < ncls; k++) {
            printf("%s\n  {\"class\": ", k ? "," : "");
            heapcmd_json_str(stdout, hg_class_name(g, cls[k].c));
            printf(", \"instances\": %" PRIu64 ", \"shallow_bytes\": %" PRIu64
                   ", \"retained_bytes\": %" PRIu64 "}",
                   cls[k].r->instances, cls[k].r->shallow, cls[k].r->retained);
        }
        printf("]}\n");
        return;
    }
    printf("Top %" PRIu32 " objects by retained size:\n", ntop);
    printf("%16s %12s %10s  %-18s  %s\n", "retained bytes", "objects", "shallow", "id", "class");
    for (uint32_t k = 0; k < ntop; k++) {
        uint32_t i = top[k];
        printf("%16" PRIu64 " %12" PRIu64 " %10" PRIu64 "  0x%-16" PRIx64 "  %s\n",
               hg_dom_retained(d, i), hg_dom_retained_count(d, i), hg_shallow(g, i), hg_id(g, i),
               hg_object_class(g, i));
    }
    printf("\nTop %" PRIu32 " classes by retained size of their instances:\n", ncls);
    printf("%16s %12s %16s  %s\n", "retained bytes", "instances", "shallow bytes", "class");
    for (uint32_t k = 0; k < ncls; k++)
        printf("%16" PRIu64 " %12" PRIu64 " %16" PRIu64 "  %s\n", cls[k].r->retained,
               cls[k].r->instances, cls[k].r->shallow, hg_class_name(g, cls[k].c));
}

int retained_main(int argc, char **argv)
{
    const char *path = NULL;
    uint32_t topn = 20;
    int json = 0;
    hg_load_opts o = {.strong_only = 0, .for_dominators = 1, .max_memory = 0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--top") == 0 && i + 1 < argc) {
            topn = heapcmd_parse_count(argv[++i]);
            if (!topn)
                return retained_usage_error("--top needs a count from 1 to 1000000, not ", argv[i]);
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--no-weak") == 0) {
            o.strong_only = 1;
        } else if (strcmp(argv[i], "--max-memory") == 0 && i + 1 < argc) {
            o.max_memory = heapcmd_parse_size(argv[++i]);
            if (!o.max_memory)
                return retained_usage_error("--max-memory needs a size (2G, 1500M, bytes), not ", argv[i]);
        } else if (strcmp(argv[i], "--help") == 0) {
            fputs(retained_usage, stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return retained_usage_error("unknown option or missing argument: ", argv[i]);
        } else if (path) {
            return retained_usage_error("takes one FILE; extra argument ", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return retained_usage_error("needs a FILE", "");
    hg_load_stats st;
    hr_source *src;
    int status, fd;
    hg_graph *g = heapcmd_load("retained", path, &o, &st, &src, &fd, &status);
    if (!g)
        return status;
    heapcmd_close(src, fd);
    status = heapcmd_notes("retained", path, &st);
    hg_dom *d = NULL;
    const hg_class_row *rows = NULL;
    uint32_t *top = malloc((size_t)topn * sizeof *top);
    retained_cls *cls = NULL;
    if (!top || hg_dom_compute(g, &d) != 0 || hg_dom_classes(d, &rows) != 0) {
        fprintf(stderr, "hprof: retained: out of memory computing the dominator tree of %s\n", path);
        free(top);
        hg_dom_free(d);
        hg_graph_free(g);
        return 1;
    }
    uint32_t ntop = hg_dom_top(d, topn, top);
    uint32_t nc = hg_nclasses(g) + 1, ncls = 0;
    cls = malloc((size_t)nc * sizeof *cls);
    if (!cls) {
        fprintf(stderr, "hprof: retained: out of memory\n");
        status = 1;
    } else {
        for (uint32_t c = 0; c < nc; c++)
            if (rows[c].instances) {
                cls[ncls].c = c == nc - 1 ? HG_NONE : c;
                cls[ncls].r = &rows[c];
                ncls++;
            }
        qsort(cls, ncls, sizeof *cls, retained_cls_cmp);
        if (!json) {
            printf("%s: %" PRIu32 " objects reachable from %" PRIu32 " GC roots, %" PRIu64
                   " bytes; %" PRIu64 " unreachable objects (%" PRIu64 " bytes) left out\n\n",
                   path, hg_dom_reachable(d), hg_nroots(g), hg_dom_total_bytes(d),
                   hg_dom_unreachable(d), hg_dom_unreachable_bytes(d));
        }
        retained_print(g, d, top, ntop, cls, ncls < topn ? ncls : topn, json);
    }
    free(cls);
    free(top);
    hg_dom_free(d);
    hg_graph_free(g);
    return status;
}
