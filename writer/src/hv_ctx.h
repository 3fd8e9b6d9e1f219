/*
 * hv_ctx.h: the verifier's internal state, shared by hv_verify.c (the
 * driver, reporting and pass 1) and hv_heap.c (whole-heap checks and
 * pass 2). Not installed: nothing outside the verifier may depend on it.
 */
#ifndef HPROF_HV_CTX_H
#define HPROF_HV_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "hprof/hv_verify.h"
#include "hu_map.h"

#define HV_MSG_MAX 640
#define HV_NAME_MAX 160 /* longest name kept for messages */
#define HV_VVM_FIELDS_MAX 32767u /* VisualVM reads a CLASS DUMP's field count as a Java short */
#define HV_NTYPES 12    /* basic type codes are < 12 */

/* What kind of record uses an id or serial (for the sentences). */
enum hv_what {
    HV_W_LOAD_CLASS, HV_W_UNLOAD_CLASS, HV_W_FRAME, HV_W_TRACE, HV_W_SITES,
    HV_W_START_THREAD, HV_W_END_THREAD, HV_W_SAMPLES, HV_W_ROOT, HV_W_CLASS_DUMP,
    HV_W_INSTANCE, HV_W_OBJ_ARRAY, HV_W_PRIM_ARRAY, HV_W_HEAP_INFO
};

/* Which field of that record holds it. */
enum hv_role {
    HV_R_NAME, HV_R_METHOD_NAME, HV_R_METHOD_SIG, HV_R_SOURCE_FILE, HV_R_CLASS_SERIAL,
    HV_R_TRACE, HV_R_THREAD, HV_R_FRAME, HV_R_FIELD_NAME, HV_R_STATIC_NAME, HV_R_SUPER,
    HV_R_CLASS, HV_R_GROUP_NAME, HV_R_PARENT_GROUP_NAME, HV_R_HEAP_NAME
};

/* The namespaces whose uses are tracked until the end of pass 1. */
enum hv_track_id {
    HV_T_UTF8,      /* UTF8 ids */
    HV_T_CSER,      /* class serials (LOAD CLASS) */
    HV_T_TRACE,     /* trace serials (TRACE) */
    HV_T_FRAME,     /* frame ids (FRAME) */
    HV_T_THREAD,    /* thread serials, any definer (TRACE, END THREAD) */
    HV_T_RTHREAD,   /* thread serials of per-thread roots: ROOT THREAD OBJECT only */
    HV_T_LOADCLASS, /* class ids of CLASS DUMPs: LOAD CLASS */
    HV_T_CD_INST,   /* class ids of INSTANCE DUMPs: CLASS DUMP, before them */
    HV_T_CD_SUPER,  /* super class ids: CLASS DUMP, anywhere */
    HV_T_ARRCLASS,  /* OBJ ARRAY class ids: CLASS DUMP, anywhere */
    HV_NTRACK
};

/* One use of a key: which record, which field, where. */
typedef struct hv_usepos {
    uint64_t offset, aux, count;
    uint32_t aux2;
    uint8_t what, role;
} hv_usepos;

/* One distinct key used before (or without) its definition: its first use,
 * and its first use by a record that single-pass readers resolve on the
 * spot (only those make a late definition a problem). */
typedef struct hv_pend {
    uint64_t key;
    hv_usepos first, ordered;
} hv_pend;

typedef struct hv_track {
    hu_map *defs;  /* key -> offset of the first definition */
    hu_map index;  /* key -> position in pend */
    hv_pend *pend;
    size_t npend, cap;
} hv_track;

typedef struct hv_class {
    hprof_id id, super;
    uint64_t offset;      /* of the CLASS DUMP */
    uint64_t own_bytes;   /* this class's instance field bytes */
    uint64_t chain_bytes; /* own + all supers (valid when state == HV_CHAIN_OK) */
    size_t field0;        /* first of its fields in hv_ctx.fields */
    uint32_t nfields;
    uint8_t state;
    uint8_t cycle_head; /* the first CLASS DUMP of a cycle of supers */
} hv_class;

