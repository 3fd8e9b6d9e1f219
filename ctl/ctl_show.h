/*
 * ctl_show.h: the lines hprof-ctl shows about its agents, "[k] ...", one
 * per line on stdout, flushed at once (scripts and people read them live).
 *
 * Owns the log of the lines shown since the last command was sent, which
 * the `wait TEXT` directive searches, and the text waited for. The struct
 * is embedded by value; its fields are this module's own.
 */
#ifndef HPROF_CTL_SHOW_H
#define HPROF_CTL_SHOW_H

#include <stdarg.h>
#include <stddef.h>

#define CTL_WAITLOG_MAX (4u << 20) /* shown lines kept for `wait` */

typedef struct ctl_show {
    char *log; /* lines shown since the last command was sent */
    size_t log_len, log_cap;
    char *wait_text; /* NULL: not waiting for text */
    int wait_found;
} ctl_show;

void ctl_show_init(ctl_show *s);
void ctl_show_cleanup(ctl_show *s);

/* Shows one line "[k] ..." on stdout, flushed, and keeps it for `wait`. */
void ctl_show_line(ctl_show *s, unsigned k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ctl_show_vline(ctl_show *s, unsigned k, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* A command was sent: `wait` looks at what comes after it. */
void ctl_show_forget(ctl_show *s);

/* Starts waiting for a line containing text: already found when a line
 * shown since the last command has it. Out of memory: not waiting. */
void ctl_show_wait(ctl_show *s, const char *text);

/* The text waited for, or NULL; ctl_show_found says whether it was seen. */
const char *ctl_show_waiting(const ctl_show *s);
int ctl_show_found(const ctl_show *s);

/* The wait is over. */
void ctl_show_wait_end(ctl_show *s);

#endif /* HPROF_CTL_SHOW_H */
