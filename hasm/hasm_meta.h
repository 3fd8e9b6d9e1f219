/*
 * hasm_meta.h: what the text form learns from earlier records of a file and
 * uses later: UTF8 strings (names in comments, field names as keys), class
 * names (LOAD CLASS), frames, and the instance field layout of every
 * CLASS DUMP (to show and read instance fields by name).
 *
 * The disassembler and the assembler feed it the same records in the same
 * order, so both sides agree on which INSTANCE DUMPs decode by name: that is
 * what keeps the round trip exact. Memory grows with the metadata of a dump
 * (strings, classes, frames), not with its objects.
 */
#ifndef HASM_META_H
#define HASM_META_H

#include <stddef.h>
#include <stdint.h>

typedef struct hasm_meta hasm_meta;

/* One instance field of a layout: name id and basic type. */
typedef struct hasm_slot {
    uint64_t name;
    unsigned type;
    unsigned size;
} hasm_slot;

hasm_meta *hasm_meta_init(void); /* NULL when out of memory */
void hasm_meta_cleanup(hasm_meta *m);

/* All puts return 0, or -1 when out of memory. A later put replaces. */
int hasm_meta_put_string(hasm_meta *m, uint64_t id, const uint8_t *s, size_t n);
int hasm_meta_put_class_name(hasm_meta *m, uint64_t class_id, uint64_t name_id, uint32_t serial);
int hasm_meta_put_frame(hasm_meta *m, uint64_t frame_id, uint64_t method_id, uint32_t class_serial);
/* A CLASS DUMP's super class and instance fields (`n` names and types). */
int hasm_meta_put_class(hasm_meta *m, uint64_t class_id, uint64_t super_id, size_t n,
                        const uint64_t *names, const uint8_t *types);

/* The string of `id`, or NULL. */
const uint8_t *hasm_meta_string(const hasm_meta *m, uint64_t id, size_t *n);
/* The name of a class by object id or by serial, or NULL. */
const uint8_t *hasm_meta_class_name(const hasm_meta *m, uint64_t class_id, size_t *n);
const uint8_t *hasm_meta_serial_name(const hasm_meta *m, uint32_t serial, size_t *n);
/* A frame's method name id and class serial; 0 if unknown. */
int hasm_meta_frame(const hasm_meta *m, uint64_t frame_id, uint64_t *method_id, uint32_t *serial);

/* The instance layout of `class_id`: its fields, then its super class's, up
 * the chain. Returns the number of slots (in an array valid until the next
 * call), or -1 if a class of the chain has no CLASS DUMP yet (or the chain
 * loops). *size is the sum of the field sizes. */
long hasm_meta_layout(hasm_meta *m, uint64_t class_id, unsigned id_size, const hasm_slot **slots,
                      uint64_t *size);

#endif /* HASM_META_H */
