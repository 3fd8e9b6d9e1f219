/*
 * diff.h: `hprof diff OLD NEW`, the class histograms of two heap dumps side
 * by side (the leak hunt: dump, wait, dump, diff). Classes are matched by
 * name with hidden-class addresses normalized (normalize.h) and printed in
 * Java spelling; rows are ordered by byte growth.
 */
#ifndef HPROF_TOOLS_DIFF_H
#define HPROF_TOOLS_DIFF_H

/* The command: argv[0] is "diff". Returns the exit status (0 OK, 1 an input
 * could not be read whole or is no heap dump, 2 usage). */
int diff_main(int argc, char **argv);

#endif /* HPROF_TOOLS_DIFF_H */
