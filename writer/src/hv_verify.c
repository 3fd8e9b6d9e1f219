/*
 * hv_verify.c: the verifier behind hv_verify.h.
 *
 * Owns: the checks of what real HPROF readers (VisualVM, jhat-style
 * single-pass readers) choke on, as listed in readers-and-hotspot.md section 4,
 * and their wording. It drives hr_parse twice when the source rewinds:
 *  - pass 1 records definitions (UTF8 ids, class serials, trace serials,
 *    frame ids, thread serials, LOAD CLASS and CLASS DUMP ids, every object
 *    id) and checks the heap structure, legacy totals and uses of ids and
 *    serials. A use of something not yet defined is kept as "pending" (one
 *    entry per distinct key), so at the end it can be told apart: defined
 *    later (an ordering problem for single-pass readers) or never (unresolved).
 *    This needs no second pass, so fd/stdin sources get these checks too.
 *  - pass 2 resolves object references (instance fields through the class
 *    chain, array elements, statics, loader ids, roots) against the whole
 *    dump (hv_heap.c), and captures the names (class, field) that messages
 *    print.
 * The whole-heap checks between the passes live in hv_heap.c; the state
 * both share is hv_ctx.h.
 * Memory is proportional to distinct ids, serials and classes (hu_map),
 * never to the bytes of the file: strings are only kept for the names the
 * messages need, truncated.
 */
#include "hprof/hv_verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv_ctx.h"
#include "hv_sites.h"


/* ------------------------------------------------------------ reporting */

static hv_kind_count *hv_kind_slot(hv_result *res, const char *kind)
{
    for (unsigned i = 0; i < res->nkinds; i++)
        if (strcmp(res->kinds[i].kind, kind) == 0)
            return &res->kinds[i];
    if (res->nkinds >= sizeof res->kinds / sizeof res->kinds[0])
        return NULL;
    hv_kind_count *k = &res->kinds[res->nkinds++];
    /* Parser kinds come from the reader's own static strings, ours are
     * literals: both outlive the result, so no copy is needed. */
    k->kind = kind;
    k->severity = 0;
    k->count = 0;
    k->offset = 0;
    return k;
}

static int hv_ignored(const hv_options *o, const char *kind)
{
    if (!o->ignore)
        return 0;
    for (const char *const *p = o->ignore; *p; p++)
        if (strcmp(*p, kind) == 0)
            return 1;
    return 0;
}

/* Counts one problem; returns 1 when its sentence should be built and
 * delivered (not ignored, within max_per_kind, someone listening). */
int hv_count(hv_ctx *c, hr_severity sev, const char *kind, uint64_t off)
{
    hv_kind_count *k = hv_kind_slot(c->res, kind);
    uint64_t n = 1;
    if (k) {
        if (k->count++ == 0)
            k->offset = off;
        if (sev > k->severity)
            k->severity = sev;
        n = k->count;
    }
    if (hv_ignored(c->opt, kind))
        return 0;
    if (sev == HR_ERROR)
        c->res->errors++;
    else
        c->res->warnings++;
    if (!c->opt->on_problem)
        return 0;
    return c->opt->max_per_kind == 0 || n <= c->opt->max_per_kind;
}

void hv_deliver(hv_ctx *c, hr_severity sev, const char *kind, uint64_t off, const char *msg)
{
    hv_problem p = {sev, kind, off, msg};
    c->opt->on_problem(c->opt->ctx, &p);
}

void hv_report(hv_ctx *c, hr_severity sev, const char *kind, uint64_t off, const char *fmt, ...)
{
    if (!hv_count(c, sev, kind, off))
        return;
    char msg[HV_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    hv_deliver(c, sev, kind, off, msg);
}

/* ---------------------------------------------------------------- names */

const char *hv_name(const hv_ctx *c, hprof_id utf8_id)
{
    uint64_t *v = hu_map_get(&c->want, utf8_id);
    return (v && *v) ? c->names + (*v - 1) : NULL;
}

static void hv_want(hv_ctx *c, hprof_id utf8_id)
{
    int ins;
    if (!hu_map_upsert(&c->want, utf8_id, 0, &ins))
        c->oom = 1;
}

/* Keeps the string of a wanted UTF8 id (pass 2), made printable. */
static void hv_keep_name(hv_ctx *c, hprof_id id, const char *s, uint32_t len)
{
    uint64_t *v = hu_map_get(&c->want, id);
    if (!v || *v)
        return;
    size_t n = len > HV_NAME_MAX ? HV_NAME_MAX : len;
    if (c->nnames + n + 4 > c->ncap) {
        size_t ncap = c->ncap ? c->ncap * 2 : 4096;
        while (ncap < c->nnames + n + 4)
            ncap *= 2;
        char *p = realloc(c->names, ncap);
        if (!p) {
            c->oom = 1;
            return;
        }
        c->names = p;
        c->ncap = ncap;
    }
    char *d = c->names + c->nnames;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        d[i] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
    }
    if (n < len) {
        memcpy(d + n, "...", 3);
        n += 3;
    }
    d[n] = '\0';
    v = hu_map_get(&c->want, id); /* realloc above did not touch the map */
    *v = c->nnames + 1;
    c->nnames += n + 1;
}

/* "0x1a2b (java/lang/Foo)" or "0x1a2b" when the name is unknown. */
const char *hv_cname(const hv_ctx *c, hprof_id class_id, char *buf, size_t n)
{
    uint64_t *nid = hu_map_get(&c->lc_name, class_id);
    const char *name = nid ? hv_name(c, *nid) : NULL;
    if (name)
        snprintf(buf, n, "0x%llx (%s)", (unsigned long long)class_id, name);
    else
        snprintf(buf, n, "0x%llx", (unsigned long long)class_id);
    return buf;
}

/* Bare class name for chains: "java/lang/Foo" or "0x1a2b". */
const char *hv_cshort(const hv_ctx *c, hprof_id class_id, char *buf, size_t n)
{
    uint64_t *nid = hu_map_get(&c->lc_name, class_id);
    const char *name = nid ? hv_name(c, *nid) : NULL;
    if (name)
        snprintf(buf, n, "%s", name);
    else
        snprintf(buf, n, "0x%llx", (unsigned long long)class_id);
    return buf;
}

const char *hv_subname(unsigned tag)
{
    const char *s = hprof_sub_name(tag);
    return s ? s : "sub-record";
}

/* ------------------------------------------------------- pending uses */

