/*
 * hg_path.c: breadth-first paths from the roots and the naming pass
 * (hg_path.h).
 */
#include "hg_path.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hu_map.h"

struct hg_paths {
    uint32_t n;
    uint32_t *parent; /* object -> previous object; n = a root; HG_NONE = unreached */
};

int hg_paths_compute(const hg_graph *g, hg_paths **out)
{
    *out = NULL;
    hg_paths *p = calloc(1, sizeof *p);
    uint32_t n = hg_count(g);
    uint32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
    if (p)
        p->parent = malloc(((size_t)n + 1) * sizeof *p->parent);
    if (!p || !queue || !p->parent) {
        free(queue);
        hg_paths_free(p);
        return -1;
    }
    p->n = n;
    memset(p->parent, 0xFF, ((size_t)n + 1) * sizeof *p->parent);
    uint32_t head = 0, tail = 0;
    queue[tail++] = n; /* the virtual root */
    p->parent[n] = n;
    while (head < tail) {
        uint32_t v = queue[head++], deg;
        const uint32_t *o = hg_out(g, v, &deg);
        for (uint32_t e = 0; e < deg; e++)
            if (p->parent[o[e]] == HG_NONE) {
                p->parent[o[e]] = v;
                queue[tail++] = o[e];
            }
    }
    free(queue);
    *out = p;
    return 0;
}

void hg_paths_free(hg_paths *p)
{
    if (!p)
        return;
    free(p->parent);
    free(p);
}

int hg_paths_reached(const hg_paths *p, uint32_t i)
{
    return i < p->n && p->parent[i] != HG_NONE;
}

uint32_t hg_paths_chain(const hg_paths *p, uint32_t target, uint32_t *buf, uint32_t cap)
{
    if (target >= p->n || p->parent[target] == HG_NONE)
        return 0;
    uint32_t len = 0;
    for (uint32_t v = target; v != p->n; v = p->parent[v])
        len++;
    uint32_t k = len;
    for (uint32_t v = target; v != p->n; v = p->parent[v]) {
        k--;
        if (k < cap)
            buf[k] = v;
    }
    return len;
}

const char *hg_root_kind_name(uint8_t kind)
{
    switch (kind) {
    case HPROF_GC_ROOT_JNI_GLOBAL: return "JNI global";
    case HPROF_GC_ROOT_JNI_LOCAL: return "JNI local";
    case HPROF_GC_ROOT_JAVA_FRAME: return "Java frame";
    case HPROF_GC_ROOT_NATIVE_STACK: return "native stack";
    case HPROF_GC_ROOT_STICKY_CLASS: return "sticky class";
    case HPROF_GC_ROOT_THREAD_BLOCK: return "thread block";
    case HPROF_GC_ROOT_MONITOR_USED: return "busy monitor";
    case HPROF_GC_ROOT_THREAD_OBJ: return "thread object";
    case HPROF_GC_ROOT_INTERNED_STRING: return "interned string";
    case HPROF_GC_ROOT_FINALIZING: return "finalizing";
    case HPROF_GC_ROOT_DEBUGGER: return "debugger";
    case HPROF_GC_ROOT_REFERENCE_CLEANUP: return "reference cleanup";
    case HPROF_GC_ROOT_VM_INTERNAL: return "VM internal";
    case HPROF_GC_ROOT_JNI_MONITOR: return "JNI monitor";
    default: return "unknown";
    }
}

typedef struct hg_frame_rec {
    hprof_id method, source;
    uint32_t class_serial;
    int32_t line;
} hg_frame_rec;

#define HG_RAW_MAX 128 /* bytes of a thread name's array kept */

typedef struct hg_name_ctx {
    const hg_graph *g;
    unsigned idsz;
    hg_link *links;
    size_t nlinks;
    uint32_t *next;   /* link -> next link of the same `from`, HG_NONE */
    hu_map from;      /* from id -> first link + 1 */
    hg_frame_req *frames;
    size_t nframes;
    hprof_id *frame_id; /* per frame request, found in the TRACE */
    hu_map frec;      /* frame id -> index into fr + 1 */
    hg_frame_rec *fr;
    size_t nfr, capfr;
    hu_map serial;    /* class serial -> name id */
    hu_map tobj;      /* thread object id -> request + 1 (pass 1); String or
                       * array id -> request + 1 (pass 2) */
    hprof_id *tstr;   /* per request: the thread's name String */
    hprof_id *tarr;   /* per request: that String's value array */
    int *tcoder;      /* per request: its coder (JDK 9+), -1 unknown */
    uint8_t *traw;    /* per request: HG_RAW_MAX bytes of the array */
    uint32_t *trawn;
    uint8_t *ttype;
    hu_map arr;        /* to id -> link + 1, of the links that leave arr_from */
    hprof_id arr_from; /* the object array `arr` is for, when arr_ok */
    int arr_ok;
    int pass;
    int oom;
} hg_name_ctx;

