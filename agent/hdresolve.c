/*
 * hdresolve.c: after a heap dump's walk, the classes it met outside the
 * dump's set of classes (loaded meanwhile; see hdlate.h for the log the walk
 * keeps of them) are resolved through their mirrors, laid out, and written
 * with every object the walk logged of them (see hdresolve.h). Runs on the
 * dumping thread, outside the walk: JNI and JVMTI allowed; dump_lock held,
 * and the output's out_lock on the first dump (agent.h: the exception to
 * the lock order).
 */
#include "hdresolve.h"

#include <stdlib.h>
#include <string.h>

#include "jx.h"
#include "names.h"

/* The objects `tags` stand for (local refs, in a frame the caller pushed);
 * NULL entries for those that are gone. Returns a malloc'ed array or NULL. */
static jobject *hdr_objects_of(jvmtiEnv *j, JNIEnv *env, const jlong *tags, jint n)
{
    jobject *out = calloc(n ? (size_t)n : 1, sizeof *out);
    jint cnt = 0;
    jobject *objs = NULL;
    jlong *got = NULL;
    if (!out || n == 0)
        return out;
    (*env)->EnsureLocalCapacity(env, n + 16);
    if ((*j)->GetObjectsWithTags(j, n, tags, &cnt, &objs, &got) != JVMTI_ERROR_NONE)
        return out;
    /* one object per tag (tags are unique) */
    hu_map at;
    hu_map_init(&at);
    for (jint i = 0; i < n; i++)
        hu_map_put(&at, (uint64_t)tags[i], (uint64_t)i);
    for (jint i = 0; i < cnt; i++) {
        uint64_t *k = hu_map_get(&at, (uint64_t)got[i]);
        if (k)
            out[*k] = objs[i];
    }
    hu_map_cleanup(&at);
    jx_free(j, objs);
    jx_free(j, got);
    return out;
}

static int hdr_in_dump(const hd_state *st, const uint8_t *late, uint32_t i)
{
    return (i < st->ncls && st->incl[i]) || late[i];
}

/* What the walk logged of late class c's mirror, as its CLASS DUMP's values
 * (malloc'ed; NULL when the walk met no mirror of c, or out of memory). */
static hd_cstat *hdr_cstat(hd_state *st, hp_class *c)
{
    hl_log *l = &st->late;
    hd_layout *L = c->layout;
    uint64_t mt = HP_TAG_CLASS | c->index;
    for (size_t k = 0; L && k < l->nobj; k++) {
        hl_obj *o = &l->objs[k];
        if (!o->is_class || o->tag != mt)
            continue;
        hd_cstat *cs = calloc(1, sizeof *cs + sizeof cs->statics[0] * L->nstatic);
        for (size_t v = 0; cs && v < o->n; v++) {
            hl_val *x = &l->vals[o->first + v];
            if (x->what == JVMTI_HEAP_REFERENCE_CLASS_LOADER)
                cs->loader = x->bits;
            else if (x->what == JVMTI_HEAP_REFERENCE_SIGNERS)
                cs->signers = x->bits;
            else if (x->what == JVMTI_HEAP_REFERENCE_PROTECTION_DOMAIN)
                cs->pd = x->bits;
            else if (x->what == JVMTI_HEAP_REFERENCE_STATIC_FIELD && x->index >= L->first_idx &&
                     x->index < L->nidx && L->own_static[x->index - L->first_idx] &&
                     L->own_type[x->index - L->first_idx] == x->type)
                cs->statics[L->own_slot[x->index - L->first_idx]].u = x->bits;
        }
        return cs;
    }
    return NULL;
}

