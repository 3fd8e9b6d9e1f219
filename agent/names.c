/*
 * names.c: the string table (see names.h): a chunked array of strings and a
 * hash (hu_map: hash -> first id, chained through hp_str.next).
 */
#include "names.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"


static uint64_t str_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ULL;
    return h;
}

int str_init(void)
{
    hu_map_init(&g_hp.str_index);
    return vec_init(&g_hp.strs, sizeof(hp_str));
}

void str_cleanup(void)
{
    for (uint32_t i = 1; i < g_hp.strs.count; i++)
        free(((hp_str *)vec_at(&g_hp.strs, i))->s);
    vec_cleanup(&g_hp.strs);
    hu_map_cleanup(&g_hp.str_index);
}

hp_str *str_get(uint32_t id)
{
    return vec_at(&g_hp.strs, id);
}

uint32_t str_intern(const char *s, size_t len)
{
    uint64_t h = str_hash(s, len);
    uint64_t *head = hu_map_get(&g_hp.str_index, h);
    uint32_t first = head ? (uint32_t)*head : 0;
    for (uint32_t i = first; i; i = str_get(i)->next) {
        hp_str *e = str_get(i);
        if (e->len == len && memcmp(e->s, s, len) == 0)
            return i;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return 0;
    memcpy(copy, s, len);
    copy[len] = 0;
    uint32_t id = vec_push(&g_hp.strs);
    if (!id || hu_map_put(&g_hp.str_index, h, id) != 0) {
        free(copy);
        return 0;
    }
    hp_str *e = str_get(id);
    e->s = copy;
    e->len = (uint32_t)len;
    e->next = first; /* the new string heads its hash chain */
    return id;
}
