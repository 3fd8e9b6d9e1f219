/*
 * hprof_ctl.c: hprof-ctl, the front end of the agent's net=host:port channel.
 *
 *   hprof-ctl listen PORT [--out FILE] [--any | --bind ADDR] [--port-file F]
 *                         [--script F] [--agents N] [--timeout S] [COMMAND ...]
 *
 * It listens on loopback (127.0.0.1 and ::1) unless told otherwise: the
 * channel has no authentication, and whoever connects first is agent 1.
 *
 * The agent is a TCP client: it connects here, sends its whole profile output
 * (binary HPROF or the original's text layout) and reads commands (hc_proto.h)
 * from the same socket. This file owns the options, the agents' list, the
 * directives that pace the commands (sleep, wait, wait-agents) and the loop;
 * ctl/ does the rest (ctl_agent: one connection; ctl_recv: its stream into
 * files; ctl_rec: the lines shown; ctl_cmd: the command language;
 * ctl_queue: the commands still to run, from the command line, then a
 * script, then stdin).
 *
 * Design: one thread and one poll() loop. A 1 MiB read buffer is shared by
 * every connection, each of which is a resumable parser in bounded memory
 * (ctl_recv.h).
 */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl_agent.h"
#include "ctl_cmd.h"
#include "ctl_queue.h"
#include "ctl_show.h"
#include "ctl_util.h"
#include "hc_net.h"
#include "hprof_report.h"
#include "hprof/hw_writer.h"

/* ------------------------------------------------------------ constants */

#define CTL_DONE (-1) /* start-up finished the job (help shown): exit 0 */

#define CTL_DEFAULT_OUT "hprof-ctl.hprof"
#define CTL_DEFAULT_TIMEOUT_S 60.0
#define CTL_MAX_TIMEOUT_S 1e7
#define CTL_MAX_PORT 65535u
/* One read: heap dump segments are ~1 MiB, and big reads keep the syscalls
 * per byte low enough to stream at disk speed. */
#define CTL_READ_CHUNK (1u << 20)
#define CTL_ACCEPT_PAUSE_S 0.5 /* out of fds: wait before accepting again */

/* ------------------------------------------------------------ the session */

typedef struct ctl_ctx {
    /* options */
    const char *out;
    const char *report; /* --report: the HTML report of each agent's file, at exit */
    const char *bind; /* NULL: loopback (127.0.0.1 and ::1); "*": every address (--any) */
    int bind_given;   /* --any or --bind: where was said once */
    const char *port_file;
    const char *script;
    unsigned agents_wanted;
    double timeout_s;
    int timeout_given;

    /* state */
    int lfd[HC_NET_MAX_LISTEN]; /* listening sockets: the first nlfd are open */
    int nlfd;
    unsigned port;
    ctl_agent **conns; /* connected agents */
    size_t nconns, cap_conns;
    unsigned total; /* agents accepted so far */
    uint32_t serial;
    ctl_queue queue; /* the commands still to run */
    double start;
    double sleep_until; /* 0: not sleeping */
    /* out of file descriptors: the pending connection stays queued and the
     * listening socket readable, so it is left out of poll until then */
    double accept_pause_until;
    unsigned wait_agents; /* 0: not waiting for agents */
    double wait_deadline;
    ctl_show show; /* the lines shown, and the text `wait` waits for */
    uint8_t *rbuf;
    int status; /* CTL_EXIT_ERROR once a file could not be written */
    int quit;
} ctl_ctx;

/* ------------------------------------------------------------ agents */

