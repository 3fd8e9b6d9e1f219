/*
 * ctl_cmd.c: parsing hprof-ctl's commands and directives (ctl_cmd.h).
 */
#include "ctl_cmd.h"

#include <stdio.h>
#include <string.h>

int ctl_cmd_parse(const char *line, ctl_command *cmd, char *err, size_t errlen)
{
    memset(cmd, 0, sizeof *cmd);
    char buf[CTL_LINE_MAX];
    if (strlen(line) >= sizeof buf) {
        snprintf(err, errlen, "command too long");
        return -1;
    }
    memcpy(buf, line, strlen(line) + 1);
    char *tok[CTL_MAX_TOKENS];
    int nt = 0;
    for (char *save = NULL, *t = strtok_r(buf, " \t\r\n", &save); t;
         t = strtok_r(NULL, " \t\r\n", &save)) {
        if (nt == CTL_MAX_TOKENS) {
            snprintf(err, errlen, "too many words");
            return -1;
        }
        tok[nt++] = t;
    }
    int i = 0;
    if (nt && tok[0][0] == '@') {
        uint64_t k;
        if (ctl_util_parse_u64(tok[0] + 1, UINT32_MAX, &k) != 0 || k == 0) {
            snprintf(err, errlen, "'%s': @ takes an agent number from 1", tok[0]);
            return -1;
        }
        cmd->target = (unsigned)k;
        i = 1;
    }
    if (i >= nt) {
        snprintf(err, errlen, nt ? "no command after '%s'" : "no command%s", nt ? tok[0] : "");
        return -1;
    }
    const char *verb = tok[i];
    int nargs = nt - i - 1;
    char **args = tok + i + 1;
    hc_cmd *h = &cmd->cmd;
    cmd->kind = CK_SEND;

    /* directives: not sent, so not for one agent */
    if (!strcmp(verb, "sleep") || !strcmp(verb, "wait") || !strcmp(verb, "wait-agents")) {
        if (cmd->target) {
            snprintf(err, errlen, "%s is a directive: it takes no @agent", verb);
            return -1;
        }
        if (!strcmp(verb, "wait")) {
            const char *rest = strstr(line, "wait") + strlen("wait");
            rest += strspn(rest, " \t");
            size_t n = strlen(rest);
            while (n && strchr(" \t\r\n", rest[n - 1]))
                n--;
            if (!n) {
                snprintf(err, errlen, "wait needs the TEXT to wait for");
                return -1;
            }
            cmd->kind = CK_WAIT;
            snprintf(cmd->text, sizeof cmd->text, "%.*s", (int)n, rest);
            return 0;
        }
        int sleep = !strcmp(verb, "sleep");
        if (nargs != 1 || ctl_util_parse_u64(args[0], sleep ? UINT32_MAX : CTL_MAX_AGENTS_WANTED,
                                        &cmd->number) != 0 ||
            (!sleep && cmd->number == 0)) {
            snprintf(err, errlen, sleep ? "sleep takes milliseconds: sleep MS"
                                        : "wait-agents takes a number of agents from 1");
            return -1;
        }
        cmd->kind = sleep ? CK_SLEEP : CK_WAIT_AGENTS;
        snprintf(cmd->text, sizeof cmd->text, "%s %s", verb, args[0]);
        return 0;
    }

    static const struct {
        const char *name;
        uint8_t tag;
        uint16_t control;
    } simple[] = {
        { "dump", HC_DUMP_HEAP, 0 },
        { "summary", HC_HEAP_SUMMARY, 0 },
        { "gc", HC_FORCE_GC, 0 },
        { "traces", HC_DUMP_TRACES, 0 },
        { "exit", HC_EXIT, 0 },
        { "eof", HC_EOF, 0 },
        { "clear-samples", HC_CONTROL, HC_CTL_CLEAR_SAMPLES },
        { "clear-sites", HC_CONTROL, HC_CTL_CLEAR_SITES },
    };
    int ok = 0;
    if (!strcmp(verb, "quit")) {
        if (cmd->target) {
            snprintf(err, errlen, "quit stops hprof-ctl: it takes no @agent");
            return -1;
        }
        cmd->kind = CK_QUIT;
        ok = nargs == 0;
    }
    for (size_t s = 0; s < sizeof simple / sizeof simple[0]; s++) {
        if (!strcmp(verb, simple[s].name)) {
            h->tag = simple[s].tag;
            h->control = simple[s].control;
            ok = nargs == 0;
        }
    }
    if (!strcmp(verb, "sites") || !strcmp(verb, "samples")) {
        int sites = !strcmp(verb, "sites");
        h->tag = sites ? HC_ALLOC_SITES : HC_CPU_SAMPLES;
        ok = 1;
        for (int a = 0; a < nargs && ok; a++) {
            if (!strcmp(args[a], "cutoff"))
                ok = a + 1 < nargs && ctl_util_parse_cutoff(args[++a], &h->cutoff) == 0;
            else if (sites && !strcmp(args[a], "incremental"))
                h->flags |= HC_SITES_INCREMENTAL;
            else if (sites && !strcmp(args[a], "by-alloc"))
                h->flags |= HC_SITES_BY_ALLOC;
            else if (sites && !strcmp(args[a], "gc"))
                h->flags |= HC_SITES_FORCE_GC;
            else
                ok = 0;
        }
        if (!ok) {
            snprintf(err, errlen, sites ? "usage: sites [incremental] [by-alloc] [gc] [cutoff X], "
                                          "X from 0 to 1"
                                        : "usage: samples [cutoff X], X from 0 to 1");
            return -1;
        }
    }
    if (!strcmp(verb, "alloc") || !strcmp(verb, "cpu")) {
        int cpu = !strcmp(verb, "cpu");
        h->tag = HC_CONTROL;
        int on = nargs >= 1 && !strcmp(args[0], "on");
        ok = nargs >= 1 && (on || !strcmp(args[0], "off")) && nargs <= (cpu ? 2 : 1);
        if (cpu)
            h->control = on ? HC_CTL_CPU_ON : HC_CTL_CPU_OFF;
        else
            h->control = on ? HC_CTL_ALLOC_ON : HC_CTL_ALLOC_OFF;
        if (ok && nargs == 2) {
            const char *t = args[1];
            if (!strncmp(t, "0x", 2) || !strncmp(t, "0X", 2)) {
                ok = ctl_util_parse_hex(t + 2, &cmd->thread) == 0;
                cmd->thread_kind = cmd->thread ? CT_ID : CT_ALL;
            } else {
                ok = ctl_util_parse_u64(t, UINT32_MAX, &cmd->thread) == 0;
                cmd->thread_kind = cmd->thread ? CT_SERIAL : CT_ALL;
            }
        }
        if (!ok) {
            snprintf(err, errlen, cpu ? "usage: cpu on|off [THREAD]: THREAD a thread serial "
                                        "(decimal), an object id (0x...) or 0 for all"
                                      : "usage: alloc on|off");
            return -1;
        }
    }
    if (!strcmp(verb, "depth")) {
        uint64_t d = 0;
        ok = nargs == 1 && ctl_util_parse_u64(args[0], CTL_MAX_DEPTH, &d) == 0;
        if (!ok) {
            snprintf(err, errlen, "usage: depth N, N from 0 to %u", CTL_MAX_DEPTH);
            return -1;
        }
        h->tag = HC_CONTROL;
        h->control = HC_CTL_SET_DEPTH;
        h->depth = (uint16_t)d;
    }
    if (!h->tag && cmd->kind == CK_SEND) {
        snprintf(err, errlen, "unknown command '%s' (hprof-ctl help lists them)", verb);
        return -1;
    }
    if (!ok) {
        snprintf(err, errlen, "'%s' takes no arguments", verb);
        return -1;
    }
    /* the echo: the words as typed, one space apart */
    size_t len = 0;
    for (int a = i; a < nt && len < sizeof cmd->text; a++) {
        int w = snprintf(cmd->text + len, sizeof cmd->text - len, "%s%s", a > i ? " " : "", tok[a]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return 0;
}

char *ctl_cmd_trim(char *s)
{
    s += strspn(s, " \t\r\n");
    size_t n = strlen(s);
    while (n && strchr(" \t\r\n", s[n - 1]))
        s[--n] = '\0';
    return *s && *s != '#' ? s : NULL;
}
