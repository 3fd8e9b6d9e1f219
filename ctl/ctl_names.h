/*
 * ctl_names.h: what hprof-ctl remembers of one agent's stream to show its
 * records by name: the UTF8 strings, the classes' names, the frames, the
 * top frame of each trace, and each thread's object and name (a thread
 * serial given to `cpu on SERIAL` goes as the object id START THREAD gave).
 *
 * Owns that memory, bounded whatever the stream: names are kept up to
 * CTL_NAME_MAX bytes each and CTL_NAMES_BUDGET in all, each map up to
 * CTL_MAP_MAX ids. Past the bounds (or out of memory) an id stays unknown
 * and shows as "?": this is display data, never the bytes written.
 */
#ifndef HPROF_CTL_NAMES_H
#define HPROF_CTL_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define CTL_NAME_MAX 1024u           /* bytes of a UTF8 string kept */
#define CTL_NAMES_BUDGET (64u << 20) /* bytes of names kept per agent */
#define CTL_MAP_MAX (1u << 20)       /* ids kept per map and agent */

typedef struct ctl_names ctl_names;

/* NULL when out of memory. */
ctl_names *ctl_names_new(void);
void ctl_names_free(ctl_names *n);

/* UTF8 id: its text (len bytes, kept up to CTL_NAME_MAX). An id defined
 * again takes the new text. */
void ctl_names_put_utf8(ctl_names *n, uint64_t id, const uint8_t *s, size_t len);

/* The UTF8 string `id` as a clean line (dots for slashes with `dots`) in
 * buf, or `fallback` when unknown. */
const char *ctl_names_utf8(const ctl_names *n, uint64_t id, int dots, char *buf, size_t cap,
                           const char *fallback);

void ctl_names_put_class(ctl_names *n, uint32_t serial, uint64_t name_id);
/* A class's name with dots, or NULL when unknown. */
const char *ctl_names_class(const ctl_names *n, uint32_t serial, char *buf, size_t cap);

void ctl_names_put_frame(ctl_names *n, uint64_t frame, uint64_t method_name, uint32_t class_serial);
void ctl_names_put_trace(ctl_names *n, uint32_t trace, uint64_t top_frame);
/* "Class.method" of the top frame of a trace, or "?". */
const char *ctl_names_trace_top(const ctl_names *n, uint32_t trace, char *buf, size_t cap);

void ctl_names_put_thread_obj(ctl_names *n, uint64_t serial, uint64_t obj);
void ctl_names_put_thread_name(ctl_names *n, uint64_t serial, uint64_t name_id);
/* 1 and *obj (or *name_id) when the thread is known, else 0. */
int ctl_names_thread_obj(const ctl_names *n, uint64_t serial, uint64_t *obj);
int ctl_names_thread_name(const ctl_names *n, uint64_t serial, uint64_t *name_id);

#endif /* HPROF_CTL_NAMES_H */