static void ctl_accept(ctl_ctx *x, int lfd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    int fd = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM) {
            ctl_util_err("accept: %s: new agents wait %g s", strerror(e), CTL_ACCEPT_PAUSE_S);
            x->accept_pause_until = ctl_util_now() + CTL_ACCEPT_PAUSE_S;
        } else if (e != EINTR && e != EAGAIN && e != ECONNABORTED) {
            ctl_util_err("accept: %s", strerror(e));
        }
        return;
    }
    ctl_agent *c = ctl_agent_new(fd, &ss, len, x->total + 1, &x->show, &x->status);
    char *path = ctl_recv_path(x->out, x->total + 1);
    if (x->nconns == x->cap_conns) {
        size_t cap = x->cap_conns ? 2 * x->cap_conns : 8;
        ctl_agent **p = realloc(x->conns, cap * sizeof *p);
        if (p) {
            x->conns = p;
            x->cap_conns = cap;
        }
    }
    if (!c || !path || x->nconns == x->cap_conns) {
        ctl_util_err("out of memory: connection refused");
        ctl_agent_free(c);
        free(path);
        close(fd);
        x->status = CTL_EXIT_ERROR;
        return;
    }
    x->total++;
    x->conns[x->nconns++] = c;
    ctl_agent_start(c, &x->show, path);
}

/* ------------------------------------------------------------ command execution */

static ctl_agent *ctl_find(ctl_ctx *x, unsigned k)
{
    for (size_t i = 0; i < x->nconns; i++)
        if (x->conns[i]->k == k)
            return x->conns[i];
    return NULL;
}

static void ctl_exec(ctl_ctx *x, const ctl_command *cmd)
{
    double now = ctl_util_now();
    switch (cmd->kind) {
    case CK_QUIT:
        x->quit = 1;
        return;
    case CK_SLEEP:
        x->sleep_until = now + (double)cmd->number / CTL_MS_PER_S;
        return;
    case CK_WAIT:
        ctl_show_wait(&x->show, cmd->text);
        x->wait_deadline = now + x->timeout_s;
        return;
    case CK_WAIT_AGENTS:
        x->wait_agents = (unsigned)cmd->number;
        x->wait_deadline = now + x->timeout_s;
        return;
    case CK_SEND:
        break;
    }
    ctl_agent *one = NULL;
    if (cmd->target) {
        one = ctl_find(x, cmd->target);
        if (!one) {
            ctl_util_err("no agent %u connected: '%s' not sent", cmd->target, cmd->text);
            return;
        }
    } else if (!x->nconns) {
        ctl_util_err("no agent connected: '%s' not sent", cmd->text);
        return;
    }
    /* EOF carries no serial: it does not use one up */
    uint32_t serial = cmd->cmd.tag == HC_EOF ? 0 : x->serial + 1;
    int sent = 0;
    if (one) {
        sent = ctl_agent_send(one, cmd, serial);
    } else {
        for (size_t i = 0; i < x->nconns; i++)
            sent |= ctl_agent_send(x->conns[i], cmd, serial);
    }
    if (sent) {
        if (serial)
            x->serial = serial;
        ctl_show_forget(&x->show); /* `wait` looks at what comes after this command */
    }
}

/* Is a directive still holding the commands back? Ends the program with
 * CTL_EXIT_TIMEOUT when a wait is over without success. */
static int ctl_blocked(ctl_ctx *x, double now, int *exit_code)
{
    if (x->sleep_until) {
        if (now < x->sleep_until)
            return 1;
        x->sleep_until = 0;
    }
    const char *wait_text = ctl_show_waiting(&x->show);
    if (wait_text) {
        if (ctl_show_found(&x->show)) {
            ctl_show_wait_end(&x->show);
            return 0;
        }
        if (now >= x->wait_deadline) {
            ctl_util_err("wait '%s': not seen within %g s", wait_text, x->timeout_s);
            *exit_code = CTL_EXIT_TIMEOUT;
            return 1;
        }
        if (!x->nconns && x->total >= x->agents_wanted) {
            ctl_util_err("wait '%s': not seen before every agent disconnected", wait_text);
            *exit_code = CTL_EXIT_TIMEOUT;
            return 1;
        }
        return 1;
    }
    if (x->wait_agents) {
        if (x->total >= x->wait_agents) {
            x->wait_agents = 0;
            return 0;
        }
        if (now >= x->wait_deadline) {
            ctl_util_err("wait-agents %u: only %u agent(s) connected within %g s", x->wait_agents,
                         x->total, x->timeout_s);
            *exit_code = CTL_EXIT_TIMEOUT;
        }
        return 1;
    }
    return 0;
}

/* Runs the commands that can run now: arguments, then the script, then
 * complete stdin lines. Sets *exit_code (>= 0) to end the program. */
