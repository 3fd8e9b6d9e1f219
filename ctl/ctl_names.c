/*
 * ctl_names.c: one agent's names for display (ctl_names.h), in the
 * project's u64 -> u64 maps (hu_map.h) and one growing buffer of texts.
 */
#include "ctl_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_util.h"
#include "hu_map.h"

struct ctl_names {
    hu_map utf8; /* id -> offset << 16 | length in `names` */
    hu_map class_name, frame_method, frame_class, trace_frame, thread_obj, thread_name;
    char *names;
    size_t names_len, names_cap;
};

ctl_names *ctl_names_new(void)
{
    return calloc(1, sizeof(ctl_names)); /* an all-zero hu_map is empty */
}

void ctl_names_free(ctl_names *n)
{
    if (!n)
        return;
    hu_map *maps[] = { &n->utf8, &n->class_name, &n->frame_method, &n->frame_class,
                       &n->trace_frame, &n->thread_obj, &n->thread_name };
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        hu_map_cleanup(maps[i]);
    free(n->names);
    free(n);
}

/* Only display data lives in the maps, so a failed insertion (out of
 * memory, or the bound below) just leaves a name unknown. */
static int ctl_names_get(const hu_map *m, uint64_t k, uint64_t *v)
{
    const uint64_t *p = hu_map_get(m, k);
    if (!p)
        return 0;
    *v = *p;
    return 1;
}

static int ctl_names_set(hu_map *m, uint64_t k, uint64_t v)
{
    /* bounded memory whatever the stream: past CTL_MAP_MAX ids a map keeps
     * what it has (values of known ids still change), and shown lines say
     * "?" for the names it could not keep */
    if (m->count >= CTL_MAP_MAX && !hu_map_get(m, k))
        return -1;
    return hu_map_put(m, k, v);
}

void ctl_names_put_utf8(ctl_names *n, uint64_t id, const uint8_t *s, size_t len)
{
    if (len > CTL_NAME_MAX)
        len = CTL_NAME_MAX;
    uint64_t old;
    if (ctl_names_get(&n->utf8, id, &old) && (old & 0xFFFF) >= len) {
        /* an id defined again: its old place is reused, nothing grows */
        memcpy(n->names + (old >> 16), s, len);
        ctl_names_set(&n->utf8, id, (old & ~(uint64_t)0xFFFF) | len);
        return;
    }
    if (n->names_len + len > CTL_NAMES_BUDGET)
        return; /* bounded memory: later names show as "?" */
    if (n->names_len + len > n->names_cap) {
        size_t cap = n->names_cap ? n->names_cap : CTL_SHOW_MAX;
        while (cap < n->names_len + len)
            cap *= 2;
        char *p = realloc(n->names, cap);
        if (!p)
            return;
        n->names = p;
        n->names_cap = cap;
    }
    memcpy(n->names + n->names_len, s, len);
    /* offset and length in one value: len < 2^16 */
    if (ctl_names_set(&n->utf8, id, ((uint64_t)n->names_len << 16) | len) == 0)
        n->names_len += len;
}

const char *ctl_names_utf8(const ctl_names *n, uint64_t id, int dots, char *buf, size_t cap,
                           const char *fallback)
{
    uint64_t v;
    if (!ctl_names_get(&n->utf8, id, &v))
        return fallback;
    ctl_util_clean(buf, cap, n->names + (v >> 16), (size_t)(v & 0xffff), dots);
    return buf;
}

const char *ctl_names_class(const ctl_names *n, uint32_t serial, char *buf, size_t cap)
{
    uint64_t name_id;
    if (!ctl_names_get(&n->class_name, serial, &name_id))
        return NULL;
    return ctl_names_utf8(n, name_id, 1, buf, cap, NULL);
}

const char *ctl_names_trace_top(const ctl_names *n, uint32_t trace, char *buf, size_t cap)
{
    uint64_t frame, method, cls;
    char mbuf[CTL_NAME_MAX + 1], cbuf[CTL_NAME_MAX + 1];
    if (!ctl_names_get(&n->trace_frame, trace, &frame))
        return "?";
    const char *m = ctl_names_get(&n->frame_method, frame, &method)
                        ? ctl_names_utf8(n, method, 0, mbuf, sizeof mbuf, "?")
                        : "?";
    const char *k = ctl_names_get(&n->frame_class, frame, &cls)
                        ? ctl_names_class(n, (uint32_t)cls, cbuf, sizeof cbuf)
                        : NULL;
    snprintf(buf, cap, "%s.%s", k ? k : "?", m);
    return buf;
}

void ctl_names_put_class(ctl_names *n, uint32_t serial, uint64_t name_id)
{
    ctl_names_set(&n->class_name, serial, name_id);
}

void ctl_names_put_frame(ctl_names *n, uint64_t frame, uint64_t method_name, uint32_t class_serial)
{
    ctl_names_set(&n->frame_method, frame, method_name);
    ctl_names_set(&n->frame_class, frame, class_serial);
}

void ctl_names_put_trace(ctl_names *n, uint32_t trace, uint64_t top_frame)
{
    ctl_names_set(&n->trace_frame, trace, top_frame);
}

void ctl_names_put_thread_obj(ctl_names *n, uint64_t serial, uint64_t obj)
{
    ctl_names_set(&n->thread_obj, serial, obj);
}

void ctl_names_put_thread_name(ctl_names *n, uint64_t serial, uint64_t name_id)
{
    ctl_names_set(&n->thread_name, serial, name_id);
}

int ctl_names_thread_obj(const ctl_names *n, uint64_t serial, uint64_t *obj)
{
    return ctl_names_get(&n->thread_obj, serial, obj);
}

int ctl_names_thread_name(const ctl_names *n, uint64_t serial, uint64_t *name_id)
{
    return ctl_names_get(&n->thread_name, serial, name_id);
}