/* Whether a single-pass reader (jhat) looks the key up when it meets this
 * use. It skips LOAD CLASS trace serials, START/END THREAD, ALLOC SITES and
 * CPU SAMPLES; HotSpot itself writes LOAD CLASS (trace serial 1) before
 * TRACE 1, so a late definition only matters for the other uses. */
static int hv_ordered(int t, unsigned what)
{
    switch (t) {
    case HV_T_UTF8: return what != HV_W_START_THREAD && what != HV_W_HEAP_INFO;
    case HV_T_CSER: return what == HV_W_FRAME;
    case HV_T_TRACE:
        return what == HV_W_ROOT || what == HV_W_CLASS_DUMP || what == HV_W_INSTANCE ||
               what == HV_W_OBJ_ARRAY || what == HV_W_PRIM_ARRAY;
    default: return 1;
    }
}

static void hv_usepos_set(hv_usepos *u, uint64_t offset, uint8_t what, uint8_t role, uint64_t aux,
                          uint32_t aux2)
{
    u->offset = offset;
    u->aux = aux;
    u->aux2 = aux2;
    u->count = 1;
    u->what = what;
    u->role = role;
}

static void hv_use(hv_ctx *c, int t, uint64_t key, uint64_t offset, uint8_t what,
                   uint8_t role, uint64_t aux, uint32_t aux2)
{
    hv_track *tr = &c->tr[t];
    if (c->pass != 1 || hu_map_get(tr->defs, key))
        return;
    int ordered = hv_ordered(t, what);
    int ins;
    uint64_t *slot = hu_map_upsert(&tr->index, key, tr->npend, &ins);
    if (!slot) {
        c->oom = 1;
        return;
    }
    if (!ins) {
        hv_pend *p = &tr->pend[*slot];
        p->first.count++;
        if (ordered && p->ordered.count++ == 0)
            hv_usepos_set(&p->ordered, offset, what, role, aux, aux2);
        return;
    }
    if (tr->npend == tr->cap) {
        size_t ncap = tr->cap ? tr->cap * 2 : 64;
        hv_pend *p = realloc(tr->pend, ncap * sizeof *p);
        if (!p) {
            c->oom = 1;
            return;
        }
        tr->pend = p;
        tr->cap = ncap;
    }
    hv_pend *p = &tr->pend[tr->npend++];
    memset(p, 0, sizeof *p);
    p->key = key;
    hv_usepos_set(&p->first, offset, what, role, aux, aux2);
    if (ordered)
        p->ordered = p->first;
}

/* Records a definition (the first one wins: it is what a reader sees first). */
static void hv_def(hv_ctx *c, hu_map *m, uint64_t key, uint64_t offset)
{
    int ins;
    if (!hu_map_upsert(m, key, offset, &ins))
        c->oom = 1;
}

static const char *hv_role_text(unsigned role)
{
    switch (role) {
    case HV_R_NAME: return "the name";
    case HV_R_METHOD_NAME: return "the method name";
    case HV_R_METHOD_SIG: return "the method signature";
    case HV_R_SOURCE_FILE: return "the source file name";
    case HV_R_CLASS_SERIAL: return "the class serial";
    case HV_R_TRACE: return "the stack trace serial";
    case HV_R_THREAD: return "the thread serial";
    case HV_R_FRAME: return "a frame";
    case HV_R_FIELD_NAME: return "an instance field name";
    case HV_R_STATIC_NAME: return "a static field name";
    case HV_R_SUPER: return "the super class";
    case HV_R_CLASS: return "the class";
    case HV_R_GROUP_NAME: return "the thread group name";
    case HV_R_PARENT_GROUP_NAME: return "the parent thread group name";
    case HV_R_HEAP_NAME: return "the heap name";
    default: return "a field";
    }
}

static void hv_use_text(const hv_ctx *c, const hv_usepos *p, char *buf, size_t n)
{
    char cb[HV_NAME_MAX + 40];
    unsigned long long aux = (unsigned long long)p->aux;
    switch (p->what) {
    case HV_W_LOAD_CLASS:
        snprintf(buf, n, "LOAD CLASS serial %u (class %s)", p->aux2,
                 hv_cname(c, p->aux, cb, sizeof cb));
        break;
    case HV_W_UNLOAD_CLASS: snprintf(buf, n, "UNLOAD CLASS"); break;
    case HV_W_FRAME: snprintf(buf, n, "FRAME 0x%llx", aux); break;
    case HV_W_TRACE: snprintf(buf, n, "TRACE serial %u", p->aux2); break;
    case HV_W_SITES: snprintf(buf, n, "site #%u of ALLOC SITES", p->aux2); break;
    case HV_W_START_THREAD: snprintf(buf, n, "START THREAD serial %u", p->aux2); break;
    case HV_W_END_THREAD: snprintf(buf, n, "END THREAD"); break;
    case HV_W_SAMPLES: snprintf(buf, n, "entry #%u of CPU SAMPLES", p->aux2); break;
    case HV_W_ROOT: snprintf(buf, n, "%s of object 0x%llx", hv_subname(p->aux2), aux); break;
    case HV_W_CLASS_DUMP:
        snprintf(buf, n, "CLASS DUMP of class %s", hv_cname(c, p->aux, cb, sizeof cb));
        break;
    case HV_W_INSTANCE: snprintf(buf, n, "INSTANCE DUMP of object 0x%llx", aux); break;
    case HV_W_OBJ_ARRAY: snprintf(buf, n, "OBJ ARRAY DUMP of object 0x%llx", aux); break;
    case HV_W_PRIM_ARRAY: snprintf(buf, n, "PRIM ARRAY DUMP of object 0x%llx", aux); break;
    case HV_W_HEAP_INFO: snprintf(buf, n, "HEAP DUMP INFO"); break;
    default: snprintf(buf, n, "a record"); break;
    }
}

/* How each namespace is named and what a reader does about a problem. */
typedef struct hv_track_info {
    const char *noun;    /* "UTF8 id" */
    int hex;             /* ids print in hex, serials in decimal */
    const char *definer; /* "UTF8 record" */
    const char *missing_kind;
    hr_severity missing_sev;
    const char *missing_why;
    const char *after_kind; /* NULL: defining it later is fine */
    hr_severity after_sev;
    const char *after_why;
} hv_track_info;

