/*
 * ctl_queue.c: the commands still to run: arguments, script, stdin
 * (ctl_queue.h).
 */
#include "ctl_queue.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl_util.h"

int ctl_queue_init(ctl_queue *q, size_t max_args)
{
    memset(q, 0, sizeof *q);
    q->stdin_open = 1;
    q->args = calloc(max_args ? max_args : 1, sizeof *q->args);
    return q->args ? 0 : -1;
}

void ctl_queue_cleanup(ctl_queue *q)
{
    for (size_t i = 0; i < q->nlines; i++)
        free(q->lines[i].text);
    free(q->lines);
    free(q->args);
    q->lines = NULL;
    q->args = NULL;
    q->nlines = q->nargs = 0;
}

void ctl_queue_add_arg(ctl_queue *q, char *arg)
{
    q->args[q->nargs++] = arg;
}

int ctl_queue_load_script(ctl_queue *q, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        ctl_util_err("cannot read %s: %s", path, strerror(errno));
        return CTL_EXIT_ERROR;
    }
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0;
    int rc = CTL_EXIT_OK;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        char *t = ctl_cmd_trim(line);
        if (!t)
            continue;
        ctl_command cmd;
        char why[CTL_LINE_MAX];
        if (ctl_cmd_parse(t, &cmd, why, sizeof why) != 0) {
            snprintf(err, errlen, "%s:%u: %s", path, lineno, why);
            rc = CTL_EXIT_USAGE;
            break;
        }
        ctl_script_line *p = realloc(q->lines, (q->nlines + 1) * sizeof *p);
        char *copy = strdup(t);
        if (!p || !copy) {
            free(copy);
            if (p)
                q->lines = p;
            ctl_util_err("out of memory");
            rc = CTL_EXIT_ERROR;
            break;
        }
        q->lines = p;
        q->lines[q->nlines++] = (ctl_script_line){ copy, lineno };
    }
    if (rc == CTL_EXIT_OK && ferror(f)) {
        ctl_util_err("cannot read %s: %s", path, strerror(errno));
        rc = CTL_EXIT_ERROR;
    }
    free(line);
    fclose(f);
    return rc;
}

/* The next complete stdin line into line (a last line without newline
 * once stdin is closed). 1, or 0 when there is none yet. */
static int ctl_queue_stdin_line(ctl_queue *q, char *line)
{
    char *nl = memchr(q->stdin_buf, '\n', q->stdin_len);
    if (!nl && !q->stdin_open && q->stdin_len) /* a last line without newline */
        nl = q->stdin_buf + q->stdin_len;
    if (!nl)
        return 0;
    size_t n = (size_t)(nl - q->stdin_buf);
    memcpy(line, q->stdin_buf, n);
    line[n] = '\0';
    size_t used = n < q->stdin_len ? n + 1 : n;
    memmove(q->stdin_buf, q->stdin_buf + used, q->stdin_len - used);
    q->stdin_len -= used;
    return 1;
}

int ctl_queue_next(ctl_queue *q, int agents_seen, ctl_command *cmd)
{
    char err[CTL_LINE_MAX];
    for (;;) {
        if (q->stage != STAGE_STDIN && !agents_seen)
            return 0; /* arguments and script wait for the first agent */
        if (q->stage == STAGE_ARGS) {
            if (q->pos < q->nargs) {
                /* checked at start-up */
                if (ctl_cmd_parse(ctl_cmd_trim(q->args[q->pos++]), cmd, err, sizeof err) == 0)
                    return 1;
                continue;
            }
            q->stage = STAGE_SCRIPT;
            q->pos = 0;
        }
        if (q->stage == STAGE_SCRIPT) {
            if (q->pos < q->nlines) {
                if (ctl_cmd_parse(q->lines[q->pos++].text, cmd, err, sizeof err) == 0)
                    return 1;
                continue;
            }
            q->stage = STAGE_STDIN;
        }
        char line[CTL_STDIN_MAX + 1];
        if (!ctl_queue_stdin_line(q, line))
            return 0;
        /* stdin's lines: errors are reported, not fatal */
        char *t = ctl_cmd_trim(line);
        if (!t)
            continue;
        if (ctl_cmd_parse(t, cmd, err, sizeof err) != 0) {
            ctl_util_err("%s", err);
            continue;
        }
        return 1;
    }
}

int ctl_queue_at_stdin(const ctl_queue *q)
{
    return q->stage == STAGE_STDIN;
}

int ctl_queue_wants_stdin(const ctl_queue *q)
{
    return q->stage == STAGE_STDIN && q->stdin_open &&
           !(q->stdin_len == sizeof q->stdin_buf && memchr(q->stdin_buf, '\n', q->stdin_len));
}

void ctl_queue_read_stdin(ctl_queue *q)
{
    if (q->stdin_len == sizeof q->stdin_buf) { /* a line too long: dropped */
        if (!q->stdin_overlong)
            ctl_util_err("a command line longer than %u bytes: ignored", CTL_STDIN_MAX);
        q->stdin_overlong = 1;
        q->stdin_len = 0;
    }
    ssize_t r = read(STDIN_FILENO, q->stdin_buf + q->stdin_len, sizeof q->stdin_buf - q->stdin_len);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (r <= 0) {
        q->stdin_open = 0;
        return;
    }
    if (q->stdin_overlong) { /* skip the rest of the long line */
        char *nl = memchr(q->stdin_buf, '\n', (size_t)r);
        if (!nl)
            return;
        size_t skip = (size_t)(nl - q->stdin_buf) + 1;
        memmove(q->stdin_buf, q->stdin_buf + skip, (size_t)r - skip);
        r -= (ssize_t)skip;
        q->stdin_overlong = 0;
    }
    q->stdin_len += (size_t)r;
}