static int hg_name_record(void *ctx, const hr_record *r)
{
    hg_name_ctx *c = ctx;
    if (!r->body || r->malformed || c->pass != 1)
        return 0;
    if (r->tag == HPROF_TAG_LOAD_CLASS) {
        if (hu_map_put(&c->serial, r->u.load_class.class_serial, r->u.load_class.name_id) != 0)
            c->oom = 1;
    } else if (r->tag == HPROF_TAG_FRAME && c->nframes) {
        if (c->nfr == c->capfr) {
            size_t nc = c->capfr ? c->capfr * 2 : 256;
            hg_frame_rec *nf = realloc(c->fr, nc * sizeof *nf);
            if (!nf) {
                c->oom = 1;
                return 1;
            }
            c->fr = nf;
            c->capfr = nc;
        }
        hg_frame_rec *f = &c->fr[c->nfr];
        f->method = r->u.frame.method_name_id;
        f->source = r->u.frame.source_file_id;
        f->class_serial = r->u.frame.class_serial;
        f->line = r->u.frame.line;
        if (hu_map_put(&c->frec, r->u.frame.frame_id, c->nfr + 1) != 0)
            c->oom = 1;
        c->nfr++;
    } else if (r->tag == HPROF_TAG_TRACE) {
        for (size_t k = 0; k < c->nframes; k++)
            if (c->frames[k].has_depth && c->frames[k].thread == r->u.trace.thread_serial &&
                r->u.trace.thread_serial &&
                c->frames[k].depth < r->u.trace.nframes && !c->frame_id[k])
                c->frame_id[k] = hr_trace_frame(r, c->idsz, c->frames[k].depth);
    }
    return c->oom;
}

static void hg_set(hg_link *l, const char *s)
{
    if (!l->field[0])
        snprintf(l->field, sizeof l->field, "%s", s);
}

static void hg_name_fields(hg_name_ctx *c, const hr_sub *s, hprof_id from_id, uint32_t li)
{
    const hg_graph *g = c->g;
    hg_link *l = &c->links[li];
    if (l->field[0])
        return;
    hprof_id to = hg_id(g, l->to);
    unsigned idsz = c->idsz;
    switch (s->tag) {
    case HPROF_GC_INSTANCE_DUMP: {
        uint32_t cl = hg_class_of(g, l->from), nf;
        if (cl == HG_NONE)
            return;
        const hg_field *f = hg_class_fields(g, cl, &nf);
        for (uint32_t k = 0; k < nf; k++) {
            if (f[k].type != HPROF_TYPE_OBJECT || (uint64_t)f[k].offset + idsz > s->u.inst.nbytes)
                continue;
            if (hr_get_id(s->u.inst.values + f[k].offset, idsz) == to) {
                const char *nm = hg_utf8(g, f[k].name_id);
                hg_set(l, nm ? nm : "?");
                return;
            }
        }
        return;
    }
    case HPROF_GC_OBJ_ARRAY_DUMP:
        for (uint32_t k = 0; k < s->u.oarr.count; k++)
            if (hr_get_id(s->u.oarr.elems + (size_t)k * idsz, idsz) == to) {
                snprintf(l->field, sizeof l->field, "[%" PRIu32 "]", s->u.oarr.first + k);
                return;
            }
        return;
    case HPROF_GC_CLASS_DUMP: {
        const uint8_t *q = s->u.cls.statics;
        for (uint16_t k = 0; k < s->u.cls.nstatics; k++) {
            hr_static st;
            q = hr_class_static_next(q, idsz, &st);
            if (st.type == HPROF_TYPE_OBJECT && st.value == to) {
                const char *nm = hg_utf8(g, st.name_id);
                hg_set(l, nm ? nm : "?");
                return;
            }
        }
        if (s->u.cls.super_id == to)
            hg_set(l, "<super>");
        else if (s->u.cls.loader_id == to)
            hg_set(l, "<classloader>");
        return;
    }
    default: (void)from_id; return;
    }
}

