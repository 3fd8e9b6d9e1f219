/* rj_json.h: the report's JSON writer, into memory.
 *
 * The output is safe inside an HTML <script> element: strings escape '<',
 * '>' and '&' as \u003c \u003e \u0026, every control character as \uXXXX,
 * and invalid UTF-8 bytes become U+FFFD, except Java's modified UTF-8 (a
 * surrogate pair, C0 80), written as the character it stands for. Numbers are printed from integers
 * (fixed-point for the few decimal columns), never through printf's %f, so
 * the output does not depend on the locale. Integers above 2^53 - 1 (what a
 * JavaScript number holds exactly) are clamped to it and counted
 * (rj_clamped). Commas are placed by the writer: a value after rj_key, or
 * inside an array, gets its separator itself.
 *
 * Sticky error: out of memory is latched, later calls do nothing, rj_failed
 * says so once at the end. */
#ifndef RJ_JSON_H
#define RJ_JSON_H

#include <stddef.h>
#include <stdint.h>

#define RJ_MAX_SAFE 9007199254740991ull /* 2^53 - 1 */

typedef struct rj rj;

rj *rj_new(void); /* NULL when out of memory */
void rj_free(rj *j);

void rj_obj(rj *j);     /* { */
void rj_obj_end(rj *j); /* } */
void rj_arr(rj *j);     /* [ */
void rj_arr_end(rj *j); /* ] */
void rj_key(rj *j, const char *key);
void rj_str(rj *j, const char *s, size_t len);
void rj_cstr(rj *j, const char *s); /* NULL writes null */
void rj_u64(rj *j, uint64_t v);
void rj_i64(rj *j, int64_t v);
/* v / 10^places with exactly `places` decimals ("25.30" for 2530, 2). */
void rj_fixed(rj *j, int64_t v, unsigned places);
/* A share as a percentage with two decimals: 100 * part / whole (0 when
 * whole is 0). */
void rj_pct(rj *j, uint64_t part, uint64_t whole);
void rj_null(rj *j);
void rj_bool(rj *j, int b);

/* 1 after out of memory (or nesting past 64 levels). */
int rj_failed(const rj *j);
/* Integers clamped to RJ_MAX_SAFE so far. */
uint64_t rj_clamped(const rj *j);
/* The text so far (not NUL-terminated; valid until the next call). */
const char *rj_text(const rj *j, size_t *len);

/* Opens a TABLE of the report data (docs/report.md): {"id", "title", "note",
 * "columns" from "key|label|type" strings, then "rows": [ left open; the
 * caller writes the rows and closes with rj_arr_end and rj_obj_end. */
void rj_table_head(rj *j, const char *id, const char *title, const char *note,
                   const char *const *cols, size_t ncols);

#endif