static void ctl_pump(ctl_ctx *x, int *exit_code)
{
    while (!x->quit && *exit_code < 0) {
        if (ctl_blocked(x, ctl_util_now(), exit_code))
            return;
        ctl_command cmd;
        if (!ctl_queue_next(&x->queue, x->total > 0, &cmd))
            return;
        ctl_exec(x, &cmd);
    }
}

/* ------------------------------------------------------------ the loop */

/* The agent is gone (or hprof-ctl stops): off the list, its files
 * finished. */
static void ctl_close(ctl_ctx *x, ctl_agent *c, const char *why)
{
    for (size_t i = 0; i < x->nconns; i++) {
        if (x->conns[i] == c) {
            memmove(x->conns + i, x->conns + i + 1, (x->nconns - i - 1) * sizeof *x->conns);
            x->nconns--;
            break;
        }
    }
    ctl_agent_close(c, why);
}

static void ctl_read_agent(ctl_ctx *x, ctl_agent *c)
{
    char why[CTL_LINE_MAX];
    if (ctl_agent_read(c, x->rbuf, CTL_READ_CHUNK, why, sizeof why))
        ctl_close(x, c, why);
}

/* The poll timeout in ms until the next deadline, -1 for none. */
static int ctl_poll_timeout(const ctl_ctx *x, double now)
{
    double next = -1;
    if (x->timeout_given && x->total == 0)
        next = x->start + x->timeout_s;
    if (x->sleep_until && (next < 0 || x->sleep_until < next))
        next = x->sleep_until;
    if ((ctl_show_waiting(&x->show) || x->wait_agents) && (next < 0 || x->wait_deadline < next))
        next = x->wait_deadline;
    if (x->accept_pause_until > now && (next < 0 || x->accept_pause_until < next))
        next = x->accept_pause_until;
    if (next < 0)
        return -1;
    double ms = (next - now) * CTL_MS_PER_S;
    if (ms <= 0)
        return 0;
    return ms > INT32_MAX ? INT32_MAX : (int)ms + 1;
}

