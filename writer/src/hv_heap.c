/*
 * hv_heap.c: the verifier's checks over the whole heap dump, split from
 * hv_verify.c (which drives the passes and owns pass 1).
 *
 * Owns: what can only be judged once pass 1 has seen every CLASS DUMP
 * (super chains and their cycles, instance sizes against the chain's field
 * bytes, the primitive array classes VisualVM needs), and pass 2: resolving
 * every object reference (instance fields through the class chain, array
 * elements, statics, loader ids, roots) against the ids pass 1 recorded.
 * Contract: called by hv_verify.c only, on the hv_ctx it owns (hv_ctx.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hv_ctx.h"

/* ------------------------------------------------------- after pass 1 */

/* Reports the cycle of super classes that starts at `head` (its first
 * CLASS DUMP in the file, marked by hv_chains) once, at that CLASS DUMP's
 * offset. Run after pass 2, which gathers the class names. A reader that
 * walks the chain (instance sizes, field lists, instanceof) loops forever
 * or overflows its stack. */
static void hv_report_cycle(hv_ctx *c, const hv_class *head)
{
    if (!hv_count(c, HR_ERROR, "super-cycle", head->offset))
        return;
    char msg[HV_MSG_MAX], chain[HV_MSG_MAX / 2], nb[HV_NAME_MAX + 8];
    size_t len = 0, ncycle = 0;
    chain[0] = '\0';
    /* round the cycle back to `head`, at most 8 classes named */
    const hv_class *q = head;
    do {
        if (ncycle < 8)
            len += (size_t)snprintf(chain + len, sizeof chain - len, "%s%s", ncycle ? " -> " : "",
                                    hv_cshort(c, q->id, nb, sizeof nb));
        else if (ncycle == 8)
            len += (size_t)snprintf(chain + len, sizeof chain - len, " -> ...");
        if (len >= sizeof chain)
            len = sizeof chain - 1;
        ncycle++;
        q = q->super ? hv_class_of(c, q->super) : NULL;
    } while (q && q != head && ncycle <= c->nclasses);
    if (ncycle <= 8)
        snprintf(chain + len, sizeof chain - len, " -> %s", hv_cshort(c, head->id, nb, sizeof nb));
    if (ncycle == 1)
        snprintf(msg, sizeof msg,
                 "CLASS DUMP of class %s at offset %llu names itself as its super class; readers "
                 "that walk the super chain (instance sizes, field lists) never end",
                 hv_cshort(c, head->id, nb, sizeof nb), (unsigned long long)head->offset);
    else
        snprintf(msg, sizeof msg,
                 "CLASS DUMP at offset %llu starts a cycle of %zu super classes (%s); readers "
                 "that walk the super chain (instance sizes, field lists) never end",
                 (unsigned long long)head->offset, ncycle, chain);
    hv_deliver(c, HR_ERROR, "super-cycle", head->offset, msg);
}

void hv_heap_check_cycles(hv_ctx *c)
{
    for (size_t i = 0; i < c->nclasses; i++)
        if (c->classes[i].cycle_head)
            hv_report_cycle(c, &c->classes[i]);
}

/* Computes every class's chain size once (memoised walk, so a long or
 * cyclic super chain in a hostile file costs linear time), and marks the
 * head of each cycle of super classes for hv_check_cycles. */
int hv_heap_chains(hv_ctx *c)
{
    if (!c->nclasses)
        return 0;
    size_t *path = malloc(c->nclasses * sizeof *path);
    if (!path)
        return -1;
    for (size_t i = 0; i < c->nclasses; i++) {
        if (c->classes[i].state != HV_CHAIN_TODO)
            continue;
        size_t n = 0, cur = i;
        int base_state;
        uint64_t base_bytes = 0;
        for (;;) {
            hv_class *k = &c->classes[cur];
            if (k->state == HV_CHAIN_OK) {
                base_state = HV_CHAIN_OK;
                base_bytes = k->chain_bytes;
                break;
            }
            if (k->state == HV_CHAIN_BUSY) {
                /* BUSY: on this walk's path, so the walk closed a cycle; a
                 * class met later that leads into it finds it BROKEN */
                size_t head = cur;
                for (size_t j = n; j-- > 0 && path[j] != cur;)
                    if (c->classes[path[j]].offset < c->classes[head].offset)
                        head = path[j];
                c->classes[head].cycle_head = 1; /* reported after pass 2 */
                base_state = HV_CHAIN_BROKEN;
                break;
            }
            if (k->state == HV_CHAIN_BROKEN) {
                base_state = HV_CHAIN_BROKEN;
                break;
            }
            k->state = HV_CHAIN_BUSY;
            path[n++] = cur;
            if (!k->super) {
                base_state = HV_CHAIN_OK;
                break;
            }
            uint64_t *sup = hu_map_get(&c->class_idx, k->super);
            if (!sup) {
                base_state = HV_CHAIN_BROKEN;
                break;
            }
            cur = (size_t)*sup;
        }
        while (n) {
            hv_class *k = &c->classes[path[--n]];
            if (base_state == HV_CHAIN_OK) {
                base_bytes += k->own_bytes;
                k->chain_bytes = base_bytes;
            }
            k->state = (uint8_t)base_state;
        }
    }
    free(path);
    return 0;
}

