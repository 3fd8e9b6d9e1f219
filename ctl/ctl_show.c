/*
 * ctl_show.c: the lines shown about the agents and the log `wait` searches
 * (ctl_show.h).
 */
#include "ctl_show.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_util.h"

void ctl_show_init(ctl_show *s)
{
    memset(s, 0, sizeof *s);
}

void ctl_show_cleanup(ctl_show *s)
{
    free(s->wait_text);
    free(s->log);
    memset(s, 0, sizeof *s);
}

static void ctl_show_log_add(ctl_show *s, const char *line)
{
    size_t n = strlen(line);
    if (s->wait_text && strstr(line, s->wait_text))
        s->wait_found = 1;
    if (n + 2 > CTL_WAITLOG_MAX)
        return;
    if (s->log_len + n + 2 > CTL_WAITLOG_MAX) { /* keep the newer half */
        size_t drop = s->log_len / 2;
        memmove(s->log, s->log + drop, s->log_len - drop + 1);
        s->log_len -= drop;
    }
    if (s->log_len + n + 2 > s->log_cap) {
        size_t cap = s->log_cap ? s->log_cap : CTL_SHOW_MAX;
        while (cap < s->log_len + n + 2)
            cap *= 2;
        char *p = realloc(s->log, cap);
        if (!p)
            return;
        s->log = p;
        s->log_cap = cap;
    }
    memcpy(s->log + s->log_len, line, n);
    s->log_len += n;
    s->log[s->log_len++] = '\n';
    s->log[s->log_len] = '\0';
}

void ctl_show_vline(ctl_show *s, unsigned k, const char *fmt, va_list ap)
{
    char line[CTL_SHOW_MAX];
    int n = snprintf(line, sizeof line, "[%u] ", k);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
    ctl_show_log_add(s, line);
}

void ctl_show_line(ctl_show *s, unsigned k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ctl_show_vline(s, k, fmt, ap);
    va_end(ap);
}

void ctl_show_forget(ctl_show *s)
{
    s->log_len = 0;
    if (s->log)
        s->log[0] = '\0';
}

void ctl_show_wait(ctl_show *s, const char *text)
{
    free(s->wait_text);
    s->wait_text = strdup(text);
    s->wait_found = s->wait_text && s->log && strstr(s->log, s->wait_text) != NULL;
}

const char *ctl_show_waiting(const ctl_show *s)
{
    return s->wait_text;
}

int ctl_show_found(const ctl_show *s)
{
    return s->wait_found;
}

void ctl_show_wait_end(ctl_show *s)
{
    free(s->wait_text);
    s->wait_text = NULL;
}