static const hv_track_info hv_tracks[HV_NTRACK] = {
    [HV_T_UTF8] = {"UTF8 id", 1, "UTF8 record",
                   "unresolved-utf8", HR_WARNING,
                   "jhat warns \"Name not found\" and VisualVM shows <unresolved string>",
                   "utf8-after-use", HR_WARNING,
                   "single-pass readers such as jhat have not seen it yet and warn \"Name not found\"; "
                   "write UTF8 records before their first use"},
    [HV_T_CSER] = {"class serial", 0, "LOAD CLASS",
                   "unresolved-class-serial", HR_WARNING,
                   "readers cannot name the class",
                   "unresolved-class-serial", HR_WARNING,
                   "single-pass readers such as jhat cannot name the class at that point"},
    [HV_T_TRACE] = {"stack trace serial", 0, "TRACE",
                    "unresolved-trace", HR_WARNING,
                    "jhat warns \"Stack trace not found for serial #\" for every use; write an empty "
                    "TRACE and use its serial where there is no trace, as HotSpot does with serial 1",
                    "unresolved-trace", HR_WARNING,
                    "single-pass readers such as jhat warn \"Stack trace not found for serial #\"; "
                    "write TRACE records before their first use"},
    [HV_T_FRAME] = {"frame id", 1, "FRAME",
                    "unresolved-frame", HR_ERROR,
                    "jhat fails with \"Stack frame ... not found\"",
                    "frame-after-trace", HR_ERROR,
                    "jhat fails with \"Stack frame ... not found\"; write each FRAME before the TRACE "
                    "that lists it"},
    [HV_T_THREAD] = {"thread serial", 0, "START THREAD or ROOT THREAD OBJECT",
                     "unresolved-thread", HR_WARNING,
                     "readers cannot tell which thread it belongs to",
                     NULL, 0, NULL},
    [HV_T_RTHREAD] = {"thread serial", 0, "ROOT THREAD OBJECT",
                      "unresolved-thread", HR_ERROR,
                      "jhat fails with \"Thread N not found for JNI local ref\" (it looks the thread up "
                      "among ROOT THREAD OBJECT records only)",
                      "root-before-thread-object", HR_ERROR,
                      "jhat fails with \"Thread N not found for JNI local ref\"; write each thread's "
                      "ROOT THREAD OBJECT before its other roots"},
    [HV_T_LOADCLASS] = {"class", 1, "LOAD CLASS",
                        "missing-load-class", HR_WARNING,
                        "the class has no name: VisualVM shows <unresolved string>, jhat unknown-name@0x...",
                        "load-class-after-class-dump", HR_WARNING,
                        "single-pass readers such as jhat warn \"Class name not found\"; write LOAD CLASS "
                        "before the CLASS DUMP"},
    [HV_T_CD_INST] = {"class", 1, "CLASS DUMP",
                      "missing-class-dump", HR_ERROR,
                      "VisualVM silently drops such instances and jhat fails with \"Class Record for "
                      "0x... not found\"",
                      "class-dump-after-instance", HR_ERROR,
                      "jhat fails with \"Class Record for 0x... not found\"; write each CLASS DUMP before "
                      "the instances of its class"},
    [HV_T_CD_SUPER] = {"class", 1, "CLASS DUMP",
                       "missing-class-dump", HR_ERROR,
                       "readers cannot decode the inherited fields of its instances",
                       NULL, 0, NULL},
    [HV_T_ARRCLASS] = {"class", 1, "CLASS DUMP",
                       "missing-array-class", HR_WARNING,
                       "readers cannot type the array; every array class needs LOAD CLASS + CLASS DUMP, "
                       "as HotSpot writes them",
                       NULL, 0, NULL},
};

static void hv_key_text(const hv_ctx *c, int t, uint64_t key, char *buf, size_t n)
{
    const hv_track_info *ti = &hv_tracks[t];
    if (t == HV_T_LOADCLASS || t == HV_T_CD_INST || t == HV_T_CD_SUPER || t == HV_T_ARRCLASS) {
        char cb[HV_NAME_MAX + 40];
        snprintf(buf, n, "class %s", hv_cname(c, key, cb, sizeof cb));
    } else if (ti->hex) {
        snprintf(buf, n, "%s 0x%llx", ti->noun, (unsigned long long)key);
    } else {
        snprintf(buf, n, "%s %llu", ti->noun, (unsigned long long)key);
    }
}

static void hv_resolve_track(hv_ctx *c, int t)
{
    const hv_track_info *ti = &hv_tracks[t];
    hv_track *tr = &c->tr[t];
    for (size_t i = 0; i < tr->npend; i++) {
        const hv_pend *pe = &tr->pend[i];
        uint64_t *def = hu_map_get(tr->defs, pe->key);
        if (def && (!ti->after_kind || !pe->ordered.count))
            continue;
        const hv_usepos *p = def ? &pe->ordered : &pe->first;
        const char *kind = def ? ti->after_kind : ti->missing_kind;
        hr_severity sev = def ? ti->after_sev : ti->missing_sev;
        if (!hv_count(c, sev, kind, p->offset))
            continue;
        char use[HV_NAME_MAX + 80], key[HV_NAME_MAX + 60], more[64] = "";
        hv_use_text(c, p, use, sizeof use);
        hv_key_text(c, t, pe->key, key, sizeof key);
        char msg[HV_MSG_MAX];
        if (def) {
            if (p->count > 1)
                snprintf(more, sizeof more, " (%llu uses before it)", (unsigned long long)p->count);
            snprintf(msg, sizeof msg,
                     "%s of %s at offset %llu is %s, which is defined only later, by the %s at "
                     "offset %llu%s; %s",
                     hv_role_text(p->role), use, (unsigned long long)p->offset, key,
                     ti->definer, (unsigned long long)*def, more, ti->after_why);
        } else {
            if (p->count > 1)
                snprintf(more, sizeof more, " (%llu uses in all)", (unsigned long long)p->count);
            snprintf(msg, sizeof msg,
                     "%s of %s at offset %llu is %s, but no %s defines it%s; %s",
                     hv_role_text(p->role), use, (unsigned long long)p->offset, key,
                     ti->definer, more, ti->missing_why);
        }
        /* Sentences start with a capital letter. */
        if (msg[0] >= 'a' && msg[0] <= 'z')
            msg[0] = (char)(msg[0] - 'a' + 'A');
        hv_deliver(c, sev, kind, p->offset, msg);
    }
}

/* --------------------------------------------------------------- pass 1 */