/* A logged object, written with its class's layout. */
static void hdr_object(hd_state *st, hl_obj *o, hp_class *objcls)
{
    hl_log *l = &st->late;
    hp_class *c = o->cls ? cls_at(o->cls) : objcls;
    hd_layout *L = c->layout;
    hprof_id id = hd_id(st, (jlong)o->tag);
    uint32_t ts = hd_trace_serial(st, (jlong)o->tag);
    if (L && L->kind == HD_PRIMARRAY && o->prim_type) {
        unsigned es = hprof_type_size(o->prim_type, st->idsz);
        hw_prim_array_dump(st->mw, id, ts, o->prim_type, (uint32_t)(o->ndata / es), l->bytes + o->data);
        return;
    }
    if (L && L->kind == HD_OBJARRAY) {
        uint64_t n = o->length > 0 ? (uint64_t)o->length : 0;
        for (size_t v = 0; v < o->n; v++)
            if (l->vals[o->first + v].index >= n)
                n = (uint64_t)l->vals[o->first + v].index + 1;
        hprof_id *el = calloc(n ? n : 1, sizeof *el);
        if (!el) {
            st->err = ENOMEM;
            return;
        }
        for (size_t v = 0; v < o->n; v++)
            if (l->vals[o->first + v].what == JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT)
                el[l->vals[o->first + v].index] = l->vals[o->first + v].bits;
        hw_obj_array_begin(st->mw, id, ts, hd_class_id(st, c), (uint32_t)n);
        for (uint64_t i = 0; i < n; i++)
            hw_put_id(st->mw, el[i]);
        hw_sub_end(st->mw);
        free(el);
        return;
    }
    if (!L || L->kind != HD_INSTANCE) /* no layout: an instance of Object */
        c = objcls, L = objcls->layout;
    uint8_t *buf = calloc(L->inst_bytes ? L->inst_bytes : 1, 1);
    if (!buf) {
        st->err = ENOMEM;
        return;
    }
    for (size_t v = 0; c != objcls && v < o->n; v++) {
        hl_val *x = &l->vals[o->first + v];
        if (x->what != JVMTI_HEAP_REFERENCE_FIELD || x->index >= L->nidx || L->idx_off[x->index] < 0 ||
            L->idx_type[x->index] != x->type)
            continue;
        hd_put_be(buf + L->idx_off[x->index], hprof_type_size(x->type, st->idsz), x->bits);
    }
    hw_instance_dump(st->mw, id, ts, hd_class_id(st, c), buf, L->inst_bytes);
    free(buf);
}

/* Right after the walk: late objects whose class had no tag (an array class
 * made after the dump listed the classes, a class whose ClassPrepare had not
 * come yet) name, through their CLASS reference, the dump tag their class's
 * mirror got as a plain object. The walk wrote references to that mirror
 * with that id: the class becomes known by it in this dump (its CLASS DUMP
 * takes that id, the mirror is no plain instance), resolved through the
 * mirrors, which outlive their instances. */
void hdr_alias(hd_state *st, JNIEnv *env)
{
    hl_log *l = &st->late;
    jvmtiEnv *j = st->j;
    if (st->err || !l->nobj)
        return;
    hu_map want; /* dump tag of a mirror -> its position in tags */
    hu_map_init(&want);
    jlong *tags = malloc(sizeof *tags * l->nobj);
    jint nt = 0;
    for (size_t k = 0; tags && k < l->nobj; k++) {
        hl_obj *o = &l->objs[k];
        if (o->is_class || HP_TAG_IS_CLASS(o->class_tag))
            continue;
        for (size_t v = 0; v < o->n; v++) {
            hl_val *x = &l->vals[o->first + v];
            int ins = 0;
            if (x->what != JVMTI_HEAP_REFERENCE_CLASS)
                continue;
            if (HP_TAG_IS_CLASS(x->bits)) {
                o->cls = (uint32_t)(x->bits & 0xFFFFFFFFu);
            } else if (HP_TAG_IS_DUMP(x->bits) && hu_map_upsert(&want, x->bits, (uint64_t)nt, &ins) && ins) {
                tags[nt++] = (jlong)x->bits;
            }
            break;
        }
    }
    if (nt && (*env)->PushLocalFrame(env, 16) == 0) {
        jobject *ms = hdr_objects_of(j, env, tags, nt);
        for (jint i = 0; ms && i < nt; i++) {
            jint status = 0;
            if (!ms[i] || (*j)->GetClassStatus(j, (jclass)ms[i], &status) != JVMTI_ERROR_NONE ||
                (status & JVMTI_CLASS_STATUS_PRIMITIVE))
                continue;
            hp_class *c = cls_get(j, (jclass)ms[i]);
            if (!c || (c->index < st->ncls && st->incl[c->index]))
                continue; /* cannot be: a class of the dump's set had its tag */
            hd_layout_of(j, env, c, (jclass)ms[i], st->idsz);
            if (hu_map_put(&st->alias, c->index, (uint64_t)tags[i]) ||
                hu_map_put(&st->aliased, (uint64_t)tags[i], c->index))
                st->err = ENOMEM;
            st->naliased++;
        }
        free(ms);
        (*env)->PopLocalFrame(env, NULL);
    }
    /* the objects of those classes */
    for (size_t k = 0; k < l->nobj; k++) {
        hl_obj *o = &l->objs[k];
        if (o->is_class || o->cls || HP_TAG_IS_CLASS(o->class_tag))
            continue;
        for (size_t v = 0; v < o->n; v++) {
            hl_val *x = &l->vals[o->first + v];
            uint64_t *ci = x->what == JVMTI_HEAP_REFERENCE_CLASS ? hu_map_get(&st->aliased, x->bits) : NULL;
            if (ci) {
                o->cls = (uint32_t)*ci;
                hl_need(l, o->cls);
                break;
            }
        }
    }
    free(tags);
    hu_map_cleanup(&want);
}

