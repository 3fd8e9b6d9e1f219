/*
 * hdlayout.c: class field layouts for heap dumps (see hdlayout.h).
 * A JVMTI field index counts the fields of every interface of the class
 * first, then those of each class from java.lang.Object down, in
 * GetClassFields order, statics included (the JVMTI spec; checked on JDK 17
 * and 25).
 */
#include "hdlayout.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "hprof/hprof_format.h"
#include "jx.h"
#include "names.h"

#define HD_ACC_STATIC 0x0008 /* JVM access flag of a static field */

/* set while a dump's walk and what follows it use the layouts (dump_lock) */
static int hd_frozen;

void hd_layout_freeze(int on)
{
    hd_frozen = on;
}

static int hd_sig_type(const char *sig)
{
    return (sig[0] == 'L' || sig[0] == '[') ? HPROF_TYPE_OBJECT : cls_prim_type(sig[0]);
}

/* Adds to *n the fields of every interface of k (and of their
 * superinterfaces) not yet in seen[]. */
static int hd_interface_fields(jvmtiEnv *j, JNIEnv *env, jclass k, unsigned idsz, uint32_t *seen,
                               uint32_t *nseen, uint32_t cap, uint32_t *n)
{
    jint ni = 0;
    jclass *is = NULL;
    if ((*j)->GetImplementedInterfaces(j, k, &ni, &is) != JVMTI_ERROR_NONE)
        return 0; /* not prepared: no interfaces known, no fields reported */
    int rc = 0;
    for (jint i = 0; i < ni && rc == 0; i++) {
        hp_class *ic = cls_get(j, is[i]);
        if (!ic) {
            rc = -1;
            break;
        }
        uint32_t s = 0;
        while (s < *nseen && seen[s] != ic->index)
            s++;
        if (s < *nseen)
            continue;
        if (*nseen == cap) {
            rc = -1;
            break;
        }
        seen[(*nseen)++] = ic->index;
        hd_layout *il = hd_layout_of(j, env, ic, is[i], idsz);
        if (!il) {
            rc = -1;
            break;
        }
        *n += il->nown;
        rc = hd_interface_fields(j, env, is[i], idsz, seen, nseen, cap, n);
    }
    for (jint i = 0; i < ni; i++)
        (*env)->DeleteLocalRef(env, is[i]);
    jx_free(j, is);
    return rc;
}

static void hd_layout_free(hd_layout *L)
{
    if (!L)
        return;
    free(L->own_name);
    free(L->own_type);
    free(L->own_slot);
    free(L->own_static);
    free(L->idx_off);
    free(L->idx_type);
    free(L);
}

#define HD_MAX_INTERFACES 4096