void hv_heap_check_instances(hv_ctx *c)
{
    for (size_t i = 0; i < c->ninsts; i++) {
        const hv_inst *e = &c->insts[i];
        const hv_class *k = hv_class_of(c, e->class_id);
        if (!k || k->state != HV_CHAIN_OK || k->chain_bytes == e->nbytes)
            continue;
        if (!hv_count(c, HR_ERROR, "instance-size-mismatch", e->offset))
            continue;
        char chain[HV_MSG_MAX / 2], nb[HV_NAME_MAX + 8];
        size_t len = 0;
        int steps = 0;
        chain[0] = '\0';
        for (const hv_class *q = k; q && len < sizeof chain - 1; steps++) {
            if (steps == 8) {
                snprintf(chain + len, sizeof chain - len, " -> ...");
                break;
            }
            len += (size_t)snprintf(chain + len, sizeof chain - len, "%s%s", steps ? " -> " : "",
                                    hv_cshort(c, q->id, nb, sizeof nb));
            q = q->super ? hv_class_of(c, q->super) : NULL;
        }
        char more[80] = "";
        if (e->count > 1)
            snprintf(more, sizeof more, " (and %llu more instances of that class with this size)",
                     (unsigned long long)(e->count - 1));
        char msg[HV_MSG_MAX];
        snprintf(msg, sizeof msg,
                 "INSTANCE DUMP of object 0x%llx at offset %llu has %u bytes of field values but its "
                 "class chain %s needs %llu%s; readers decode garbage values and references",
                 (unsigned long long)e->first_obj, (unsigned long long)e->offset, e->nbytes, chain,
                 (unsigned long long)k->chain_bytes, more);
        hv_deliver(c, HR_ERROR, "instance-size-mismatch", e->offset, msg);
    }
}

void hv_heap_check_prim_array_classes(hv_ctx *c)
{
    static const char *const desc[HV_NTYPES] = {
        [HPROF_TYPE_BOOLEAN] = "[Z", [HPROF_TYPE_CHAR] = "[C", [HPROF_TYPE_FLOAT] = "[F",
        [HPROF_TYPE_DOUBLE] = "[D", [HPROF_TYPE_BYTE] = "[B", [HPROF_TYPE_SHORT] = "[S",
        [HPROF_TYPE_INT] = "[I", [HPROF_TYPE_LONG] = "[J"};
    int found[HV_NTYPES] = {0};
    hprof_id cls[HV_NTYPES] = {0};
    size_t it = 0;
    uint64_t cid, nid;
    while (hu_map_next(&c->lc_name, &it, &cid, &nid)) {
        uint64_t *t = hu_map_get(&c->prim_names, nid);
        if (!t || *t >= HV_NTYPES)
            continue;
        int has_dump = hu_map_get(&c->cd_defs, cid) != NULL;
        if (has_dump) {
            found[*t] = 2;
            cls[*t] = cid;
        } else if (!found[*t]) {
            found[*t] = 1;
            cls[*t] = cid;
        }
    }
    for (unsigned t = 0; t < HV_NTYPES; t++) {
        if (!c->parr[t].count || found[t] == 2 || !desc[t])
            continue;
        const hv_parr *pa = &c->parr[t];
        if (found[t] == 0)
            hv_report(c, HR_ERROR, "missing-array-class", pa->offset,
                      "PRIM ARRAY DUMP of object 0x%llx at offset %llu (%llu %s arrays in all) has "
                      "no array class: no LOAD CLASS names %s or %s[]; VisualVM fails with "
                      "\"Invalid type %u\"",
                      (unsigned long long)pa->first_obj, (unsigned long long)pa->offset,
                      (unsigned long long)pa->count, hprof_type_name(t), desc[t],
                      hprof_type_name(t), t);
        else
            hv_report(c, HR_ERROR, "missing-array-class", pa->offset,
                      "PRIM ARRAY DUMP of object 0x%llx at offset %llu (%llu %s arrays in all): its "
                      "array class 0x%llx has a LOAD CLASS but no CLASS DUMP; VisualVM fails with "
                      "\"Invalid type %u\"",
                      (unsigned long long)pa->first_obj, (unsigned long long)pa->offset,
                      (unsigned long long)pa->count, hprof_type_name(t),
                      (unsigned long long)cls[t], t);
    }
}

/* --------------------------------------------------------------- pass 2 */

static int hv_known(const hv_ctx *c, hprof_id id)
{
    return id == 0 || hu_map_get(&c->objs, id) != NULL;
}