static int ctl_loop(ctl_ctx *x)
{
    int exit_code = -1;
    struct pollfd *pfd = NULL;
    ctl_agent **polled = NULL; /* the agents of pfd: reading one may close it */
    size_t cap = 0;
    for (;;) {
        ctl_pump(x, &exit_code);
        if (x->quit)
            exit_code = x->status;
        double now = ctl_util_now();
        if (exit_code < 0 && x->timeout_given && x->total == 0 && now >= x->start + x->timeout_s) {
            ctl_util_err("no agent connected within %g s", x->timeout_s);
            exit_code = CTL_EXIT_TIMEOUT;
        }
        int directive_pending = x->sleep_until || ctl_show_waiting(&x->show) || x->wait_agents;
        if (exit_code < 0 && x->total >= x->agents_wanted && !x->nconns &&
            ctl_queue_at_stdin(&x->queue) && !directive_pending)
            exit_code = x->status;
        if (exit_code >= 0)
            break;

        size_t need = x->nconns + (size_t)x->nlfd + 1;
        if (need > cap) {
            struct pollfd *p = realloc(pfd, need * sizeof *p);
            if (p)
                pfd = p;
            ctl_agent **q = realloc(polled, need * sizeof *q);
            if (q)
                polled = q;
            if (!p || !q) {
                ctl_util_err("out of memory");
                exit_code = CTL_EXIT_ERROR;
                break;
            }
            cap = need;
        }
        size_t n = 0;
        /* poll ignores a negative fd: no accepting while out of fds */
        for (int i = 0; i < x->nlfd; i++)
            pfd[n++] = (struct pollfd){ .fd = now < x->accept_pause_until ? -1 : x->lfd[i],
                                        .events = POLLIN };
        /* a full buffer that holds whole lines waits for them to run (a
         * sleep or wait directive holds them back): read no more until then */
        int with_stdin = ctl_queue_wants_stdin(&x->queue);
        size_t stdin_at = n;
        if (with_stdin)
            pfd[n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
        size_t first = n, nc = x->nconns;
        for (size_t i = 0; i < nc; i++) {
            polled[i] = x->conns[i];
            pfd[n++] = (struct pollfd){ .fd = polled[i]->fd, .events = POLLIN };
        }
        int r = poll(pfd, n, ctl_poll_timeout(x, now));
        if (r < 0 && errno != EINTR) {
            ctl_util_err("poll: %s", strerror(errno));
            exit_code = CTL_EXIT_ERROR;
            break;
        }
        if (r <= 0)
            continue;
        /* agents first: what they sent is shown before a new agent's line */
        for (size_t i = 0; i < nc; i++)
            if (pfd[first + i].revents)
                ctl_read_agent(x, polled[i]);
        if (with_stdin && pfd[stdin_at].revents)
            ctl_queue_read_stdin(&x->queue);
        for (int i = 0; i < x->nlfd; i++)
            if (pfd[i].revents & POLLIN)
                ctl_accept(x, x->lfd[i]);
    }
    free(pfd);
    free(polled);
    while (x->nconns)
        ctl_close(x, x->conns[0], x->quit ? ", closed by quit" : ", closed by hprof-ctl");
    return exit_code;
}

/* ------------------------------------------------------------ start-up */

static void ctl_usage(FILE *f)
{
    fputs(
        "usage: hprof-ctl listen PORT [options] [COMMAND ...]\n"
        "       hprof-ctl help\n"
        "\n"
        "The front end of the agent's socket channel: run it, then start the JVM with\n"
        "  java -agentlib:hprof=net=HOST:PORT,format=b,... App\n"
        "It receives each agent's whole output into a file, shows what arrives, one\n"
        "line per record, and sends the agents commands.\n"
        "\n"
        "options:\n"
        "  PORT               the TCP port to listen on (0: any free port)\n"
        "  --out FILE         agent 1's file (default " CTL_DEFAULT_OUT "); agent k writes\n"
        "                     FILE with -k before its extension (run.hprof -> run-2.hprof)\n"
        "                     Heap dumps 2, 3, ... of an agent go to complete files of\n"
        "                     their own, FILE.2, FILE.3, ...\n"
        "  --report OUT.html  when hprof-ctl exits, write the report of what agent 1 sent\n"
        "                     (hprof report: flame graphs, tables; docs/report.md) to\n"
        "                     OUT.html, agent k's to OUT-k.html; the heap dumps in\n"
        "                     FILE.2, FILE.3 ... are left out\n"
        "  --any              listen on every address of this machine (by default: on\n"
        "                     the loopback addresses only, 127.0.0.1 and ::1; --loopback,\n"
        "                     kept for old scripts, says so). Anyone who can reach the\n"
        "                     port can connect as an agent and have what it sends\n"
        "                     written: there is no authentication\n"
        "  --bind ADDR        listen on this one IPv4 or IPv6 address (the same warning)\n"
        "  --port-file F      write the port to F once listening (for PORT 0)\n"
        "  --script F         run the commands of F (one per line, # comments)\n"
        "  --agents N         run until N agents have connected and all have gone (1)\n"
        "  --timeout S        seconds to wait for the first agent (default: forever), and\n"
        "                     for each wait and wait-agents (default 60)\n"
        "\n"
        "commands (the arguments, then the script, then stdin; each goes to every\n"
        "connected agent, or to agent k only with a leading @k):\n"
        "  dump                        DUMP HEAP\n"
        "  sites [incremental] [by-alloc] [gc] [cutoff X]    ALLOC SITES (cutoff 0..1)\n"
        "  summary                     HEAP SUMMARY\n"
        "  gc                          FORCE GC\n"
        "  traces                      DUMP TRACES\n"
        "  samples [cutoff X]          CPU SAMPLES\n"
        "  alloc on|off                CONTROL: allocation tracking\n"
        "  cpu on|off [THREAD]         CONTROL: CPU sampling of all threads (THREAD 0,\n"
        "                              the default) or one: its object id as 0x..., or\n"
        "                              its serial (sent as the object id its START THREAD\n"
        "                              gave, or as is when that was 0 or not seen)\n"
        "  clear-samples, clear-sites  CONTROL: clear the CPU samples or the sites\n"
        "  depth N                     CONTROL: stack depth\n"
        "  exit                        EXIT\n"
        "  eof                         the EOF byte: the agent stops reading commands\n"
        "  quit                        close every connection and stop\n"
        "directives:\n"
        "  sleep MS                    pause the commands for MS milliseconds\n"
        "  wait TEXT                   until a line shown since the last command sent\n"
        "                              contains TEXT (exit 3 after --timeout)\n"
        "  wait-agents N               until N agents have connected\n"
        "\n"
        "Commands from the arguments and the script run once the first agent has\n"
        "connected. hprof-ctl exits when --agents agents have connected and all have\n"
        "disconnected, and the arguments and the script are done, or on quit.\n"
        "\n"
        "exit status: 0 OK, 1 an error (cannot listen, cannot write a file),\n"
        "2 usage error, 3 timeout\n",
        f);
}

static int ctl_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int ctl_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("hprof-ctl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n\n", stderr);
    va_end(ap);
    ctl_usage(stderr);
    return CTL_EXIT_USAGE;
}

