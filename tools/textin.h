/* textin.h: the commands that read only binary HPROF, given the agent's
 * text layout (java.hprof.txt): `info` describes it, the others say what it
 * is and what to do instead (textprof/ reads it for sites, samples,
 * collapsed and print). */
#ifndef TEXTIN_H
#define TEXTIN_H

/* For command `cmd` with its arguments (argv[0] = the command): when a FILE
 * argument is a text layout file, handles it (prints) and returns the exit
 * status; returns -1 when the command should run as usual. */
int textin_main(const char *cmd, int argc, char **argv);

#endif