static void hv_dangling(hv_ctx *c, uint64_t off, hprof_id ref, const char *where)
{
    if (!hv_count(c, HR_WARNING, "dangling-ref", off))
        return;
    char msg[HV_MSG_MAX];
    snprintf(msg, sizeof msg,
             "%s at offset %llu holds 0x%llx, which is not the id of any object or class in the "
             "dump; readers show it as an unresolved reference",
             where, (unsigned long long)off, (unsigned long long)ref);
    hv_deliver(c, HR_WARNING, "dangling-ref", off, msg);
}

static void hv_p2_instance(hv_ctx *c, const hr_sub *s)
{
    const hv_class *k = hv_class_of(c, s->u.inst.class_id);
    /* A wrong size was reported in pass 1; decoding it would only add noise. */
    if (!k || k->state != HV_CHAIN_OK || k->chain_bytes != s->u.inst.nbytes)
        return;
    const uint8_t *v = s->u.inst.values;
    uint64_t pos = 0;
    for (const hv_class *q = k; q; q = q->super ? hv_class_of(c, q->super) : NULL) {
        for (uint32_t i = 0; i < q->nfields; i++) {
            const hv_fieldrec *f = &c->fields[q->field0 + i];
            unsigned sz = hprof_type_size(f->type, c->id_size);
            if (f->type == HPROF_TYPE_OBJECT) {
                hprof_id ref = hr_get_id(v + pos, c->id_size);
                if (!hv_known(c, ref)) {
                    char where[HV_MSG_MAX / 2], cb[HV_NAME_MAX + 40];
                    const char *fname = hv_name(c, f->name_id);
                    char fb[40];
                    if (!fname) {
                        snprintf(fb, sizeof fb, "0x%llx", (unsigned long long)f->name_id);
                        fname = fb;
                    }
                    snprintf(where, sizeof where, "Field %s of class %s in INSTANCE DUMP of object 0x%llx",
                             fname, hv_cname(c, q->id, cb, sizeof cb),
                             (unsigned long long)s->u.inst.id);
                    hv_dangling(c, s->offset, ref, where);
                }
            }
            pos += sz;
        }
    }
}

static void hv_p2_class_dump(hv_ctx *c, const hr_sub *s)
{
    char where[HV_MSG_MAX / 2], cb[HV_NAME_MAX + 40];
    hprof_id cid = s->u.cls.class_id;
    const struct { hprof_id id; const char *what; } refs[] = {
        {s->u.cls.loader_id, "class loader"},
        {s->u.cls.signers_id, "signers"},
        {s->u.cls.protection_domain_id, "protection domain"},
    };
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        if (hv_known(c, refs[i].id))
            continue;
        snprintf(where, sizeof where, "The %s of CLASS DUMP of class %s", refs[i].what,
                 hv_cname(c, cid, cb, sizeof cb));
        hv_dangling(c, s->offset, refs[i].id, where);
    }
    const uint8_t *p = s->u.cls.statics;
    for (uint16_t i = 0; i < s->u.cls.nstatics && p; i++) {
        hr_static st;
        p = hr_class_static_next(p, c->id_size, &st);
        if (st.type != HPROF_TYPE_OBJECT || hv_known(c, st.value))
            continue;
        const char *sname = hv_name(c, st.name_id);
        char sb[40];
        if (!sname) {
            snprintf(sb, sizeof sb, "0x%llx", (unsigned long long)st.name_id);
            sname = sb;
        }
        snprintf(where, sizeof where, "Static field %s of CLASS DUMP of class %s", sname,
                 hv_cname(c, cid, cb, sizeof cb));
        hv_dangling(c, s->offset, st.value, where);
    }
}

void hv_heap_p2_sub(hv_ctx *c, const hr_sub *s)
{
    char where[160];
    switch (s->tag) {
    case HPROF_GC_CLASS_DUMP:
        hv_p2_class_dump(c, s);
        break;
    case HPROF_GC_INSTANCE_DUMP:
        hv_p2_instance(c, s);
        break;
    case HPROF_GC_OBJ_ARRAY_DUMP: /* one part of the elements (hr_sub.part) */
        for (uint32_t i = 0; i < s->u.oarr.count; i++) {
            hprof_id ref = hr_get_id(s->u.oarr.elems + (size_t)i * c->id_size, c->id_size);
            if (hv_known(c, ref))
                continue;
            snprintf(where, sizeof where, "Element %u of OBJ ARRAY DUMP of object 0x%llx",
                     s->u.oarr.first + i, (unsigned long long)s->u.oarr.id);
            hv_dangling(c, s->offset, ref, where);
        }
        break;
    case HPROF_GC_PRIM_ARRAY_DUMP:
    case HPROF_GC_HEAP_DUMP_INFO:
        break;
    default:
        /* Every other sub-record is a root whose `id` is an object. */
        if (!hv_known(c, s->u.root.id)) {
            snprintf(where, sizeof where, "%s", hv_subname(s->tag));
            hv_dangling(c, s->offset, s->u.root.id, where);
        }
        break;
    }
}