/* Fails early when FILE's directory cannot be written. */
static int ctl_check_out(const char *out)
{
    char *dir = strdup(out);
    if (!dir)
        return CTL_EXIT_ERROR;
    char *slash = strrchr(dir, '/');
    const char *d = ".";
    if (slash) {
        slash[slash == dir ? 1 : 0] = '\0';
        d = dir;
    }
    int rc = CTL_EXIT_OK;
    if (access(d, W_OK | X_OK) != 0) {
        ctl_util_err("cannot write %s: %s", out, strerror(errno));
        rc = CTL_EXIT_ERROR;
    }
    free(dir);
    return rc;
}

static int ctl_write_port_file(const char *path, unsigned port)
{
    size_t n = strlen(path) + 5;
    char *tmp = malloc(n);
    if (!tmp)
        return -1;
    snprintf(tmp, n, "%s.tmp", path);
    /* created here (never written through a link planted at F.tmp), then
     * renamed whole over F (rename replaces a link, it does not follow it):
     * a reader never sees a partial number */
    int err = 0;
    char why[256];
    int fd = hw_file_create(tmp, HW_FILE_FRESH, &err, why, sizeof why);
    if (fd < 0) {
        ctl_util_err("cannot write %s: %s", tmp, why);
        free(tmp);
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f)
        close(fd);
    int ok = f && fprintf(f, "%u\n", port) > 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        ctl_util_err("cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

/* Takes an option's value from "--opt=V" or the next argument. */
static const char *ctl_opt_value(int argc, char **argv, int *i, const char *name)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (a[n] == '=')
        return a + n + 1;
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

static int ctl_is_opt(const char *a, const char *name)
{
    size_t n = strlen(name);
    return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

static int ctl_parse_args(ctl_ctx *x, int argc, char **argv)
{
    int port_seen = 0, end_of_opts = 0;
    if (ctl_queue_init(&x->queue, (size_t)argc) != 0) {
        ctl_util_err("out of memory");
        return CTL_EXIT_ERROR;
    }
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!end_of_opts && a[0] == '-' && a[1]) {
            const char *v;
            if (!strcmp(a, "--")) {
                end_of_opts = 1;
            } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
                ctl_usage(stdout);
                return CTL_DONE;
            } else if (!strcmp(a, "--loopback") || !strcmp(a, "--any") ||
                       ctl_is_opt(a, "--bind")) {
                const char *where = !strcmp(a, "--any") ? "*" : NULL;
                if (ctl_is_opt(a, "--bind")) {
                    struct sockaddr_storage ss;
                    socklen_t sl;
                    if (!(v = ctl_opt_value(argc, argv, &i, "--bind")) ||
                        hc_net_parse_addr(v, 0, &ss, &sl) != 0)
                        return ctl_usage_error("--bind takes an IPv4 or IPv6 address, not '%s'",
                                               v ? v : "");
                    where = v;
                }
                if (x->bind_given &&
                    ((where == NULL) != (x->bind == NULL) || (where && strcmp(where, x->bind))))
                    return ctl_usage_error("--loopback, --any and --bind say where to listen: "
                                           "give one of them");
                x->bind = where;
                x->bind_given = 1;
            } else if (ctl_is_opt(a, "--out")) {
                if (!(v = ctl_opt_value(argc, argv, &i, "--out")) || !*v)
                    return ctl_usage_error("--out needs a FILE");
                x->out = v;
            } else if (ctl_is_opt(a, "--report")) {
                if (!(v = ctl_opt_value(argc, argv, &i, "--report")) || !*v)
                    return ctl_usage_error("--report needs a FILE (the HTML page to write)");
                x->report = v;
            } else if (ctl_is_opt(a, "--port-file")) {
                if (!(v = ctl_opt_value(argc, argv, &i, "--port-file")) || !*v)
                    return ctl_usage_error("--port-file needs a FILE");
                x->port_file = v;
            } else if (ctl_is_opt(a, "--script")) {
                if (!(v = ctl_opt_value(argc, argv, &i, "--script")) || !*v)
                    return ctl_usage_error("--script needs a FILE");
                x->script = v;
            } else if (ctl_is_opt(a, "--agents")) {
                uint64_t nag;
                v = ctl_opt_value(argc, argv, &i, "--agents");
                if (!v || ctl_util_parse_u64(v, CTL_MAX_AGENTS_WANTED, &nag) != 0 || nag == 0)
                    return ctl_usage_error("--agents takes a number from 1 to %u, not '%s'",
                                           CTL_MAX_AGENTS_WANTED, v ? v : "");
                x->agents_wanted = (unsigned)nag;
            } else if (ctl_is_opt(a, "--timeout")) {
                v = ctl_opt_value(argc, argv, &i, "--timeout");
                char *end = NULL;
                double s = v && *v ? strtod(v, &end) : -1;
                if (!v || !*v || *end || !isfinite(s) || s <= 0 || s > CTL_MAX_TIMEOUT_S)
                    return ctl_usage_error("--timeout takes seconds (a number > 0), not '%s'",
                                           v ? v : "");
                x->timeout_s = s;
                x->timeout_given = 1;
            } else {
                return ctl_usage_error("unknown option '%s'", a);
            }
            continue;
        }
        if (!port_seen) {
            uint64_t p;
            if (ctl_util_parse_u64(a, CTL_MAX_PORT, &p) != 0)
                return ctl_usage_error("PORT must be a number from 0 to %u, not '%s'", CTL_MAX_PORT,
                                       a);
            x->port = (unsigned)p;
            port_seen = 1;
            continue;
        }
        char *t = ctl_cmd_trim(argv[i]);
        if (!t)
            return ctl_usage_error("an empty command argument");
        ctl_command cmd;
        char err[CTL_LINE_MAX];
        if (ctl_cmd_parse(t, &cmd, err, sizeof err) != 0)
            return ctl_usage_error("command '%s': %s", t, err);
        ctl_queue_add_arg(&x->queue, t);
    }
    if (!port_seen)
        return ctl_usage_error("listen needs a PORT");
    return CTL_EXIT_OK;
}