/* The value of instance field `name` (of `type`) of an INSTANCE DUMP, or
 * -1 when its class has no such field. */
static int hg_field_value(const hg_graph *g, uint32_t obj, const hr_sub *s, const char *name,
                          uint8_t type, uint64_t *v)
{
    uint32_t cl = obj != HG_NONE ? hg_class_of(g, obj) : HG_NONE, nf;
    if (cl == HG_NONE)
        return -1;
    const hg_field *f = hg_class_fields(g, cl, &nf);
    unsigned idsz = hg_id_size(g), ts = hprof_type_size(type, idsz);
    for (uint32_t k = 0; k < nf; k++) {
        const char *nm = hg_utf8(g, f[k].name_id);
        if (f[k].type != type || !nm || strcmp(nm, name) != 0 || (uint64_t)f[k].offset + ts > s->u.inst.nbytes)
            continue;
        const uint8_t *p = s->u.inst.values + f[k].offset;
        *v = type == HPROF_TYPE_OBJECT ? hr_get_id(p, idsz) : p[0];
        return 0;
    }
    return -1;
}

/* Pass 2 of the thread names: the Strings' coders and the first bytes of
 * their value arrays (decoded after the pass: either may come first). */
static void hg_name_thread_sub(hg_name_ctx *c, const hr_sub *s)
{
    hprof_id id = s->tag == HPROF_GC_INSTANCE_DUMP ? s->u.inst.id
                  : s->tag == HPROF_GC_PRIM_ARRAY_DUMP ? s->u.parr.id : 0;
    uint64_t *k = id ? hu_map_get(&c->tobj, id) : NULL;
    if (!k)
        return;
    for (size_t r = *k - 1; r < c->nframes; r++) {
        if (s->tag == HPROF_GC_INSTANCE_DUMP && c->tstr[r] == id) {
            uint64_t v;
            if (hg_field_value(c->g, hg_find(c->g, id), s, "coder", HPROF_TYPE_BYTE, &v) == 0)
                c->tcoder[r] = (int)v;
            /* the graph without its edges (after hg_dom_compute): the
             * value array from the String's field, read in one more pass */
            int ins;
            if (!c->tarr[r] &&
                hg_field_value(c->g, hg_find(c->g, id), s, "value", HPROF_TYPE_OBJECT, &v) == 0 && v) {
                c->tarr[r] = v;
                if (!hu_map_upsert(&c->tobj, v, r + 1, &ins))
                    c->oom = 1;
            }
        } else if (s->tag == HPROF_GC_PRIM_ARRAY_DUMP && c->tarr[r] == id &&
                   (s->u.parr.type == HPROF_TYPE_BYTE || s->u.parr.type == HPROF_TYPE_CHAR)) {
            uint64_t nb = (uint64_t)s->u.parr.n * hprof_type_size(s->u.parr.type, c->idsz);
            if (s->cut && nb > HR_BODY_MAX)
                nb = HR_BODY_MAX;
            c->trawn[r] = nb < HG_RAW_MAX ? (uint32_t)nb : HG_RAW_MAX;
            memcpy(c->traw + r * HG_RAW_MAX, s->u.parr.elems, c->trawn[r]);
            c->ttype[r] = s->u.parr.type;
        }
    }
}

/* A thread's name in UTF-8: Latin-1 bytes (coder 0), UTF-16 bytes in the
 * JVM's order, x86's little-endian (coder 1), or big-endian chars (JDK 8's
 * char[]); control characters and lone surrogates as '?'. */