enum { HV_CHAIN_TODO = 0, HV_CHAIN_OK = 1, HV_CHAIN_BROKEN = 2, HV_CHAIN_BUSY = 3 };

typedef struct hv_fieldrec {
    hprof_id name_id;
    uint8_t type;
} hv_fieldrec;

/* Instances aggregated per (class, byte count): one entry, not one per object. */
typedef struct hv_inst {
    hprof_id class_id, first_obj;
    uint32_t nbytes;
    uint64_t count, offset;
    size_t next; /* next entry of the same class + 1, or 0 */
} hv_inst;

typedef struct hv_parr {
    uint64_t count, offset;
    hprof_id first_obj;
} hv_parr;

/* Object kinds kept in hv_ctx.objs (for duplicate-id sentences). */
enum { HV_OBJ_INSTANCE = 1, HV_OBJ_OBJ_ARRAY, HV_OBJ_PRIM_ARRAY, HV_OBJ_CLASS };

typedef struct hv_ctx {
    const hv_options *opt;
    hv_result *res;
    int pass;
    int oom;
    unsigned id_size;
    hprof_version version;
    uint64_t end_offset;
    int android_seen; /* an Android sub-record was reported (once per file) */

    hu_map utf8_defs, cser_defs, trace_defs, frame_defs, thread_defs, rthread_defs;
    hu_map lc_defs;    /* class id -> first LOAD CLASS offset */
    hu_map cd_defs;    /* class id -> CLASS DUMP offset */
    hu_map lc_name;    /* class id -> name UTF8 id (first LOAD CLASS) */
    hu_map cser_cid;   /* class serial -> class id (LOAD CLASS) */
    hu_map unloaded;   /* class id -> offset of its UNLOAD CLASS */
    hu_map prim_names; /* UTF8 id -> primitive type, for "[I" / "int[]" etc. */
    hu_map objs;       /* every object and class id -> HV_OBJ_* */
    hu_map class_idx;  /* class id -> position in classes */
    hv_class *classes;
    size_t nclasses, ccap;
    hv_fieldrec *fields;
    size_t nfields, fcap;
    hu_map inst_idx; /* class id -> first hv_inst + 1 */
    hv_inst *insts;
    size_t ninsts, icap;
    hv_parr parr[HV_NTYPES];
    hv_track tr[HV_NTRACK];

    /* heap dump structure */
    int in_segments;      /* 0x1C seen and no 0x2C since */
    int seen_end;         /* a 0x2C was seen */
    int seen_0c;          /* a 0x0C was seen */
    int reported_101;
    uint64_t first_seg_offset;

    /* names for the sentences: UTF8 id -> position in names + 1 (0: wanted) */
    hu_map want;
    char *names;
    size_t nnames, ncap;
} hv_ctx;

/* reporting and names (hv_verify.c) */
int hv_count(hv_ctx *c, hr_severity sev, const char *kind, uint64_t off);
void hv_deliver(hv_ctx *c, hr_severity sev, const char *kind, uint64_t off, const char *msg);
void hv_report(hv_ctx *c, hr_severity sev, const char *kind, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
const char *hv_name(const hv_ctx *c, hprof_id utf8_id);
const char *hv_cname(const hv_ctx *c, hprof_id class_id, char *buf, size_t n);
const char *hv_cshort(const hv_ctx *c, hprof_id class_id, char *buf, size_t n);
const char *hv_subname(unsigned tag);

static inline hv_class *hv_class_of(const hv_ctx *c, hprof_id id)
{
    uint64_t *i = hu_map_get(&c->class_idx, id);
    return i ? &c->classes[*i] : NULL;
}

/* whole-heap checks and pass 2 (hv_heap.c) */
int hv_heap_chains(hv_ctx *c);
void hv_heap_check_cycles(hv_ctx *c);
void hv_heap_check_instances(hv_ctx *c);
void hv_heap_check_prim_array_classes(hv_ctx *c);
void hv_heap_p2_sub(hv_ctx *c, const hr_sub *s);

#endif /* HPROF_HV_CTX_H */
