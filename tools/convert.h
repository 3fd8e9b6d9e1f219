/*
 * convert.h (tools): `hprof convert`, the command front end of
 * libhprofconvert (convert/convert.h): options, messages, exit status.
 */
#ifndef HPROF_TOOLS_CONVERT_H
#define HPROF_TOOLS_CONVERT_H

/* argv[0] is "convert". Returns the exit status: 0, 1 (input or output
 * problem), 2 (usage). */
int convert_main(int argc, char **argv);

#endif
