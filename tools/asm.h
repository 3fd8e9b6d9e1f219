/*
 * asm.h: the `hprof disasm` and `hprof asm` commands (front ends of
 * libhprofasm, hasm/).
 */
#ifndef HPROF_TOOLS_ASM_H
#define HPROF_TOOLS_ASM_H

/* argv[0] is the command name. Return the exit status: 0, 1 (input or
 * output problem), 2 (usage). */
int asm_disasm_main(int argc, char **argv);
int asm_asm_main(int argc, char **argv);

#endif /* HPROF_TOOLS_ASM_H */
