/*
 * names.h: interned strings, each with a stable UTF8 id for binary output.
 * Callers hold g_hp.data_lock around str_intern; ids and the returned
 * pointers stay valid for the agent's life.
 */
#ifndef HPROF_NAMES_H
#define HPROF_NAMES_H

#include <stddef.h>
#include <stdint.h>

typedef struct hp_str {
    char *s;
    uint32_t len;
    uint32_t next;   /* hash chain */
    uint8_t written; /* UTF8 record written (owned by out_lock) */
} hp_str;

int str_init(void);
void str_cleanup(void);
/* Returns the id (>= 1) of `s`, adding it if new; 0 when out of memory.
 * Caller holds data_lock. */
uint32_t str_intern(const char *s, size_t len);
hp_str *str_get(uint32_t id);

#endif