/* True when `addr` (NULL: the default) is a loopback address: 127.0.0.0/8,
 * ::1, ::ffff:127.x.y.z. Only the machine's own users can connect there. */
/* --report: one page per agent that sent anything, from its whole file
 * (closed by now: ctl_loop has ended every connection). Runs after the
 * loop, so nothing of it delays the agents. CTL_EXIT_OK, or CTL_EXIT_ERROR
 * when a page could not be written (said on stderr). */
static int ctl_write_reports(const ctl_ctx *x)
{
    if (x->total == 0) {
        ctl_util_err("--report: no agent connected: no report written");
        return CTL_EXIT_ERROR;
    }
    int rc = CTL_EXIT_OK;
    for (unsigned k = 1; k <= x->total; k++) {
        char *in = ctl_recv_path(x->out, k), *page = ctl_recv_path(x->report, k);
        char err[CTL_LINE_MAX];
        struct stat st;
        if (!in || !page) {
            ctl_util_err("out of memory: no report of agent %u", k);
            rc = CTL_EXIT_ERROR;
        } else if (stat(in, &st) != 0 || st.st_size == 0) {
            ctl_util_err("--report: agent %u sent nothing (%s): no report of it", k, in);
            rc = CTL_EXIT_ERROR;
        } else if (report_write_files((const char *const *)&in, 1, page, err, sizeof err) != 0) {
            ctl_util_err("--report: %s", err);
            rc = CTL_EXIT_ERROR;
        } else {
            printf("hprof-ctl: report of agent %u: %s\n", k, page);
        }
        free(in);
        free(page);
    }
    fflush(stdout);
    return rc;
}

