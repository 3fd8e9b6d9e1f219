/* report.h (tools): `hprof report`'s front end (tools/report.c); the work is
 * in the hprofreport library (report/hprof_report.h). */
#ifndef HPROF_TOOLS_REPORT_H
#define HPROF_TOOLS_REPORT_H

/* argv[0] = "report". Returns the exit status: 0, 1 (input problem), 2 (usage). */
int report_cmd_main(int argc, char **argv);

#endif
