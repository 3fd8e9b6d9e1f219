/*
 * hasm_meta.c: strings, class names, frames and class layouts of one file,
 * for the text form (see hasm_meta.h).
 *
 * Strings and classes live in append-only arenas indexed by hu_map (id ->
 * offset); a replaced entry leaves its old bytes behind, which is bounded by
 * the file's metadata.
 */
#include "hasm_meta.h"

#include <stdlib.h>
#include <string.h>

#include "hprof/hprof_format.h"
#include "hu_map.h"

typedef struct arena {
    uint8_t *p;
    size_t len, cap;
} arena;

struct hasm_meta {
    hu_map strings;    /* id -> offset in str (8-byte length, then bytes) */
    hu_map class_name; /* class object id -> name id */
    hu_map serial;     /* class serial -> name id */
    hu_map frames;     /* frame id -> index in frame_v */
    uint64_t *frame_v; /* method id, serial pairs */
    size_t nframes, frame_cap;
    hu_map classes;    /* class id -> offset in cls: super, n, (name, type) x n */
    arena str, cls;
    hasm_slot *slots;
    size_t slot_cap;
};

static int arena_add(arena *a, const void *p, size_t n, size_t *off)
{
    if (a->len + n > a->cap) {
        size_t cap = a->cap ? a->cap : 4096;
        while (cap < a->len + n)
            cap *= 2;
        uint8_t *q = realloc(a->p, cap);
        if (!q)
            return -1;
        a->p = q;
        a->cap = cap;
    }
    *off = a->len;
    if (n)
        memcpy(a->p + a->len, p, n);
    a->len += n;
    return 0;
}

hasm_meta *hasm_meta_init(void)
{
    hasm_meta *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    hu_map_init(&m->strings);
    hu_map_init(&m->class_name);
    hu_map_init(&m->serial);
    hu_map_init(&m->frames);
    hu_map_init(&m->classes);
    return m;
}

void hasm_meta_cleanup(hasm_meta *m)
{
    if (!m)
        return;
    hu_map_cleanup(&m->strings);
    hu_map_cleanup(&m->class_name);
    hu_map_cleanup(&m->serial);
    hu_map_cleanup(&m->frames);
    hu_map_cleanup(&m->classes);
    free(m->frame_v);
    free(m->str.p);
    free(m->cls.p);
    free(m->slots);
    free(m);
}

int hasm_meta_put_string(hasm_meta *m, uint64_t id, const uint8_t *s, size_t n)
{
    uint64_t len = n;
    size_t off, dummy;
    if (arena_add(&m->str, &len, sizeof len, &off) < 0 || arena_add(&m->str, s, n, &dummy) < 0)
        return -1;
    return hu_map_put(&m->strings, id, off);
}

const uint8_t *hasm_meta_string(const hasm_meta *m, uint64_t id, size_t *n)
{
    uint64_t *off = hu_map_get(&m->strings, id);
    if (!off)
        return NULL;
    uint64_t len;
    memcpy(&len, m->str.p + *off, sizeof len);
    *n = (size_t)len;
    return m->str.p + *off + sizeof len;
}

int hasm_meta_put_class_name(hasm_meta *m, uint64_t class_id, uint64_t name_id, uint32_t serial)
{
    if (hu_map_put(&m->class_name, class_id, name_id) < 0)
        return -1;
    return hu_map_put(&m->serial, serial, name_id);
}

const uint8_t *hasm_meta_class_name(const hasm_meta *m, uint64_t class_id, size_t *n)
{
    uint64_t *name = hu_map_get(&m->class_name, class_id);
    return name ? hasm_meta_string(m, *name, n) : NULL;
}

const uint8_t *hasm_meta_serial_name(const hasm_meta *m, uint32_t serial, size_t *n)
{
    uint64_t *name = hu_map_get(&m->serial, serial);
    return name ? hasm_meta_string(m, *name, n) : NULL;
}

int hasm_meta_put_frame(hasm_meta *m, uint64_t frame_id, uint64_t method_id, uint32_t class_serial)
{
    if (m->nframes == m->frame_cap) {
        size_t cap = m->frame_cap ? m->frame_cap * 2 : 256;
        uint64_t *v = realloc(m->frame_v, cap * 2 * sizeof *v);
        if (!v)
            return -1;
        m->frame_v = v;
        m->frame_cap = cap;
    }
    m->frame_v[2 * m->nframes] = method_id;
    m->frame_v[2 * m->nframes + 1] = class_serial;
    if (hu_map_put(&m->frames, frame_id, m->nframes) < 0)
        return -1;
    m->nframes++;
    return 0;
}

int hasm_meta_frame(const hasm_meta *m, uint64_t frame_id, uint64_t *method_id, uint32_t *serial)
{
    uint64_t *i = hu_map_get(&m->frames, frame_id);
    if (!i)
        return 0;
    *method_id = m->frame_v[2 * *i];
    *serial = (uint32_t)m->frame_v[2 * *i + 1];
    return 1;
}

int hasm_meta_put_class(hasm_meta *m, uint64_t class_id, uint64_t super_id, size_t n,
                        const uint64_t *names, const uint8_t *types)
{
    uint64_t head[2] = { super_id, n };
    size_t off, dummy;
    if (arena_add(&m->cls, head, sizeof head, &off) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint64_t e[2] = { names[i], types[i] };
        if (arena_add(&m->cls, e, sizeof e, &dummy) < 0)
            return -1;
    }
    return hu_map_put(&m->classes, class_id, off);
}

long hasm_meta_layout(hasm_meta *m, uint64_t class_id, unsigned id_size, const hasm_slot **slots,
                      uint64_t *size)
{
    size_t n = 0;
    uint64_t total = 0;
    uint64_t c = class_id;
    /* a chain longer than the number of classes loops */
    for (size_t depth = 0; c != 0; depth++) {
        if (depth > m->classes.count)
            return -1;
        uint64_t *off = hu_map_get(&m->classes, c);
        if (!off)
            return -1;
        uint64_t head[2];
        memcpy(head, m->cls.p + *off, sizeof head);
        if (n + head[1] > m->slot_cap) {
            size_t cap = m->slot_cap ? m->slot_cap : 64;
            while (cap < n + head[1])
                cap *= 2;
            hasm_slot *s = realloc(m->slots, cap * sizeof *s);
            if (!s)
                return -1;
            m->slots = s;
            m->slot_cap = cap;
        }
        for (uint64_t i = 0; i < head[1]; i++) {
            uint64_t e[2];
            memcpy(e, m->cls.p + *off + sizeof head + i * sizeof e, sizeof e);
            hasm_slot *s = &m->slots[n++];
            s->name = e[0];
            s->type = (unsigned)e[1];
            s->size = hprof_type_size(s->type, id_size);
            total += s->size;
        }
        c = head[0];
    }
    *slots = m->slots;
    *size = total;
    return (long)n;
}
