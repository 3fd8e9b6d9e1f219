/*
 * path.c (tools): `hprof path FILE CLASS|ID [--top N]`: the shortest path
 * from a GC root to an object, or to each of the N biggest (shallow size)
 * reachable instances of a class, with the field or index of every step
 * (heapgraph/hg_path.h). Weak, soft, phantom and final referents are not
 * followed unless --weak. The table or JSON; docs/heap-analysis.md.
 */
#include "path.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapcmd.h"
#include "heapgraph/hg_path.h"

static const char path_usage[] =
    "usage: hprof path FILE CLASS|ID [--top N] [--json] [--weak] [--max-memory SIZE]\n"
    "  CLASS in Java or JVM spelling (java.lang.String, int[], a.B$C, java/lang/String, [I,\n"
    "  La/B$C;); ID in hex (0x...) or decimal\n";

static int path_usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "hprof: path: %s%s\n%s", msg, arg, path_usage);
    return 2;
}

/* An object id, when `s` is one: 0x<hex> or decimal digits. */
static int path_parse_id(const char *s, hprof_id *id)
{
    char *end;
    errno = 0;
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (!hex && !isdigit((unsigned char)s[0]))
        return 0;
    unsigned long long v = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
    if (errno || *end || end == (hex ? s + 2 : s))
        return 0;
    *id = v;
    return 1;
}

typedef struct path_target {
    uint32_t obj;
    uint32_t len;   /* objects on its path */
    uint32_t first; /* its first link */
    int frame;      /* its frame request, or -1 */
} path_target;

static int path_bigger(const void *a, const void *b, void *ctx)
{
    const hg_graph *g = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t sx = hg_shallow(g, x), sy = hg_shallow(g, y);
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return hg_id(g, x) < hg_id(g, y) ? -1 : hg_id(g, x) > hg_id(g, y);
}

static void path_print(const hg_graph *g, const path_target *t, uint32_t nt, const uint32_t *chain,
                       const hg_link *links, const hg_frame_req *fr, int json)
{
    if (json)
        printf("{\"paths\": [");
    for (uint32_t k = 0; k < nt; k++) {
        const uint32_t *c = chain + t[k].first;
        const hg_root *r = hg_root_of(g, c[0]);
        const char *kind = r ? hg_root_kind_name(r->kind) : "unknown";
        int stack = r && (r->kind == HPROF_GC_ROOT_JAVA_FRAME || r->kind == HPROF_GC_ROOT_JNI_LOCAL ||
                          r->kind == HPROF_GC_ROOT_THREAD_OBJ || r->kind == HPROF_GC_ROOT_NATIVE_STACK ||
                          r->kind == HPROF_GC_ROOT_THREAD_BLOCK || r->kind == HPROF_GC_ROOT_JNI_MONITOR);
        const char *frame = t[k].frame >= 0 ? fr[t[k].frame].text : "";
        const char *tname = t[k].frame >= 0 ? fr[t[k].frame].thread_name : "";
        if (json) {
            printf("%s\n  {\"target\": {\"id\": \"0x%" PRIx64 "\", \"class\": ", k ? "," : "",
                   hg_id(g, t[k].obj));
            heapcmd_json_str(stdout, hg_object_class(g, t[k].obj));
            printf("},\n   \"root\": {\"kind\": ");
            heapcmd_json_str(stdout, kind);
            printf(", \"id\": \"0x%" PRIx64 "\"", hg_id(g, c[0]));
            if (stack)
                printf(", \"thread\": %" PRIu32, r->thread);
            if (tname[0]) {
                printf(", \"thread_name\": ");
                heapcmd_json_str(stdout, tname);
            }
            if (frame[0]) {
                printf(", \"frame\": ");
                heapcmd_json_str(stdout, frame);
            }
            printf("},\n   \"steps\": [");
            for (uint32_t s = 0; s < t[k].len; s++) {
                printf("%s\n    {\"id\": \"0x%" PRIx64 "\", \"class\": ", s ? "," : "", hg_id(g, c[s]));
                heapcmd_json_str(stdout, hg_object_class(g, c[s]));
                printf(", \"field\": ");
                if (s + 1 < t[k].len)
                    heapcmd_json_str(stdout, links[t[k].first - k + s].field);
                else
                    printf("null");
                printf("}");
            }
            printf("]}");
            continue;
        }
        printf("%s0x%" PRIx64 " (%s, %" PRIu64 " bytes): %" PRIu32 " object%s from a GC root\n",
               k ? "\n" : "", hg_id(g, t[k].obj), hg_object_class(g, t[k].obj),
               hg_shallow(g, t[k].obj), t[k].len, t[k].len == 1 ? "" : "s");
        printf("  root: %s", kind);
        if (stack)
            printf(", thread %" PRIu32, r->thread);
        if (tname[0])
            printf(" \"%s\"", tname);
        if (frame[0])
            printf(", %s", frame);
        printf("\n");
        for (uint32_t s = 0; s < t[k].len; s++) {
            const char *f = s + 1 < t[k].len ? links[t[k].first - k + s].field : "";
            int idx = f[0] == '[' || f[0] == '<';
            printf("  0x%-16" PRIx64 "  %-40s %s%s\n", hg_id(g, c[s]),
                   hg_object_class(g, c[s]), f[0] && !idx ? "." : "", f);
        }
    }
    if (json)
        printf("]}\n");
}

