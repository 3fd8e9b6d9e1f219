/*
 * ctl_util.h: what every part of hprof-ctl shares: its exit codes, the
 * sizes of its lines, its clock, its error line on stderr, and the strict
 * number parsers of its options and commands.
 *
 * Owns no state: pure functions over their arguments (stderr aside).
 */
#ifndef HPROF_CTL_UTIL_H
#define HPROF_CTL_UTIL_H

#include <stddef.h>
#include <stdint.h>

enum { CTL_EXIT_OK = 0, CTL_EXIT_ERROR = 1, CTL_EXIT_USAGE = 2, CTL_EXIT_TIMEOUT = 3 };

#define CTL_LINE_MAX 1024u /* bytes of a text line, a command, a shown line */
#define CTL_SHOW_MAX 4096u /* one shown line, prefix included */
#define CTL_MS_PER_S 1000.0
#define CTL_NS_PER_S 1e9

/* Seconds on the monotonic clock. */
double ctl_util_now(void);

/* "hprof-ctl: " fmt "\n" on stderr. */
void ctl_util_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Copies len bytes of untrusted text into dst as one printable line:
 * control bytes become '?', and with `dots` the VM's '/' become '.'. */
void ctl_util_clean(char *dst, size_t cap, const char *src, size_t len, int dots);

/* Strict decimal: digits only, no sign, fits in max. 0 on success. */
int ctl_util_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* Hex digits only (no 0x), at most 16 of them. 0 on success. */
int ctl_util_parse_hex(const char *s, uint64_t *out);

/* A cutoff: a finite number in [0, 1], as the protocol requires. 0 on success. */
int ctl_util_parse_cutoff(const char *s, float *out);

#endif /* HPROF_CTL_UTIL_H */