static void hv_note_object(hv_ctx *c, hprof_id id, int kind, const hr_sub *s)
{
    static const char *const kinds[] = {"", "an INSTANCE DUMP", "an OBJ ARRAY DUMP",
                                        "a PRIM ARRAY DUMP", "a CLASS DUMP"};
    int ins;
    uint64_t *v = hu_map_upsert(&c->objs, id, (uint64_t)kind, &ins);
    if (!v) {
        c->oom = 1;
        return;
    }
    if (!ins) {
        unsigned prev = (unsigned)(*v < 5 ? *v : 0);
        hv_report(c, HR_ERROR, "duplicate-id", s->offset,
                  "%s at offset %llu uses object id 0x%llx, which %s already used; readers keep "
                  "only one of them and silently lose the other",
                  hv_subname(s->tag), (unsigned long long)s->offset, (unsigned long long)id,
                  kinds[prev]);
    }
}

static int hv_prim_type_of_name(const char *s, uint32_t len)
{
    static const struct { const char *name; int type; } names[] = {
        {"[Z", HPROF_TYPE_BOOLEAN}, {"[C", HPROF_TYPE_CHAR},   {"[F", HPROF_TYPE_FLOAT},
        {"[D", HPROF_TYPE_DOUBLE},  {"[B", HPROF_TYPE_BYTE},   {"[S", HPROF_TYPE_SHORT},
        {"[I", HPROF_TYPE_INT},     {"[J", HPROF_TYPE_LONG},   {"boolean[]", HPROF_TYPE_BOOLEAN},
        {"char[]", HPROF_TYPE_CHAR}, {"float[]", HPROF_TYPE_FLOAT}, {"double[]", HPROF_TYPE_DOUBLE},
        {"byte[]", HPROF_TYPE_BYTE}, {"short[]", HPROF_TYPE_SHORT}, {"int[]", HPROF_TYPE_INT},
        {"long[]", HPROF_TYPE_LONG},
    };
    if (len > 9)
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == len && memcmp(names[i].name, s, len) == 0)
            return names[i].type;
    return 0;
}

/* True when the parser could decode the record into r->u. A record whose
 * length contradicts its layout is reported by the parser (bad-length) and
 * still handed over with a zeroed union: reading it would invent uses of
 * id 0 and serial 0. */
static int hv_decoded(const hv_ctx *c, const hr_record *r)
{
    uint64_t id = c->id_size, len = r->length;
    switch (r->tag) {
    case HPROF_TAG_UTF8: return len >= id;
    case HPROF_TAG_LOAD_CLASS: return len == 8 + 2 * id;
    case HPROF_TAG_UNLOAD_CLASS: return len == 4;
    case HPROF_TAG_FRAME: return len == 8 + 4 * id;
    case HPROF_TAG_TRACE: return len >= 12 && len == 12 + (uint64_t)hr_get_u4(r->body + 8) * id;
    case HPROF_TAG_ALLOC_SITES:
        return len >= 34 && len == 34 + (uint64_t)hr_get_u4(r->body + 30) * 25;
    case HPROF_TAG_START_THREAD: return len == 8 + 4 * id;
    case HPROF_TAG_END_THREAD: return len == 4;
    case HPROF_TAG_CPU_SAMPLES: return len >= 8 && len == 8 + (uint64_t)hr_get_u4(r->body + 4) * 8;
    default: return 1;
    }
}