int path_main(int argc, char **argv)
{
    const char *path = NULL, *what = NULL;
    uint32_t topn = 1;
    int json = 0;
    hg_load_opts o = {.strong_only = 1, .for_dominators = 0, .max_memory = 0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--top") == 0 && i + 1 < argc) {
            topn = heapcmd_parse_count(argv[++i]);
            if (!topn)
                return path_usage_error("--top needs a count from 1 to 1000000, not ", argv[i]);
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--weak") == 0) {
            o.strong_only = 0;
        } else if (strcmp(argv[i], "--max-memory") == 0 && i + 1 < argc) {
            o.max_memory = heapcmd_parse_size(argv[++i]);
            if (!o.max_memory)
                return path_usage_error("--max-memory needs a size (2G, 1500M, bytes), not ", argv[i]);
        } else if (strcmp(argv[i], "--help") == 0) {
            fputs(path_usage, stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return path_usage_error("unknown option or missing argument: ", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else if (!what) {
            what = argv[i];
        } else {
            return path_usage_error("takes FILE and one CLASS or ID; extra argument ", argv[i]);
        }
    }
    if (!path || !what || !what[0])
        return path_usage_error("needs a FILE and a CLASS or ID", "");
    hprof_id id;
    if ((what[0] == '0' && (what[1] == 'x' || what[1] == 'X')) && !path_parse_id(what, &id))
        return path_usage_error("not an id in hex: ", what);
    hg_load_stats st;
    hr_source *src;
    int status, fd;
    hg_graph *g = heapcmd_load("path", path, &o, &st, &src, &fd, &status);
    if (!g)
        return status;
    status = heapcmd_notes("path", path, &st);
    hg_paths *p = NULL;
    uint32_t *cand = NULL, *chain = NULL;
    path_target *t = NULL;
    hg_link *links = NULL;
    hg_frame_req *fr = NULL;
    uint32_t ncand = 0, nt = 0, unreached = 0;
    if (hg_paths_compute(g, &p) != 0)
        goto oom;
    if (path_parse_id(what, &id)) {
        uint32_t i = hg_find(g, id);
        if (i == HG_NONE) {
            fprintf(stderr, "hprof: path: no object 0x%" PRIx64 " in %s\n", id, path);
            status = 1;
            goto out;
        }
        cand = malloc(sizeof *cand);
        if (!cand)
            goto oom;
        cand[ncand++] = i;
    } else {
        char want[1024];
        hg_java_name(what, strlen(what), want, sizeof want);
        uint32_t nc = hg_nclasses(g), found = 0;
        uint8_t *is = calloc((size_t)nc + 1, 1);
        cand = malloc(((size_t)hg_count(g) + 1) * sizeof *cand);
        if (!is || !cand) {
            free(is);
            goto oom;
        }
        for (uint32_t c = 0; c < nc; c++)
            if (strcmp(hg_class_name(g, c), want) == 0)
                is[c] = 1, found++;
        for (uint32_t i = 0; found && i < hg_count(g); i++) {
            uint32_t c = hg_class_of(g, i);
            if (c == HG_NONE || !is[c])
                continue;
            if (hg_paths_reached(p, i)) /* (a chain's length costs its depth) */
                cand[ncand++] = i;
            else
                unreached++;
        }
        free(is);
        if (!found) {
            fprintf(stderr, "hprof: path: no class %s in %s\n", want, path);
            status = 1;
            goto out;
        }
        if (!ncand && !unreached) { /* not "no path": nothing to find one to */
            fprintf(stderr, "hprof: path: class %s has no instances in %s\n", want, path);
            status = 1;
            goto out;
        }
        qsort_r(cand, ncand, sizeof *cand, path_bigger, (void *)g);
    }
    /* the targets with a path, their chains and links in one array each */
    uint32_t nmax = topn < ncand ? topn : ncand;
    t = calloc(nmax ? nmax : 1, sizeof *t);
    fr = calloc(nmax ? nmax : 1, sizeof *fr);
    if (!t || !fr)
        goto oom;
    size_t total = 0;
    for (uint32_t k = 0; k < ncand && nt < topn; k++) {
        uint32_t len = hg_paths_chain(p, cand[k], NULL, 0);
        if (!len) {
            fprintf(stderr, "hprof: path: 0x%" PRIx64 " is not reachable from any GC root%s\n",
                    hg_id(g, cand[k]), o.strong_only ? " through strong references (try --weak)" : "");
            continue;
        }
        t[nt].obj = cand[k];
        t[nt].len = len;
        t[nt].first = (uint32_t)total;
        t[nt].frame = -1;
        total += len;
        nt++;
    }
    if (unreached)
        fprintf(stderr, "hprof: path: note: %" PRIu32 " instance%s of %s %s not reachable%s\n", unreached,
                unreached == 1 ? "" : "s", what, unreached == 1 ? "is" : "are",
                o.strong_only ? " through strong references" : "");
    /* the graph's estimate did not know --top: a link names its step in
     * HG_NAME_MAX bytes, a thread its frame and name in two more */
    uint64_t extra = (uint64_t)total * (sizeof *chain + sizeof *links) +
                     (uint64_t)nmax * (sizeof *t + sizeof *fr);
    if (st.limit_bytes && st.need_bytes + extra > st.limit_bytes) {
        fprintf(stderr,
                "hprof: path: %s: the paths of %" PRIu32 " objects (%zu steps) would need %" PRIu64
                " MB more than the graph's %" PRIu64 " MB; %" PRIu64 " MB are available%s: ask for fewer "
                "with --top\n",
                path, nt, total, (extra + (1u << 20) - 1) >> 20, (st.need_bytes + (1u << 20) - 1) >> 20,
                st.limit_bytes >> 20, o.max_memory ? " (--max-memory)" : " (MemAvailable)");
        status = 1;
        goto out;
    }
    chain = malloc((total ? total : 1) * sizeof *chain);
    links = calloc(total ? total : 1, sizeof *links);
    if (!chain || !links)
        goto oom;
    uint32_t nl = 0, nfr = 0;
    for (uint32_t k = 0; k < nt; k++) {
        uint32_t *c = chain + t[k].first;
        hg_paths_chain(p, t[k].obj, c, t[k].len);
        for (uint32_t s = 0; s + 1 < t[k].len; s++) {
            links[nl].from = c[s];
            links[nl].to = c[s + 1];
            nl++;
        }
        const hg_root *r = hg_root_of(g, c[0]);
        if (r && r->thread) {
            fr[nfr].thread = r->thread;
            fr[nfr].depth = r->frame;
            fr[nfr].has_depth = r->kind == HPROF_GC_ROOT_JAVA_FRAME || r->kind == HPROF_GC_ROOT_JNI_LOCAL;
            t[k].frame = (int)nfr++;
        }
    }
    char err[256];
    if (hg_paths_name(src, g, links, nl, fr, nfr, err, sizeof err) != 0) {
        fprintf(stderr, "hprof: path: %s: %s\n", path, err);
        status = 1;
        goto out;
    }
    path_print(g, t, nt, chain, links, fr, json);
    if (!nt) {
        fprintf(stderr, "hprof: path: no path from a GC root to %s in %s\n", what, path);
        status = 1;
    }
    goto out;
oom:
    fprintf(stderr, "hprof: path: out of memory\n");
    status = 1;
out:
    free(cand);
    free(chain);
    free(t);
    free(links);
    free(fr);
    hg_paths_free(p);
    hg_graph_free(g);
    heapcmd_close(src, fd);
    return status;
}
