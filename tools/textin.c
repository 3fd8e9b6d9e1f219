/* textin.c: front end for a text layout file (java.hprof.txt, format=a)
 * given to a command that reads only binary: `info` describes the text (what
 * it holds, what each view makes of it), histo, verify, disasm, convert and
 * redact refuse it with a message that says what the file is and what to do.
 * The parsing is textprof/'s. */
#include "textin.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tp_text.h"

/* The first argument naming a regular file that starts as the text layout,
 * -o's value aside (an option's other values are never such a file). */
static const char *textin_find(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (strcmp(argv[i], "-o") == 0) { /* an output file is no input */
            i++;
            continue;
        }
        if (argv[i][0] == '-' || stat(argv[i], &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        FILE *f = fopen(argv[i], "rb");
        if (!f)
            continue;
        char head[32];
        size_t n = fread(head, 1, sizeof head, f);
        fclose(f);
        if (tp_is_text(head, n))
            return argv[i];
    }
    return NULL;
}

static int textin_info(const char *path, const tp_info *ti, const char *what, uint64_t bin)
{
    printf("file:       %s\n", path);
    printf("format:     the agent's text layout (java.hprof.txt, format=a)\n");
    printf("holds:      %s\n", what);
    printf("as binary:  %llu bytes of records (what hprof sites, samples, collapsed and print "
           "read)\n", (unsigned long long)bin);
    if (ti->heap_dumps)
        printf("note:       a text HEAP DUMP has no field values: hprof histo needs the agent's "
               "format=b\n");
    if (ti->cpu_times || ti->monitor_dumps || ti->monitor_times)
        printf("note:       CPU TIME and MONITOR sections have no binary record: no view shows "
               "them yet\n");
    return 0;
}

int textin_main(const char *cmd, int argc, char **argv)
{
    /* not disasm: it takes any bytes, a text file too, and gives them back
     * losslessly (as raw lines) */
    static const char *const binary_only[] = {"info",     "histo", "verify", "convert", "redact",
                                              "retained", "path",  "diff",   NULL};
    int known = 0;
    for (int i = 0; binary_only[i]; i++)
        known |= strcmp(cmd, binary_only[i]) == 0;
    if (!known)
        return -1;
    const char *path = textin_find(argc, argv);
    if (!path)
        return -1;
    uint8_t *bin = NULL;
    size_t len = 0;
    tp_info ti;
    char err[256], what[256];
    int rc = tp_load_file(path, &bin, &len, &ti, err, sizeof err);
    free(bin);
    if (rc < 0) {
        fprintf(stderr, "hprof: %s is the agent's text layout (format=a) but cannot be read: %s\n",
                path, err);
        return 1;
    }
    tp_describe(&ti, what, sizeof what);
    if (strcmp(cmd, "info") == 0)
        return textin_info(path, &ti, what, len);
    if (strcmp(cmd, "histo") == 0 || strcmp(cmd, "retained") == 0 || strcmp(cmd, "path") == 0 ||
        strcmp(cmd, "diff") == 0) {
        fprintf(stderr,
                "hprof: %s is the agent's text layout (format=a): it holds %s; hprof %s needs "
                "a binary heap dump: run the agent with heap=dump,format=b, or take one with "
                "jcmd PID GC.heap_dump%s\n",
                path, what, cmd,
                ti.heap_dumps ? " (a text HEAP DUMP lists objects without their field values)"
                              : "");
        return 1;
    }
    fprintf(stderr,
            "hprof: %s is the agent's text layout (format=a): it holds %s; hprof %s reads binary "
            "HPROF only: hprof sites, samples, collapsed and print read this file as it is, or "
            "run the agent with format=b\n",
            path, what, cmd);
    return 1;
}