static void hv_p1_record(hv_ctx *c, const hr_record *r)
{
    uint64_t off = r->offset;
    if (r->body && !hv_decoded(c, r))
        return;
    switch (r->tag) {
    case HPROF_TAG_UTF8: {
        hv_def(c, &c->utf8_defs, r->u.utf8.id, off);
        int t = hv_prim_type_of_name(r->u.utf8.str, r->u.utf8.len);
        if (t) {
            int ins;
            if (!hu_map_upsert(&c->prim_names, r->u.utf8.id, (uint64_t)t, &ins))
                c->oom = 1;
        }
        break;
    }
    case HPROF_TAG_LOAD_CLASS: {
        uint32_t ser = r->u.load_class.class_serial;
        hprof_id cid = r->u.load_class.class_id;
        hv_use(c, HV_T_UTF8, r->u.load_class.name_id, off, HV_W_LOAD_CLASS, HV_R_NAME, cid, ser);
        hv_use(c, HV_T_TRACE, r->u.load_class.trace_serial, off, HV_W_LOAD_CLASS, HV_R_TRACE,
               cid, ser);
        hv_def(c, &c->cser_defs, ser, off);
        hv_def(c, &c->lc_defs, cid, off);
        if (hu_map_put(&c->cser_cid, ser, cid))
            c->oom = 1;
        hu_map_del(&c->unloaded, cid, NULL); /* loaded again under its id: loaded */
        int ins;
        if (!hu_map_upsert(&c->lc_name, cid, r->u.load_class.name_id, &ins))
            c->oom = 1;
        hv_want(c, r->u.load_class.name_id);
        break;
    }
    case HPROF_TAG_UNLOAD_CLASS: {
        hv_use(c, HV_T_CSER, r->u.unload_class.class_serial, off, HV_W_UNLOAD_CLASS,
               HV_R_CLASS_SERIAL, 0, 0);
        uint64_t *cid = hu_map_get(&c->cser_cid, r->u.unload_class.class_serial);
        if (cid && hu_map_put(&c->unloaded, *cid, off))
            c->oom = 1;
        break;
    }
    case HPROF_TAG_FRAME: {
        hprof_id fid = r->u.frame.frame_id;
        hv_use(c, HV_T_UTF8, r->u.frame.method_name_id, off, HV_W_FRAME, HV_R_METHOD_NAME, fid, 0);
        hv_use(c, HV_T_UTF8, r->u.frame.method_sig_id, off, HV_W_FRAME, HV_R_METHOD_SIG, fid, 0);
        /* 0 is "no source file" (HotSpot writes it for hidden classes). */
        if (r->u.frame.source_file_id)
            hv_use(c, HV_T_UTF8, r->u.frame.source_file_id, off, HV_W_FRAME, HV_R_SOURCE_FILE,
                   fid, 0);
        hv_use(c, HV_T_CSER, r->u.frame.class_serial, off, HV_W_FRAME, HV_R_CLASS_SERIAL, fid, 0);
        hv_def(c, &c->frame_defs, fid, off);
        break;
    }
    case HPROF_TAG_TRACE: {
        uint32_t ser = r->u.trace.trace_serial;
        /* Thread 0 is "no thread": HotSpot's empty trace and the original
         * agent's traces without thread=y. */
        if (r->u.trace.thread_serial)
            hv_use(c, HV_T_THREAD, r->u.trace.thread_serial, off, HV_W_TRACE, HV_R_THREAD, 0, ser);
        for (uint32_t i = 0; i < r->u.trace.nframes && !c->oom; i++)
            hv_use(c, HV_T_FRAME, hr_trace_frame(r, c->id_size, i), off, HV_W_TRACE, HV_R_FRAME,
                   0, ser);
        hv_def(c, &c->trace_defs, ser, off);
        break;
    }
    case HPROF_TAG_ALLOC_SITES: {
        /* Sites below the cutoff are not listed, so the totals may exceed the
         * sums; only sums above the totals are impossible. */
        uint64_t lb = 0, li = 0, ab = 0, ai = 0;
        uint32_t bad_site = UINT32_MAX;
        for (uint32_t i = 0; i < r->u.alloc_sites.nsites && !c->oom; i++) {
            hr_alloc_site st;
            hr_alloc_site_at(r, i, &st);
            /* Class serial 0 is allowed during start-up (the spec says so). */
            if (st.class_serial)
                hv_use(c, HV_T_CSER, st.class_serial, off, HV_W_SITES, HV_R_CLASS_SERIAL, 0, i);
            hv_use(c, HV_T_TRACE, st.trace_serial, off, HV_W_SITES, HV_R_TRACE, 0, i);
            lb += st.live_bytes;
            li += st.live_instances;
            ab += st.alloc_bytes;
            ai += st.alloc_instances;
            if (bad_site == UINT32_MAX &&
                (st.live_bytes > st.alloc_bytes || st.live_instances > st.alloc_instances))
                bad_site = i;
        }
        if (lb > r->u.alloc_sites.total_live_bytes || li > r->u.alloc_sites.total_live_instances ||
            ab > r->u.alloc_sites.total_alloc_bytes || ai > r->u.alloc_sites.total_alloc_instances)
            hv_report(c, HR_WARNING, "sites-total-mismatch", off,
                      "ALLOC SITES at offset %llu lists %u sites whose sums (live %llu bytes / %llu "
                      "instances, allocated %llu bytes / %llu instances) exceed its totals (live %u / "
                      "%u, allocated %llu / %llu)",
                      (unsigned long long)off, r->u.alloc_sites.nsites, (unsigned long long)lb,
                      (unsigned long long)li, (unsigned long long)ab, (unsigned long long)ai,
                      r->u.alloc_sites.total_live_bytes, r->u.alloc_sites.total_live_instances,
                      (unsigned long long)r->u.alloc_sites.total_alloc_bytes,
                      (unsigned long long)r->u.alloc_sites.total_alloc_instances);
        char sat[HV_MSG_MAX];
        if (hv_sites_saturated(r, sat, sizeof sat))
            hv_report(c, HR_WARNING, "u4-saturated", off, "%s", sat);
        if (bad_site != UINT32_MAX)
            hv_report(c, HR_WARNING, "sites-total-mismatch", off,
                      "Site #%u of ALLOC SITES at offset %llu has more live bytes or instances than "
                      "it ever allocated",
                      bad_site, (unsigned long long)off);
        break;
    }
    case HPROF_TAG_START_THREAD: {
        uint32_t ser = r->u.start_thread.thread_serial;
        hv_use(c, HV_T_TRACE, r->u.start_thread.trace_serial, off, HV_W_START_THREAD, HV_R_TRACE,
               0, ser);
        /* The original agent writes 0 for a missing name or group. */
        if (r->u.start_thread.name_id)
            hv_use(c, HV_T_UTF8, r->u.start_thread.name_id, off, HV_W_START_THREAD, HV_R_NAME, 0,
                   ser);
        if (r->u.start_thread.group_name_id)
            hv_use(c, HV_T_UTF8, r->u.start_thread.group_name_id, off, HV_W_START_THREAD,
                   HV_R_GROUP_NAME, 0, ser);
        if (r->u.start_thread.parent_group_name_id)
            hv_use(c, HV_T_UTF8, r->u.start_thread.parent_group_name_id, off, HV_W_START_THREAD,
                   HV_R_PARENT_GROUP_NAME, 0, ser);
        hv_def(c, &c->thread_defs, ser, off);
        break;
    }
    case HPROF_TAG_END_THREAD:
        hv_use(c, HV_T_THREAD, r->u.end_thread.thread_serial, off, HV_W_END_THREAD, HV_R_THREAD,
               0, 0);
        break;
    case HPROF_TAG_CPU_SAMPLES: {
        /* Traces below the cutoff are not listed but counted in the total. */
        uint64_t sum = 0;
        for (uint32_t i = 0; i < r->u.cpu_samples.ntraces && !c->oom; i++) {
            uint32_t cnt, ser;
            hr_cpu_sample_at(r, i, &cnt, &ser);
            hv_use(c, HV_T_TRACE, ser, off, HV_W_SAMPLES, HV_R_TRACE, 0, i);
            sum += cnt;
        }
        if (sum > r->u.cpu_samples.total)
            hv_report(c, HR_WARNING, "samples-total-mismatch", off,
                      "CPU SAMPLES at offset %llu says %u samples in total, but its %u traces add "
                      "up to %llu",
                      (unsigned long long)off, r->u.cpu_samples.total, r->u.cpu_samples.ntraces,
                      (unsigned long long)sum);
        break;
    }
    case HPROF_TAG_HEAP_DUMP:
        if (c->seen_0c || c->in_segments || c->seen_end)
            hv_report(c, HR_ERROR, "multiple-heap-dumps", off,
                      "HEAP DUMP (0x0C) at offset %llu starts a second heap dump in this file; jhat "
                      "reads only the first and VisualVM opens dump #0 (a partial heap); write one "
                      "dump per file",
                      (unsigned long long)off);
        c->seen_0c = 1;
        if (r->length == 0 && c->version != HPROF_VERSION_1_0_3)
            hv_report(c, HR_ERROR, "zero-length-segment", off,
                      "HEAP DUMP (0x0C) at offset %llu has length 0; VisualVM rejects the file "
                      "(\"Heap dump is broken. Tag 0xc ... has zero length\")",
                      (unsigned long long)off);
        break;
    case HPROF_TAG_HEAP_DUMP_SEGMENT:
        if (c->version == HPROF_VERSION_1_0_1 && !c->reported_101) {
            c->reported_101 = 1;
            hv_report(c, HR_ERROR, "segments-in-1.0.1", off,
                      "HEAP DUMP SEGMENT at offset %llu in a JAVA PROFILE 1.0.1 file; jhat ignores "
                      "segments in 1.0.1 files and sees an empty heap; use a 1.0.2 header",
                      (unsigned long long)off);
        }
        if (!c->in_segments) {
            c->in_segments = 1;
            c->first_seg_offset = off;
            if (c->seen_end) {
                hv_report(c, HR_ERROR, "sub-after-end", off,
                          "HEAP DUMP SEGMENT at offset %llu comes after a HEAP DUMP END; jhat stops "
                          "at the first END and silently misses these sub-records",
                          (unsigned long long)off);
            } else if (c->seen_0c) {
                hv_report(c, HR_ERROR, "multiple-heap-dumps", off,
                          "HEAP DUMP SEGMENT at offset %llu starts a second heap dump after a HEAP "
                          "DUMP (0x0C) record; readers see only one of them; write one dump per file",
                          (unsigned long long)off);
            }
        }
        if (r->length == 0 && c->version != HPROF_VERSION_1_0_3)
            hv_report(c, HR_ERROR, "zero-length-segment", off,
                      "HEAP DUMP SEGMENT at offset %llu has length 0; VisualVM rejects the file "
                      "(\"Heap dump is broken. Tag 0x1c ... has zero length\"); never flush an "
                      "empty segment",
                      (unsigned long long)off);
        break;
    case HPROF_TAG_HEAP_DUMP_END:
        if (c->version == HPROF_VERSION_1_0_1 && !c->reported_101) {
            c->reported_101 = 1;
            hv_report(c, HR_ERROR, "segments-in-1.0.1", off,
                      "HEAP DUMP END at offset %llu in a JAVA PROFILE 1.0.1 file; jhat ignores "
                      "segments in 1.0.1 files; use a 1.0.2 header",
                      (unsigned long long)off);
        }
        c->in_segments = 0;
        c->seen_end = 1;
        break;
    default:
        /* VisualVM treats any empty record but END as a broken dump; known
         * fixed-layout records of length 0 are the parser's bad-length. */
        if (r->length == 0 && !hprof_tag_name(r->tag) && c->version != HPROF_VERSION_1_0_3)
            hv_report(c, HR_ERROR, "zero-length-segment", off,
                      "Record with tag 0x%02x at offset %llu has length 0; VisualVM rejects any "
                      "empty record other than HEAP DUMP END (\"Heap dump is broken\")",
                      r->tag, (unsigned long long)off);
        break;
    }
}