static int ctl_is_loopback(const char *addr)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    if (!addr)
        return 1;
    if (hc_net_parse_addr(addr, 0, &ss, &sl) != 0) /* "*" */
        return 0;
    if (ss.ss_family == AF_INET)
        return (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
    const struct in6_addr *a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

static void ctl_free(ctl_ctx *x)
{
    ctl_queue_cleanup(&x->queue);
    free(x->conns);
    ctl_show_cleanup(&x->show);
    free(x->rbuf);
    for (int i = 0; i < x->nlfd; i++)
        close(x->lfd[i]);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return ctl_usage_error("missing COMMAND");
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        ctl_usage(stdout);
        return CTL_EXIT_OK;
    }
    if (strcmp(argv[1], "listen") != 0)
        return ctl_usage_error("unknown command '%s'", argv[1]);
    /* a dead agent socket is reported by send(MSG_NOSIGNAL); a closed stdout
     * must not kill the receiving of the profiles either */
    signal(SIGPIPE, SIG_IGN);

    ctl_ctx x;
    memset(&x, 0, sizeof x);
    x.nlfd = 0;
    x.out = CTL_DEFAULT_OUT;
    x.agents_wanted = 1;
    x.timeout_s = CTL_DEFAULT_TIMEOUT_S;
    ctl_show_init(&x.show);
    int rc = ctl_parse_args(&x, argc, argv);
    if (rc == CTL_EXIT_OK && x.script) {
        char err[CTL_LINE_MAX];
        rc = ctl_queue_load_script(&x.queue, x.script, err, sizeof err);
        if (rc == CTL_EXIT_USAGE)
            ctl_usage_error("%s", err);
    }
    if (rc == CTL_EXIT_OK)
        rc = ctl_check_out(x.out);
    if (rc == CTL_EXIT_OK && !(x.rbuf = malloc(CTL_READ_CHUNK))) {
        ctl_util_err("out of memory");
        rc = CTL_EXIT_ERROR;
    }
    if (rc != CTL_EXIT_OK) {
        ctl_free(&x);
        return rc == CTL_DONE ? CTL_EXIT_OK : rc;
    }
    char err[CTL_LINE_MAX];
    unsigned bound = 0;
    int n = hc_net_listen(x.bind, x.port, x.lfd, &bound, err, sizeof err);
    if (n < 0) {
        ctl_util_err("%s", err);
        ctl_free(&x);
        return CTL_EXIT_ERROR;
    }
    x.nlfd = n;
    x.port = bound;
    printf("hprof-ctl: listening on port %u\n", x.port);
    if (!x.bind)
        printf("hprof-ctl: on the loopback addresses only: 127.0.0.1%s (--any for other "
               "machines)\n", n > 1 ? " and [::1]" : " (this machine has no IPv6 loopback)");
    fflush(stdout);
    if (!ctl_is_loopback(x.bind)) /* on stderr: not for scripts, for the person */
        ctl_util_err("warning: listening on %s: anyone who can reach port %u can connect as an "
                     "agent and have what it sends written to %s (there is no authentication)",
                     strcmp(x.bind, "*") ? x.bind : "every address of this machine", x.port, x.out);
    if (x.port_file && ctl_write_port_file(x.port_file, x.port) != 0) {
        ctl_free(&x);
        return CTL_EXIT_ERROR;
    }
    x.start = ctl_util_now();
    rc = ctl_loop(&x);
    if (x.report) {
        int rrc = ctl_write_reports(&x);
        if (rc == CTL_EXIT_OK)
            rc = rrc;
    }
    ctl_free(&x);
    return rc;
}