/* After the walk: the late classes (those the log needs, and their supers
 * outside the dump's set), laid out through their mirrors, into
 * st->late_list; each late object gets its class. */
int hdr_resolve(hd_state *st, JNIEnv *env)
{
    hl_log *l = &st->late;
    jvmtiEnv *j = st->j;
    if (l->oom)
        st->err = ENOMEM;
    if (st->err || (!l->nobj && !l->need.count))
        return st->err ? -1 : 0;
    if ((*env)->PushLocalFrame(env, 64) != 0) {
        st->err = ENOMEM; /* their ids are in the dump: it is incomplete */
        return -1;
    }
    jclass oc = (*env)->FindClass(env, "java/lang/Object");
    st->objcls = oc ? cls_get(j, oc) : NULL;
    /* objects whose class had no tag: their class, through the object */
    jlong *tags = malloc(sizeof *tags * (l->nobj ? l->nobj : 1));
    size_t *which = malloc(sizeof *which * (l->nobj ? l->nobj : 1));
    jint nt = 0;
    for (size_t k = 0; tags && which && k < l->nobj; k++) {
        hl_obj *o = &l->objs[k];
        if (HP_TAG_IS_CLASS(o->class_tag))
            o->cls = (uint32_t)(o->class_tag & 0xFFFFFFFFu);
        else if (!o->is_class && !o->cls) { /* hdr_alias did not find it */
            which[nt] = k;
            tags[nt++] = (jlong)o->tag;
        }
    }
    jobject *objs = tags && which ? hdr_objects_of(j, env, tags, nt) : NULL;
    if (!objs)
        st->err = ENOMEM;
    for (jint i = 0; objs && i < nt; i++) {
        if (!objs[i])
            continue;
        jclass k = (*env)->GetObjectClass(env, objs[i]);
        hp_class *c = k ? cls_get(j, k) : NULL;
        if (c) {
            l->objs[which[i]].cls = c->index;
            hl_need(l, c->index);
        }
        (*env)->DeleteLocalRef(env, k);
        (*env)->DeleteLocalRef(env, objs[i]);
    }
    free(objs);
    free(tags);
    free(which);
    if (l->oom)
        st->err = ENOMEM;
    /* the late classes, laid out through their mirrors */
    uint32_t n = cls_count();
    uint8_t *late = calloc(n ? n : 1, 1);
    uint32_t *list = malloc(sizeof *list * (n ? n : 1));
    uint32_t nl = 0;
    size_t it = 0;
    uint64_t ci, one;
    while (late && list && hu_map_next(&l->need, &it, &ci, &one))
        if (ci && ci < n && !hdr_in_dump(st, late, (uint32_t)ci)) {
            late[ci] = 1;
            list[nl++] = (uint32_t)ci;
        }
    jlong *ctags = malloc(sizeof *ctags * (nl ? nl : 1));
    for (uint32_t i = 0; ctags && i < nl; i++)
        ctags[i] = (jlong)(HP_TAG_CLASS | list[i]);
    jobject *mirrors = ctags ? hdr_objects_of(j, env, ctags, (jint)nl) : NULL;
    for (uint32_t i = 0; mirrors && i < nl; i++)
        if (mirrors[i])
            hd_layout_of(j, env, cls_at(list[i]), (jclass)mirrors[i], st->idsz);
    free(mirrors);
    free(ctags);
    (*env)->PopLocalFrame(env, NULL);
    /* supers outside the dump come too (laid out with their subclasses) */
    uint32_t n2 = cls_count();
    uint8_t *late2 = late ? realloc(late, n2 ? n2 : 1) : NULL;
    uint32_t *list2 = list ? realloc(list, sizeof *list * (n2 ? n2 : 1)) : NULL;
    if (!late2 || !list2) {
        free(late2 ? late2 : late);
        free(list2 ? list2 : list);
        st->err = ENOMEM;
        return -1;
    }
    late = late2;
    list = list2;
    if (n2 > n)
        memset(late + n, 0, n2 - n);
    for (uint32_t i = 0; i < nl; i++) {
        hd_layout *L = cls_at(list[i])->layout;
        uint32_t sup = L ? L->super : 0;
        if (sup && sup < n2 && !hdr_in_dump(st, late, sup)) {
            late[sup] = 1;
            list[nl++] = sup;
        }
    }
    free(late);
    st->late_list = list;
    st->nlate = nl;
    return 0;
}