static void hv_p1_class_dump(hv_ctx *c, const hr_sub *s)
{
    hprof_id cid = s->u.cls.class_id;
    uint64_t off = s->offset;
    hv_use(c, HV_T_LOADCLASS, cid, off, HV_W_CLASS_DUMP, HV_R_CLASS, cid, 0);
    hv_use(c, HV_T_TRACE, s->u.cls.trace_serial, off, HV_W_CLASS_DUMP, HV_R_TRACE, cid, 0);
    if (s->u.cls.super_id)
        hv_use(c, HV_T_CD_SUPER, s->u.cls.super_id, off, HV_W_CLASS_DUMP, HV_R_SUPER, cid, 0);
    const uint8_t *p = s->u.cls.statics;
    for (uint16_t i = 0; i < s->u.cls.nstatics && p; i++) {
        hr_static st;
        p = hr_class_static_next(p, c->id_size, &st);
        hv_use(c, HV_T_UTF8, st.name_id, off, HV_W_CLASS_DUMP, HV_R_STATIC_NAME, cid, 0);
        hv_want(c, st.name_id);
    }
    hv_note_object(c, cid, HV_OBJ_CLASS, s);
    int ins;
    uint64_t *slot = hu_map_upsert(&c->class_idx, cid, c->nclasses, &ins);
    if (!slot) {
        c->oom = 1;
        return;
    }
    /* A duplicate CLASS DUMP is reported as duplicate-id; the first is kept
     * for decoding, but its field names are still checked. */
    int keep = ins;
    uint64_t *gone = hu_map_get(&c->unloaded, cid);
    if (gone) {
        char cn[HV_NAME_MAX + 32];
        hv_report(c, HR_WARNING, "class-dump-after-unload", off,
                  "CLASS DUMP of class %s at offset %llu comes after its UNLOAD CLASS at offset "
                  "%llu: readers show a class the JVM had unloaded as still present",
                  hv_cname(c, cid, cn, sizeof cn), (unsigned long long)off, (unsigned long long)*gone);
    }
    if (keep) {
        hv_def(c, &c->cd_defs, cid, off);
        if (c->nclasses == c->ccap) {
            size_t ncap = c->ccap ? c->ccap * 2 : 256;
            hv_class *k = realloc(c->classes, ncap * sizeof *k);
            if (!k) {
                c->oom = 1;
                return;
            }
            c->classes = k;
            c->ccap = ncap;
        }
        if (c->nfields + s->u.cls.nfields > c->fcap) {
            size_t ncap = c->fcap ? c->fcap : 1024;
            while (ncap < c->nfields + s->u.cls.nfields)
                ncap *= 2;
            hv_fieldrec *f = realloc(c->fields, ncap * sizeof *f);
            if (!f) {
                c->oom = 1;
                return;
            }
            c->fields = f;
            c->fcap = ncap;
        }
    }
    hv_class *k = keep ? &c->classes[c->nclasses] : NULL;
    if (k) {
        memset(k, 0, sizeof *k);
        k->id = cid;
        k->super = s->u.cls.super_id;
        k->offset = off;
        k->field0 = c->nfields;
        k->nfields = s->u.cls.nfields;
    }
    p = s->u.cls.fields;
    for (uint16_t i = 0; i < s->u.cls.nfields && p; i++) {
        hr_field f;
        p = hr_class_field_next(p, c->id_size, &f);
        hv_use(c, HV_T_UTF8, f.name_id, off, HV_W_CLASS_DUMP, HV_R_FIELD_NAME, cid, 0);
        hv_want(c, f.name_id);
        if (k) {
            c->fields[c->nfields].name_id = f.name_id;
            c->fields[c->nfields].type = f.type;
            c->nfields++;
            k->own_bytes += hprof_type_size(f.type, c->id_size);
        }
    }
    if (k)
        c->nclasses++;
    if (s->u.cls.nfields > HV_VVM_FIELDS_MAX) {
        char cn[HV_NAME_MAX + 32];
        hv_report(c, HR_WARNING, "wide-class", off,
                  "CLASS DUMP of class %s declares %u instance fields: VisualVM reads the count "
                  "as a signed 16-bit value (at most %u) and stops at the next sub-record",
                  hv_cname(c, cid, cn, sizeof cn), (unsigned)s->u.cls.nfields,
                  (unsigned)HV_VVM_FIELDS_MAX);
    }
}