static void hg_decode_name(const uint8_t *p, uint32_t n, uint8_t type, int coder, char *out, size_t cap)
{
    size_t o = 0;
    int wide = type == HPROF_TYPE_CHAR || coder == 1;
    uint32_t step = wide ? 2 : 1;
    for (uint32_t b = 0; b + step <= n && o + 4 < cap; b += step) {
        unsigned u = !wide ? p[b]
                     : type == HPROF_TYPE_CHAR ? (unsigned)(p[b] << 8 | p[b + 1])
                                               : (unsigned)(p[b + 1] << 8 | p[b]);
        if ((u >= 0xD800 && u < 0xE000) || u < 0x20)
            u = '?';
        if (u < 0x80) {
            out[o++] = (char)u;
        } else if (u < 0x800) {
            out[o++] = (char)(0xC0 | u >> 6);
            out[o++] = (char)(0x80 | (u & 0x3F));
        } else {
            out[o++] = (char)(0xE0 | u >> 12);
            out[o++] = (char)(0x80 | ((u >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (u & 0x3F));
        }
    }
    out[o] = 0;
}

/* Links that leave one object array (the elements of one big collection,
 * on the paths of `path --top N`'s targets) are named by one scan of its
 * elements against a map of the links' targets: a scan per link was links
 * x elements. The map is kept for the array's next parts. Of equal
 * elements the first index names the link, as hg_name_fields does. */
#define HG_ARRAY_LINKS 4

static int hg_name_array(hg_name_ctx *c, const hr_sub *s, uint32_t first)
{
    const hg_graph *g = c->g;
    if (!c->arr_ok || c->arr_from != s->u.oarr.id) {
        hu_map_cleanup(&c->arr);
        hu_map_init(&c->arr);
        c->arr_ok = 0;
        for (uint32_t li = first; li != HG_NONE; li = c->next[li]) {
            int ins;
            if (!hu_map_upsert(&c->arr, hg_id(g, c->links[li].to), li + 1u, &ins)) {
                c->oom = 1;
                return 1;
            }
        }
        c->arr_from = s->u.oarr.id;
        c->arr_ok = 1;
    }
    for (uint32_t k = 0; k < s->u.oarr.count; k++) {
        hprof_id v = hr_get_id(s->u.oarr.elems + (size_t)k * c->idsz, c->idsz);
        uint64_t *li = v ? hu_map_get(&c->arr, v) : NULL;
        if (li && !c->links[*li - 1].field[0])
            snprintf(c->links[*li - 1].field, HG_NAME_MAX, "[%" PRIu32 "]", s->u.oarr.first + k);
    }
    /* links to the same element as the one the map holds */
    for (uint32_t li = first; li != HG_NONE; li = c->next[li]) {
        uint64_t *m = hu_map_get(&c->arr, hg_id(g, c->links[li].to));
        if (m && *m - 1 != li && c->links[*m - 1].field[0] && !c->links[li].field[0])
            memcpy(c->links[li].field, c->links[*m - 1].field, HG_NAME_MAX);
    }
    return 0;
}

static int hg_name_sub(void *ctx, const hr_sub *s)
{
    hg_name_ctx *c = ctx;
    hprof_id id;
    if (c->pass == 2) {
        hg_name_thread_sub(c, s);
        return 0;
    }
    if (s->tag == HPROF_GC_INSTANCE_DUMP) {
        uint64_t *t = hu_map_get(&c->tobj, s->u.inst.id);
        for (size_t r = t ? *t - 1 : c->nframes; r < c->nframes; r++) {
            uint64_t v;
            if (c->frames[r].thread == c->frames[*t - 1].thread && !c->tstr[r] && hg_field_value(c->g, hg_find(c->g, s->u.inst.id), s, "name",
                                              HPROF_TYPE_OBJECT, &v) == 0)
                c->tstr[r] = v;
        }
    }
    switch (s->tag) {
    case HPROF_GC_INSTANCE_DUMP: id = s->u.inst.id; break;
    case HPROF_GC_OBJ_ARRAY_DUMP: id = s->u.oarr.id; break;
    case HPROF_GC_CLASS_DUMP: id = s->u.cls.class_id; break;
    default: return 0;
    }
    uint64_t *k = hu_map_get(&c->from, id);
    if (!k)
        return 0;
    uint32_t first = (uint32_t)(*k - 1), nl = 0;
    for (uint32_t li = first; li != HG_NONE && nl <= HG_ARRAY_LINKS; li = c->next[li])
        nl++;
    if (s->tag == HPROF_GC_OBJ_ARRAY_DUMP && nl > HG_ARRAY_LINKS)
        return hg_name_array(c, s, first);
    for (uint32_t li = first; li != HG_NONE; li = c->next[li])
        hg_name_fields(c, s, id, li);
    return 0;
}

int hg_paths_name(hr_source *src, const hg_graph *g, hg_link *links, size_t nlinks,
                  hg_frame_req *frames, size_t nframes, char *err, size_t errlen)
{
    hg_name_ctx c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.idsz = hg_id_size(g);
    c.links = links;
    c.nlinks = nlinks;
    c.frames = frames;
    c.nframes = nframes;
    hu_map_init(&c.from);
    hu_map_init(&c.frec);
    hu_map_init(&c.serial);
    hu_map_init(&c.tobj);
    hu_map_init(&c.arr);
    c.next = malloc((nlinks ? nlinks : 1) * sizeof *c.next);
    c.frame_id = calloc(nframes ? nframes : 1, sizeof *c.frame_id);
    c.tstr = calloc(nframes ? nframes : 1, sizeof *c.tstr);
    c.tarr = calloc(nframes ? nframes : 1, sizeof *c.tarr);
    c.tcoder = malloc((nframes ? nframes : 1) * sizeof *c.tcoder);
    c.traw = malloc((nframes ? nframes : 1) * HG_RAW_MAX);
    c.trawn = calloc(nframes ? nframes : 1, sizeof *c.trawn);
    c.ttype = calloc(nframes ? nframes : 1, 1);
    int rc = -1;
    if (!c.next || !c.frame_id || !c.tstr || !c.tarr || !c.tcoder || !c.traw || !c.trawn || !c.ttype) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* links chained per `from`, in order */
    for (size_t i = nlinks; i-- > 0;) {
        links[i].field[0] = 0;
        int ins;
        uint64_t *slot = hu_map_upsert(&c.from, hg_id(g, links[i].from), i + 1, &ins);
        if (!slot) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        c.next[i] = ins ? HG_NONE : (uint32_t)(*slot - 1);
        *slot = i + 1;
    }
    /* each thread's object: its ROOT THREAD OBJECT, the first of its
     * serial (requests of one thread are found from the first: the loops
     * run on from it). Through a map of serials: a scan of the roots per
     * request was requests x roots. */
    hu_map tserial; /* thread serial -> its thread object + 1 */
    hu_map_init(&tserial);
    const hg_root *rt = hg_roots(g);
    for (uint32_t i = 0; nframes && i < hg_nroots(g); i++) {
        int ins;
        if (rt[i].kind == HPROF_GC_ROOT_THREAD_OBJ && rt[i].thread &&
            !hu_map_upsert(&tserial, rt[i].thread, (uint64_t)rt[i].obj + 1, &ins)) {
            hu_map_cleanup(&tserial);
            snprintf(err, errlen, "out of memory");
            goto out;
        }
    }
    for (size_t k = 0; k < nframes; k++) {
        frames[k].text[0] = frames[k].thread_name[0] = 0;
        c.tcoder[k] = -1;
        uint64_t *tob = frames[k].thread ? hu_map_get(&tserial, frames[k].thread) : NULL;
        int ins;
        if (tob && !hu_map_upsert(&c.tobj, hg_id(g, (uint32_t)(*tob - 1)), k + 1, &ins)) {
            hu_map_cleanup(&tserial);
            snprintf(err, errlen, "out of memory");
            goto out;
        }
    }
    hu_map_cleanup(&tserial);
    if (hr_source_rewind(src) != 0) {
        snprintf(err, errlen, "the input cannot be read again (a pipe?)");
        goto out;
    }
    hr_callbacks cb = {.on_record = hg_name_record, .on_sub = hg_name_sub};
    c.pass = 1;
    hr_parse(src, &cb, &c, NULL);
    if (c.oom) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* the names' Strings and their value arrays (an edge of the String to
     * a byte[] or char[]): one more pass when some thread has one */
    hu_map_cleanup(&c.tobj);
    hu_map_init(&c.tobj);
    int more = 0;
    for (size_t k = 0; k < nframes; k++) {
        uint32_t si = c.tstr[k] ? hg_find(g, c.tstr[k]) : HG_NONE, deg;
        if (si == HG_NONE)
            continue;
        const uint32_t *o = hg_out(g, si, &deg);
        for (uint32_t e = 0; e < deg && !c.tarr[k]; e++) {
            const char *cn = hg_object_class(g, o[e]);
            if (strcmp(cn, "byte[]") == 0 || strcmp(cn, "char[]") == 0)
                c.tarr[k] = hg_id(g, o[e]);
        }
        int ins;
        if (!hu_map_upsert(&c.tobj, c.tstr[k], k + 1, &ins) ||
            (c.tarr[k] && !hu_map_upsert(&c.tobj, c.tarr[k], k + 1, &ins))) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        more = 1;
    }
    if (more) {
        if (hr_source_rewind(src) != 0) {
            snprintf(err, errlen, "the input cannot be read again (a pipe?)");
            goto out;
        }
        c.pass = 2;
        hr_parse(src, &cb, &c, NULL);
        /* value arrays found in that pass (no edges), or before their String */
        int again = 0;
        for (size_t k = 0; k < nframes; k++)
            again |= c.tarr[k] && !c.trawn[k];
        if (again && !c.oom && hr_source_rewind(src) == 0)
            hr_parse(src, &cb, &c, NULL);
        if (c.oom) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        for (size_t k = 0; k < nframes; k++)
            if (c.trawn[k])
                hg_decode_name(c.traw + k * HG_RAW_MAX, c.trawn[k], c.ttype[k], c.tcoder[k],
                               frames[k].thread_name, sizeof frames[k].thread_name);
    }
    /* what no field holds: the pseudo-references of the graph. A class
     * object's class is found through a map (built when some link needs
     * it): a scan of the classes per link was links x classes, and most
     * paths of an application's objects begin at its loader's <classes>. */
    hu_map clsof; /* class object index -> class index + 1 */
    hu_map_init(&clsof);
    int clsof_built = 0;
    for (size_t i = 0; i < nlinks; i++) {
        hg_link *l = &links[i];
        if (l->field[0])
            continue;
        uint32_t cl = hg_class_of(g, l->from);
        if (cl != HG_NONE && hg_class_obj(g, cl) == l->to && !hg_is_class(g, l->from)) {
            hg_set(l, "<class>");
            continue;
        }
        if (hg_is_class(g, l->to) && !clsof_built) {
            for (uint32_t k = 0; k < hg_nclasses(g); k++) {
                int ins;
                if (hg_class_obj(g, k) != HG_NONE &&
                    !hu_map_upsert(&clsof, hg_class_obj(g, k), k + 1u, &ins)) {
                    hu_map_cleanup(&clsof);
                    snprintf(err, errlen, "out of memory");
                    goto out;
                }
            }
            clsof_built = 1;
        }
        uint64_t *k = hg_is_class(g, l->to) ? hu_map_get(&clsof, l->to) : NULL;
        if (k && hg_class_loader(g, (uint32_t)(*k - 1)) == hg_id(g, l->from))
            hg_set(l, "<classes>");
        hg_set(l, "?");
    }
    hu_map_cleanup(&clsof);
    for (size_t k = 0; k < nframes; k++) {
        uint64_t *fi = c.frame_id[k] ? hu_map_get(&c.frec, c.frame_id[k]) : NULL;
        if (!fi)
            continue;
        const hg_frame_rec *f = &c.fr[*fi - 1];
        uint64_t *nid = hu_map_get(&c.serial, f->class_serial);
        const char *cn = nid ? hg_utf8(g, *nid) : NULL;
        char jn[HG_NAME_MAX];
        hg_java_name(cn ? cn : "?", cn ? strlen(cn) : 1, jn, sizeof jn);
        const char *m = hg_utf8(g, f->method), *sf = hg_utf8(g, f->source);
        char line[32];
        if (f->line > 0)
            snprintf(line, sizeof line, ":%" PRId32, f->line);
        else
            line[0] = 0;
        int w = snprintf(frames[k].text, sizeof frames[k].text, "%s.%s(%s%s)", jn, m ? m : "?",
                         sf ? sf : "Unknown Source", sf ? line : "");
        if (w < 0) /* a long name is cut; an encoding error leaves no text */
            frames[k].text[0] = 0;
    }
    rc = 0;
out:
    hu_map_cleanup(&c.from);
    hu_map_cleanup(&c.frec);
    hu_map_cleanup(&c.serial);
    hu_map_cleanup(&c.tobj);
    hu_map_cleanup(&c.arr);
    free(c.tstr);
    free(c.tarr);
    free(c.tcoder);
    free(c.traw);
    free(c.trawn);
    free(c.ttype);
    free(c.next);
    free(c.frame_id);
    free(c.fr);
    return rc;
}
