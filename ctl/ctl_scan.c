/*
 * ctl_scan.c: the heap dump scanner (ctl_scan.h): a resumable walk over
 * heap sub-records that reads fixed parts and skips variable ones.
 */
#include "ctl_scan.h"

#include <string.h>

#include "hprof/hr_reader.h"

void ctl_scan_init(ctl_scan *s, unsigned idsz)
{
    memset(s, 0, sizeof *s);
    s->idsz = idsz;
    s->step = SS_TAG;
    s->need = 1;
}

/* The body size (after the sub-tag) of a GC root, or 0 for other tags. */
static unsigned ctl_scan_root_size(uint8_t tag, unsigned id)
{
    switch (tag) {
    case HPROF_GC_ROOT_JNI_GLOBAL:
        return 2 * id;
    case HPROF_GC_ROOT_JNI_LOCAL:
    case HPROF_GC_ROOT_JAVA_FRAME:
    case HPROF_GC_ROOT_THREAD_OBJ:
    case HPROF_GC_ROOT_JNI_MONITOR:
        return id + 8;
    case HPROF_GC_ROOT_NATIVE_STACK:
    case HPROF_GC_ROOT_THREAD_BLOCK:
        return id + 4;
    case HPROF_GC_ROOT_STICKY_CLASS:
    case HPROF_GC_ROOT_MONITOR_USED:
    case HPROF_GC_ROOT_INTERNED_STRING:
    case HPROF_GC_ROOT_FINALIZING:
    case HPROF_GC_ROOT_DEBUGGER:
    case HPROF_GC_ROOT_REFERENCE_CLEANUP:
    case HPROF_GC_ROOT_VM_INTERNAL:
    case HPROF_GC_ROOT_UNREACHABLE:
    case HPROF_GC_ROOT_UNKNOWN:
        return id;
    default:
        return 0;
    }
}

static void ctl_scan_next(ctl_scan *s, ctl_sub_step step, unsigned need)
{
    s->step = step;
    s->need = need;
}

/* The next entry of a CLASS DUMP's constant pool or statics, or the part
 * after them. */
static void ctl_scan_entries(ctl_scan *s, ctl_sub_step entry, unsigned entry_need,
                             ctl_sub_step after)
{
    if (s->left)
        ctl_scan_next(s, entry, entry_need);
    else
        ctl_scan_next(s, after, 2);
}

/* The fixed part h[0..need) of the current step is in: act on it. */
static void ctl_scan_step(ctl_scan *s, const uint8_t *h)
{
    const unsigned id = s->idsz;
    unsigned sz;
    switch (s->step) {
    case SS_TAG:
        s->tag = h[0];
        switch (h[0]) {
        case HPROF_GC_CLASS_DUMP:
            s->classes++;
            ctl_scan_next(s, SS_CLASS_FIXED, HPROF_CLASS_DUMP_FIXED(id) + 2);
            return;
        case HPROF_GC_INSTANCE_DUMP:
            s->instances++;
            ctl_scan_next(s, SS_INSTANCE_FIXED, HPROF_INSTANCE_DUMP_FIXED(id));
            return;
        case HPROF_GC_OBJ_ARRAY_DUMP:
            s->arrays++;
            ctl_scan_next(s, SS_OBJ_ARRAY_FIXED, HPROF_OBJ_ARRAY_DUMP_FIXED(id));
            return;
        case HPROF_GC_PRIM_ARRAY_DUMP:
            s->arrays++;
            ctl_scan_next(s, SS_PRIM_ARRAY_FIXED, HPROF_PRIM_ARRAY_DUMP_FIXED(id));
            return;
        case HPROF_GC_HEAP_DUMP_INFO: /* u4 heap type, id heap name */
            s->skip = 4 + id;
            ctl_scan_next(s, SS_TAG, 1);
            return;
        default:
            sz = ctl_scan_root_size(h[0], id);
            if (!sz) {
                s->step = SS_DEAD;
                return;
            }
            s->roots++;
            s->skip = sz;
            ctl_scan_next(s, SS_TAG, 1);
            return;
        }
    case SS_CLASS_FIXED:
        s->left = hr_get_u2(h + HPROF_CLASS_DUMP_FIXED(id));
        ctl_scan_entries(s, SS_CP_ENTRY, 3, SS_STATICS_COUNT); /* u2 index, u1 type */
        return;
    case SS_CP_ENTRY:
        sz = hprof_type_size(h[2], id);
        if (!sz) {
            s->step = SS_DEAD;
            return;
        }
        s->skip = sz;
        s->left--;
        ctl_scan_entries(s, SS_CP_ENTRY, 3, SS_STATICS_COUNT);
        return;
    case SS_STATICS_COUNT:
        s->left = hr_get_u2(h);
        ctl_scan_entries(s, SS_STATIC_ENTRY, id + 1, SS_FIELDS_COUNT); /* id name, u1 type */
        return;
    case SS_STATIC_ENTRY:
        sz = hprof_type_size(h[id], id);
        if (!sz) {
            s->step = SS_DEAD;
            return;
        }
        s->skip = sz;
        s->left--;
        ctl_scan_entries(s, SS_STATIC_ENTRY, id + 1, SS_FIELDS_COUNT);
        return;
    case SS_FIELDS_COUNT:
        s->skip = (uint64_t)hr_get_u2(h) * (id + 1); /* id name, u1 type each */
        ctl_scan_next(s, SS_TAG, 1);
        return;
    case SS_INSTANCE_FIXED: /* id, u4 trace, id class, u4 nbytes */
        s->skip = hr_get_u4(h + 2 * id + 4);
        ctl_scan_next(s, SS_TAG, 1);
        return;
    case SS_OBJ_ARRAY_FIXED: /* id, u4 trace, u4 n, id class */
        s->skip = (uint64_t)hr_get_u4(h + id + 4) * id;
        ctl_scan_next(s, SS_TAG, 1);
        return;
    case SS_PRIM_ARRAY_FIXED: /* id, u4 trace, u4 n, u1 type */
        if (!hprof_type_is_primitive(h[id + 8])) {
            s->step = SS_DEAD;
            return;
        }
        s->skip = (uint64_t)hr_get_u4(h + id + 4) * hprof_type_size(h[id + 8], id);
        ctl_scan_next(s, SS_TAG, 1);
        return;
    case SS_DEAD:
        return;
    }
}

void ctl_scan_feed(ctl_scan *s, const uint8_t *p, size_t n)
{
    while (n && s->step != SS_DEAD) {
        if (s->skip) {
            size_t k = s->skip < n ? (size_t)s->skip : n;
            s->skip -= k;
            p += k;
            n -= k;
            continue;
        }
        if (s->have == 0 && s->need <= n) { /* the usual case: read in place */
            const uint8_t *h = p;
            p += s->need;
            n -= s->need;
            ctl_scan_step(s, h);
            continue;
        }
        size_t k = s->need - s->have;
        if (k > n)
            k = n;
        memcpy(s->hdr + s->have, p, k);
        s->have += (unsigned)k;
        p += k;
        n -= k;
        if (s->have == s->need) {
            s->have = 0;
            ctl_scan_step(s, s->hdr);
        }
    }
}

ctl_scan_state ctl_scan_end(const ctl_scan *s, uint8_t *bad_tag)
{
    *bad_tag = s->tag;
    if (s->step == SS_DEAD)
        return CTL_SCAN_BAD;
    if (s->step != SS_TAG || s->have || s->skip)
        return CTL_SCAN_CUT;
    return CTL_SCAN_WHOLE;
}