hd_layout *hd_layout_of(jvmtiEnv *j, JNIEnv *env, hp_class *c, jclass k, unsigned idsz)
{
    if (c->layout && c->layout->provisional && !hd_frozen) {
        jint status = 0;
        if ((*j)->GetClassStatus(j, k, &status) == JVMTI_ERROR_NONE && (status & JVMTI_CLASS_STATUS_PREPARED)) {
            hd_layout_free(c->layout); /* linked since: its fields can be read now */
            c->layout = NULL;
        }
    }
    if (c->layout)
        return c->layout;
    if ((*env)->PushLocalFrame(env, 32) != 0)
        return NULL;
    hd_layout *L = calloc(1, sizeof *L);
    jfieldID *fids = NULL;
    jint nf = 0;
    uint32_t *seen = NULL;
    if (!L)
        goto fail;
    if (c->array_type) {
        L->kind = c->array_type == HPROF_TYPE_OBJECT ? HD_OBJARRAY : HD_PRIMARRAY;
        jclass obj = (*env)->FindClass(env, "java/lang/Object");
        hp_class *oc = obj ? cls_get(j, obj) : NULL;
        L->super = oc ? oc->index : 0;
        goto done;
    }
    L->kind = HD_INSTANCE;
    /* a class not linked yet (loaded from the CDS archive with archived
     * instances, never used) has no fields JVMTI can read: a provisional
     * layout without fields of its own, made again once it is linked */
    jint status = 0;
    if ((*j)->GetClassStatus(j, k, &status) != JVMTI_ERROR_NONE || !(status & JVMTI_CLASS_STATUS_PREPARED))
        L->provisional = 1;
    hd_layout *SL = NULL;
    jclass sk = (*env)->GetSuperclass(env, k);
    if (sk) {
        hp_class *sc = cls_get(j, sk);
        if (!sc || !(SL = hd_layout_of(j, env, sc, sk, idsz)))
            goto fail;
        L->super = sc->index;
        L->provisional |= SL->provisional; /* made anew with its super */
    }
    if (L->provisional || (*j)->GetClassFields(j, k, &nf, &fids) != JVMTI_ERROR_NONE)
        nf = 0; /* not prepared yet: no fields to show */
    if (nf > 0xFFFF)
        goto fail;
    L->nown = (uint16_t)nf;
    size_t n = nf ? (size_t)nf : 1;
    L->own_name = calloc(n, sizeof *L->own_name);
    L->own_type = calloc(n, sizeof *L->own_type);
    L->own_slot = calloc(n, sizeof *L->own_slot);
    L->own_static = calloc(n, sizeof *L->own_static);
    if (!L->own_name || !L->own_type || !L->own_slot || !L->own_static)
        goto fail;
    for (jint i = 0; i < nf; i++) {
        char *name = NULL, *sig = NULL;
        jint mod = 0;
        if ((*j)->GetFieldName(j, k, fids[i], &name, &sig, NULL) != JVMTI_ERROR_NONE ||
            (*j)->GetFieldModifiers(j, k, fids[i], &mod) != JVMTI_ERROR_NONE) {
            jx_free(j, name);
            jx_free(j, sig);
            goto fail;
        }
        jx_lock(j, g_hp.data_lock);
        L->own_name[i] = str_intern(name, strlen(name));
        jx_unlock(j, g_hp.data_lock);
        L->own_type[i] = (uint8_t)hd_sig_type(sig);
        jx_free(j, name);
        jx_free(j, sig);
        if (!L->own_name[i] || !L->own_type[i])
            goto fail;
        if (mod & HD_ACC_STATIC) {
            L->own_static[i] = 1;
            L->own_slot[i] = L->nstatic++;
        } else {
            L->own_slot[i] = L->ninst++;
            L->own_bytes += hprof_type_size(L->own_type[i], idsz);
        }
    }
    L->inst_bytes = L->own_bytes + (SL ? SL->inst_bytes : 0);
    /* JVMTI field indices: interfaces' fields, then each class's from the top */
    uint32_t nif = 0, nseen = 0;
    seen = malloc(sizeof *seen * HD_MAX_INTERFACES);
    if (!seen)
        goto fail;
    for (jclass kk = k; kk;) {
        if (hd_interface_fields(j, env, kk, idsz, seen, &nseen, HD_MAX_INTERFACES, &nif))
            goto fail;
        jclass next = (*env)->GetSuperclass(env, kk);
        if (kk != k)
            (*env)->DeleteLocalRef(env, kk);
        kk = next;
    }
    uint32_t supers = 0; /* the fields of every superclass */
    for (hd_layout *p = SL; p; p = p->super ? cls_at(p->super)->layout : NULL)
        supers += p->nown;
    L->first_idx = nif + supers;
    L->nidx = L->first_idx + L->nown;
    L->idx_off = malloc(sizeof *L->idx_off * (L->nidx ? L->nidx : 1));
    L->idx_type = calloc(L->nidx ? L->nidx : 1, 1);
    if (!L->idx_off || !L->idx_type)
        goto fail;
    for (uint32_t i = 0; i < L->nidx; i++)
        L->idx_off[i] = -1;
    /* the chain from the top: java.lang.Object's fields get the lowest
     * indices; each class's instance data starts after its subclasses' */
    hd_layout *chain[256];
    uint32_t depth = 0;
    for (hd_layout *p = L; p && depth < 256; p = p->super ? cls_at(p->super)->layout : NULL)
        chain[depth++] = p;
    uint32_t idx = nif;
    for (uint32_t d = depth; d-- > 0;) {
        hd_layout *p = chain[d];
        uint32_t base = 0; /* bytes of the classes below p in the chain */
        for (uint32_t e = 0; e < d; e++)
            base += chain[e]->own_bytes;
        uint32_t off = base;
        for (uint16_t f = 0; f < p->nown; f++, idx++) {
            if (p->own_static[f])
                continue;
            L->idx_off[idx] = (int32_t)off;
            L->idx_type[idx] = p->own_type[f];
            off += hprof_type_size(p->own_type[f], idsz);
        }
    }
done:
    free(seen);
    jx_free(j, fids);
    (*env)->PopLocalFrame(env, NULL);
    c->layout = L;
    return L;
fail:
    free(seen);
    jx_free(j, fids);
    (*env)->PopLocalFrame(env, NULL);
    hd_layout_free(L);
    return NULL;
}