static void hv_p1_instance(hv_ctx *c, const hr_sub *s)
{
    hprof_id cid = s->u.inst.class_id, oid = s->u.inst.id;
    hv_note_object(c, oid, HV_OBJ_INSTANCE, s);
    hv_use(c, HV_T_TRACE, s->u.inst.trace_serial, s->offset, HV_W_INSTANCE, HV_R_TRACE, oid, 0);
    hv_use(c, HV_T_CD_INST, cid, s->offset, HV_W_INSTANCE, HV_R_CLASS, oid, 0);
    /* Aggregate by (class, byte count): the size check needs the whole
     * class chain, which may only be complete at the end of the file. */
    uint64_t *head = hu_map_get(&c->inst_idx, cid);
    size_t j = head ? (size_t)*head : 0;
    while (j) {
        hv_inst *e = &c->insts[j - 1];
        if (e->nbytes == s->u.inst.nbytes) {
            e->count++;
            return;
        }
        j = e->next;
    }
    if (c->ninsts == c->icap) {
        size_t ncap = c->icap ? c->icap * 2 : 256;
        hv_inst *n = realloc(c->insts, ncap * sizeof *n);
        if (!n) {
            c->oom = 1;
            return;
        }
        c->insts = n;
        c->icap = ncap;
    }
    hv_inst *e = &c->insts[c->ninsts++];
    e->class_id = cid;
    e->first_obj = oid;
    e->nbytes = s->u.inst.nbytes;
    e->count = 1;
    e->offset = s->offset;
    e->next = head ? (size_t)*head : 0;
    if (hu_map_put(&c->inst_idx, cid, c->ninsts) != 0)
        c->oom = 1;
}

static int hv_is_thread_root(unsigned tag)
{
    return tag == HPROF_GC_ROOT_JNI_LOCAL || tag == HPROF_GC_ROOT_JAVA_FRAME ||
           tag == HPROF_GC_ROOT_NATIVE_STACK || tag == HPROF_GC_ROOT_THREAD_BLOCK;
}

/* Android's sub-records (0x89-0x8E, 0x90, 0xFE): which reader stops at which
 * is hv_readers.c's table; this is the reader-neutral note, reported once
 * per file: it is a property of the file, not of each root. */
static void hv_p1_android(hv_ctx *c, const hr_sub *s)
{
    switch (s->tag) {
    case HPROF_GC_ROOT_INTERNED_STRING: case HPROF_GC_ROOT_FINALIZING:
    case HPROF_GC_ROOT_DEBUGGER: case HPROF_GC_ROOT_REFERENCE_CLEANUP:
    case HPROF_GC_ROOT_VM_INTERNAL: case HPROF_GC_ROOT_JNI_MONITOR:
    case HPROF_GC_ROOT_UNREACHABLE: case HPROF_GC_HEAP_DUMP_INFO:
        break;
    default:
        return;
    }
    if (c->android_seen)
        return;
    c->android_seen = 1;
    hv_report(c, HR_WARNING, "android-extension", s->offset,
              "%s (0x%02X) at offset %llu is an Android (1.0.3) heap sub-record; most readers "
              "of HotSpot's dumps stop at it (which ones: the readers' verdicts)",
              hprof_sub_name(s->tag), s->tag, (unsigned long long)s->offset);
}

static void hv_p1_sub(hv_ctx *c, const hr_sub *s)
{
    uint64_t off = s->offset;
    hv_p1_android(c, s);
    switch (s->tag) {
    case HPROF_GC_ROOT_THREAD_OBJ:
        hv_use(c, HV_T_TRACE, s->u.root.frame, off, HV_W_ROOT, HV_R_TRACE, s->u.root.id, s->tag);
        hv_def(c, &c->thread_defs, s->u.root.thread_serial, off);
        hv_def(c, &c->rthread_defs, s->u.root.thread_serial, off);
        break;
    case HPROF_GC_CLASS_DUMP:
        hv_p1_class_dump(c, s);
        break;
    case HPROF_GC_INSTANCE_DUMP:
        hv_p1_instance(c, s);
        break;
    case HPROF_GC_OBJ_ARRAY_DUMP:
        hv_note_object(c, s->u.oarr.id, HV_OBJ_OBJ_ARRAY, s);
        hv_use(c, HV_T_TRACE, s->u.oarr.trace_serial, off, HV_W_OBJ_ARRAY, HV_R_TRACE,
               s->u.oarr.id, 0);
        hv_use(c, HV_T_ARRCLASS, s->u.oarr.class_id, off, HV_W_OBJ_ARRAY, HV_R_CLASS,
               s->u.oarr.id, 0);
        break;
    case HPROF_GC_PRIM_ARRAY_DUMP: {
        hv_note_object(c, s->u.parr.id, HV_OBJ_PRIM_ARRAY, s);
        hv_use(c, HV_T_TRACE, s->u.parr.trace_serial, off, HV_W_PRIM_ARRAY, HV_R_TRACE,
               s->u.parr.id, 0);
        unsigned t = s->u.parr.type;
        if (t < HV_NTYPES) {
            if (c->parr[t].count++ == 0) {
                c->parr[t].offset = off;
                c->parr[t].first_obj = s->u.parr.id;
            }
        }
        break;
    }
    case HPROF_GC_HEAP_DUMP_INFO:
        hv_use(c, HV_T_UTF8, s->u.root.id, off, HV_W_HEAP_INFO, HV_R_HEAP_NAME, 0, 0);
        break;
    default:
        if (hv_is_thread_root(s->tag))
            hv_use(c, HV_T_RTHREAD, s->u.root.thread_serial, off, HV_W_ROOT, HV_R_THREAD,
                   s->u.root.id, s->tag);
        break;
    }
}


/* ------------------------------------------------------------ callbacks */

