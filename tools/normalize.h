/*
 * normalize.h: names that compare across runs (`--normalize` of the views).
 *
 * Hidden classes (lambdas, LambdaForms, generated proxies) carry the
 * address of their Klass in their name, and lambdas on JDK <= 21 also a
 * counter: `app.Foo$$Lambda$153+0x00007fa5c4001234` names a different
 * class on every run. Normalizing replaces the address with `<hidden>` and
 * drops the lambda counter: `app.Foo$$Lambda+<hidden>`, so two runs of the
 * same program give the same rows and stacks.
 */
#ifndef HPROF_TOOLS_NORMALIZE_H
#define HPROF_TOOLS_NORMALIZE_H

#include <stddef.h>

/* What a hidden class's address becomes. */
#define NORM_HIDDEN "+<hidden>"

/* Normalizes every hidden-class name in `in` (`len` bytes: a class name or
 * a frame's text such as "Foo$$Lambda$1+0x0800c03000.run"): the suffix
 * `+0x<hex>` (HotSpot's dumper), `.0x<hex>` (JVMTI's signatures) or
 * `/0x<hex>` (Class.getName) or JDK 8's `/<decimal identity hash>` (`.`
 * in Java spelling) becomes NORM_HIDDEN, and a `$$Lambda$<digits>`
 * just before it loses its `$<digits>`. No legal Java identifier starts with
 * a digit, so nothing else is touched. Writes at most cap - 1 bytes and a
 * NUL (cap > 0) to `out`; returns the whole result's length, as snprintf. */
size_t norm_name(const char *in, size_t len, char *out, size_t cap);
/* norm_name into a malloc'ed NUL-terminated string (free it); its length in
 * *outlen when not NULL. NULL when out of memory. */
char *norm_dup(const char *in, size_t len, size_t *outlen);

#endif /* HPROF_TOOLS_NORMALIZE_H */
