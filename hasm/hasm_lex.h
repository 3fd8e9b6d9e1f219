/*
 * hasm_lex.h: splits one line of the HPROF text form into tokens.
 *
 * Owns the lexical rules: tokens are separated by blanks; `#` at the start
 * of a token begins a comment; "..." is a string with escapes (\" \\ \n \t
 * \r \0 \xHH; any other byte, UTF-8 included, stands for itself);
 * key=value is one token (the value may be a quoted string). The line is
 * decoded in place: tokens point into it.
 */
#ifndef HASM_LEX_H
#define HASM_LEX_H

#include <stddef.h>

typedef struct hasm_tok {
    const char *key; /* NULL for a bare word or string */
    char *val;       /* NUL-terminated (a string may also hold NULs: see len) */
    size_t len;
    int quoted;
} hasm_tok;

typedef struct hasm_lex hasm_lex;

hasm_lex *hasm_lex_init(void);
void hasm_lex_cleanup(hasm_lex *lx);
/* Tokenizes `line` (modified in place). Returns the token count (valid
 * until the next call, in *toks), or -1 with a reason in *why. */
long hasm_lex_line(hasm_lex *lx, char *line, hasm_tok **toks, const char **why);

#endif /* HASM_LEX_H */