/* Notes one record or sub-record in the profile the readers are judged on. */
static void hv_seen_note(hv_seen *s, uint64_t offset)
{
    if (s->count++ == 0)
        s->first = offset;
}

static int hv_on_header(void *ctx, const hr_header *h)
{
    hv_ctx *c = ctx;
    c->id_size = h->id_size;
    c->version = h->version;
    c->res->profile.version = h->version;
    /* The parser reports a bad header itself; ids of other sizes cannot be
     * decoded safely, so stop there. */
    if (h->id_size != 4 && h->id_size != 8)
        return 1;
    return 0;
}

static int hv_on_record(void *ctx, const hr_record *r)
{
    hv_ctx *c = ctx;
    if (c->pass == 1) {
        hv_seen_note(&c->res->profile.top[r->tag], r->offset);
        hv_p1_record(c, r);
    } else if (r->tag == HPROF_TAG_UTF8 && hv_decoded(c, r)) {
        hv_keep_name(c, r->u.utf8.id, r->u.utf8.str, r->u.utf8.len);
    }
    return c->oom;
}

static int hv_on_sub(void *ctx, const hr_sub *s)
{
    hv_ctx *c = ctx;
    if (c->pass == 1) {
        if (!s->part) { /* later parts of an object array: only its elements */
            hv_seen_note(&c->res->profile.sub[s->tag], s->offset);
            hv_p1_sub(c, s);
        }
    } else {
        hv_heap_p2_sub(c, s);
    }
    return c->oom;
}

static void hv_on_parser_problem(void *ctx, hr_severity sev, const char *kind, uint64_t offset,
                                 const char *msg)
{
    hv_ctx *c = ctx;
    /* Pass 2 reads the same bytes: its structural problems are repeats. */
    if (c->pass != 1)
        return;
    if (hv_count(c, sev, kind, offset))
        hv_deliver(c, sev, kind, offset, msg);
}

/* ------------------------------------------------------------------ API */

void hv_options_init(hv_options *o)
{
    o->max_per_kind = 10;
    o->ignore = NULL;
    o->on_problem = NULL;
    o->ctx = NULL;
}

static void hv_ctx_init(hv_ctx *c)
{
    memset(c, 0, sizeof *c);
    hu_map *maps[] = {&c->utf8_defs, &c->cser_defs, &c->trace_defs, &c->frame_defs,
                      &c->thread_defs, &c->rthread_defs, &c->lc_defs, &c->cd_defs,
                      &c->lc_name, &c->prim_names, &c->objs, &c->class_idx, &c->inst_idx,
                      &c->want, &c->cser_cid, &c->unloaded};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        hu_map_init(maps[i]);
    for (int t = 0; t < HV_NTRACK; t++)
        hu_map_init(&c->tr[t].index);
    c->tr[HV_T_UTF8].defs = &c->utf8_defs;
    c->tr[HV_T_CSER].defs = &c->cser_defs;
    c->tr[HV_T_TRACE].defs = &c->trace_defs;
    c->tr[HV_T_FRAME].defs = &c->frame_defs;
    c->tr[HV_T_THREAD].defs = &c->thread_defs;
    c->tr[HV_T_RTHREAD].defs = &c->rthread_defs;
    c->tr[HV_T_LOADCLASS].defs = &c->lc_defs;
    c->tr[HV_T_CD_INST].defs = &c->cd_defs;
    c->tr[HV_T_CD_SUPER].defs = &c->cd_defs;
    c->tr[HV_T_ARRCLASS].defs = &c->cd_defs;
}

static void hv_ctx_free(hv_ctx *c)
{
    hu_map *maps[] = {&c->utf8_defs, &c->cser_defs, &c->trace_defs, &c->frame_defs,
                      &c->thread_defs, &c->rthread_defs, &c->lc_defs, &c->cd_defs,
                      &c->lc_name, &c->prim_names, &c->objs, &c->class_idx, &c->inst_idx,
                      &c->want, &c->cser_cid, &c->unloaded};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        hu_map_cleanup(maps[i]);
    for (int t = 0; t < HV_NTRACK; t++) {
        hu_map_cleanup(&c->tr[t].index);
        free(c->tr[t].pend);
    }
    free(c->classes);
    free(c->fields);
    free(c->insts);
    free(c->names);
}

int hv_verify(hr_source *src, const hv_options *o, hv_result *res)
{
    hv_options defaults;
    hv_result local;
    if (!o) {
        hv_options_init(&defaults);
        o = &defaults;
    }
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);

    hv_ctx *c = malloc(sizeof *c);
    if (!c)
        return -1;
    hv_ctx_init(c);
    c->opt = o;
    c->res = res;

    hr_callbacks cb = {hv_on_header, hv_on_record, hv_on_sub, hv_on_parser_problem, NULL};
    hr_stats *st = calloc(1, sizeof *st); /* ~8 KiB: keep it off the stack */
    if (!st) {
        hv_ctx_free(c);
        free(c);
        return -1;
    }
    c->pass = 1;
    res->profile.gzip = hr_source_is_gzip(src);
    res->parse_status = hr_parse(src, &cb, c, st);
    c->end_offset = st->bytes;
    free(st);
    int rc = 0;
    if (c->oom || hv_heap_chains(c) != 0) {
        rc = -1;
        goto out;
    }

    /* Pass 2 only makes sense over the same bytes a second time. */
    if (hr_source_rewind(src) == 0) {
        c->pass = 2;
        hr_parse(src, &cb, c, NULL); /* its status repeats pass 1's */
        if (c->oom) {
            rc = -1;
            goto out;
        }
        res->resolved_refs = 1;
    }

    for (int t = 0; t < HV_NTRACK; t++)
        hv_resolve_track(c, t);
    hv_heap_check_cycles(c);
    hv_heap_check_instances(c);
    hv_heap_check_prim_array_classes(c);
    /* A truncated file already says why it has no END. */
    if (c->in_segments && res->parse_status == HR_OK)
        hv_report(c, HR_ERROR, "no-heap-end", c->end_offset,
                  "The file ends at offset %llu inside a segmented heap dump (HEAP DUMP SEGMENT "
                  "at offset %llu onwards) without a HEAP DUMP END; VisualVM rejects the whole "
                  "file (\"Invalid segment 0\")",
                  (unsigned long long)c->end_offset, (unsigned long long)c->first_seg_offset);
    rc = (res->errors || res->warnings) ? 1 : 0;
out:
    hv_ctx_free(c);
    free(c);
    return rc;
}