/* A UTF8 record of name `id`, once in the file w belongs to (the output's
 * own marks, or those of a file of its own) */
static void hdr_utf8(hd_state *st, hw_writer *w, uint32_t id)
{
    if (!st->o) {
        hd_utf8_once(w, &st->seen, id);
    } else if (out_dump_claim_utf8(st->o, id)) {
        hp_str *s = str_get(id);
        hw_utf8(w, id, s->s, s->len);
    }
}

void hdr_write_names(hd_state *st, hw_writer *w)
{
    for (uint32_t i = 0; i < st->nlate; i++) {
        hp_class *c = cls_at(st->late_list[i]);
        hdr_utf8(st, w, c->name_vm);
        int ins = 0;
        if (hu_map_get(&st->alias, c->index)) {
            /* known by its mirror's dump tag: a LOAD CLASS of that id, with
             * a serial of the dump's own (its own serial names its own id) */
            hw_load_class(w, HD_LATE_CLASS_SERIAL0 + i, hd_class_id(st, c), HP_TRACE_SERIAL0, c->name_vm);
        } else if (st->o ? out_dump_claim_load(st->o, c)
                         : (hu_map_upsert(&st->seen, HD_SEEN_CLASS | c->index, 1, &ins) && ins)) {
            hw_load_class(w, c->serial, cls_object_id(c), HP_TRACE_SERIAL0, c->name_vm);
        }
        for (uint16_t f = 0; c->layout && f < c->layout->nown; f++)
            hdr_utf8(st, w, c->layout->own_name[f]);
    }
}

void hdr_write_heap(hd_state *st)
{
    hl_log *l = &st->late;
    if (st->err || !st->nlate)
        return;
    for (uint32_t i = 0; i < st->nlate; i++) {
        hp_class *c = cls_at(st->late_list[i]);
        hd_cstat *cs = hdr_cstat(st, c);
        hd_class_dump(st, st->mw, c, cs);
        free(cs);
    }
    uint32_t lost = 0;
    for (size_t k = 0; st->objcls && st->objcls->layout && k < l->nobj; k++) {
        hl_obj *o = &l->objs[k];
        if (o->is_class)
            continue;
        if (!o->cls || !cls_at(o->cls)->layout)
            lost++;
        hdr_object(st, o, st->objcls);
    }
    st->late_lost = lost; /* said on stderr and in the output, after the dump */
    hp_info(" (%zu objects of %u classes loaded during the dump, %u known by their mirror)", l->nobj,
            st->nlate, st->naliased);
}
