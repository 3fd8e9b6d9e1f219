/*
 * hasm_text.h: the vocabulary of the HPROF text form (docs/hprof-text.md),
 * shared by the disassembler and the assembler.
 *
 * Owns: the keyword of every record, heap sub-record and item, the schema of
 * their fixed fields (key, width, how the value is spelled), and the
 * spelling of values: numbers, typed values (floats exactly, NaN payloads as
 * bits), quoted strings with escapes. The tag numbers themselves come from
 * hprof_format.h. Stateless.
 */
#ifndef HASM_TEXT_H
#define HASM_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* How a fixed field is stored and spelled. */
enum hasm_kind {
    HASM_K_ID,  /* id, hex (0 for null) */
    HASM_K_U1,  /* decimal */
    HASM_K_U2,
    HASM_K_U4,
    HASM_K_U8,
    HASM_K_I4,  /* signed decimal (line numbers, frame depths) */
    HASM_K_X2,  /* hex flags */
    HASM_K_X4,
    HASM_K_F4,  /* IEEE float bits, spelled as a float */
    HASM_K_TYPE /* u1 basic type, spelled by name ("int") */
};

typedef struct hasm_field {
    const char *key;
    unsigned char kind;
} hasm_field;

/* What follows the fixed fields of a record or sub-record. */
enum hasm_body {
    HASM_B_NONE,     /* fixed fields only */
    HASM_B_ITEMS,    /* u4 count, then items of item_fields (TRACE, ...) */
    HASM_B_STRING,   /* the rest is a string (UTF8) */
    HASM_B_HEAP,     /* sub-records (HEAP DUMP, HEAP DUMP SEGMENT) */
    HASM_B_CLASS,    /* constants, statics, instance fields */
    HASM_B_INSTANCE, /* u4 length, field bytes */
    HASM_B_OBJARRAY, /* u4 count (before the class id), ids */
    HASM_B_PRIMARRAY /* u4 count (before the type), values */
};

typedef struct hasm_schema {
    unsigned tag;
    const char *name;
    const hasm_field *fields;
    unsigned nfields;
    unsigned char body;
    const char *item_name;        /* HASM_B_ITEMS */
    const hasm_field *item_fields;
    unsigned nitem_fields;
} hasm_schema;

/* Top-level records and heap sub-records, by tag or by keyword; NULL if
 * unknown. */
const hasm_schema *hasm_text_record(unsigned tag);
const hasm_schema *hasm_text_record_named(const char *name);
const hasm_schema *hasm_text_sub(unsigned tag);
const hasm_schema *hasm_text_sub_named(const char *name);

/* Stored size of a field kind. */
unsigned hasm_text_kind_size(unsigned kind, unsigned id_size);
/* Basic type by name ("int", "object"); 0 if none. */
unsigned hasm_text_type_named(const char *name);
const char *hasm_text_type_name(unsigned type);

/* Big-endian load/store of `n` (1..8) bytes. */
uint64_t hasm_text_get(const uint8_t *p, unsigned n);
void hasm_text_put(uint8_t *p, unsigned n, uint64_t v);

/* The longest spelling of one value, NUL included ("-1.2345678901234567e-308",
 * "nan:0x7ff8000000000001", an int64): what the buffers below must hold. */
#define HASM_VALUE_MAX 40

/* Spells the field value `v` of `kind` into `buf` (>= HASM_VALUE_MAX bytes). */
void hasm_text_fmt_kind(char *buf, unsigned kind, uint64_t v);
/* Spells a value of basic type `type` stored in `n` bytes as `v`. */
void hasm_text_fmt_value(char *buf, unsigned type, uint64_t v, unsigned n);
/* Parses the text of a value: returns 0 and the stored bits in *v, or -1
 * with a reason in *why. `n` is the stored size in bytes. */
int hasm_text_parse_kind(const char *s, unsigned kind, unsigned n, uint64_t *v, const char **why);
int hasm_text_parse_value(const char *s, unsigned type, unsigned n, uint64_t *v, const char **why);
/* Integer in decimal (optionally negative) or 0x hex that fits `n` bytes,
 * signed or unsigned. */
int hasm_text_parse_int(const char *s, unsigned n, uint64_t *v, const char **why);

/* Writes bytes as a quoted string with escapes (valid UTF-8 kept). */
void hasm_text_put_string(FILE *out, const uint8_t *s, size_t n);
/* True if the bytes are a word usable as a key in `values` lines. */
int hasm_text_is_word(const uint8_t *s, size_t n);

#endif /* HASM_TEXT_H */
