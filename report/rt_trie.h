/* rt_trie.h: the report's string table and flame-graph tries.
 *
 * rt_names interns strings (the JSON's "names": method names, allocated
 * classes) and hands out dense indices. An rt_trie is one flame graph: stacks
 * added root first, each node counting its own weight in two columns (`self`
 * and, for a diff, `base`). rt_trie_emit writes the contract's "nodes" object:
 * depth-first preorder from the root (depth 0, name -1), children ordered by
 * their name's string (then kind), so the same profile always prints the
 * same bytes. Memory is about 48 bytes a node plus a 16-byte hash slot. */
#ifndef RT_TRIE_H
#define RT_TRIE_H

#include <stddef.h>
#include <stdint.h>

#include "rj_json.h"

typedef struct rt_names rt_names;

rt_names *rt_names_new(void);
void rt_names_free(rt_names *n);
/* The index of s[0..len) (added when new), or -1 when out of memory. */
int32_t rt_names_add(rt_names *n, const char *s, size_t len);
const char *rt_names_get(const rt_names *n, int32_t ix);
size_t rt_names_count(const rt_names *n);
/* Writes the names as a JSON array. */
void rt_names_emit(const rt_names *n, rj *j);

/* Node kinds (the contract's "kind" array). */
enum { RT_FRAME = 0, RT_ALLOC_CLASS = 1, RT_THREAD = 2 };
/* Weight columns. */
enum { RT_SELF = 0, RT_BASE = 1 };

typedef struct rt_trie rt_trie;

rt_trie *rt_trie_new(const rt_names *names);
void rt_trie_free(rt_trie *t);
/* Adds one stack of `n` names, root first (names[0] hangs under the root),
 * the last one of kind `leaf_kind` (the others RT_FRAME), with `weight` in
 * column `col` of the last node. `trace` (0: none) is kept on the last node
 * when it has none yet. n == 0 adds to the root itself. 0, or -1 when out of
 * memory (the trie stays usable, the stack is not counted). */
int rt_trie_add(rt_trie *t, const int32_t *names, size_t n, int leaf_kind, uint64_t trace,
                uint64_t weight, int col);
/* Weights kept in units of 10^-places of the unit (the ms flames add
 * microseconds, places 3: rounding each stack to whole ms lost the short
 * ones) and written with that many decimals; 0 (the default): integers. */
void rt_trie_set_places(rt_trie *t, unsigned places);
/* Writes one weight of this trie as the JSON number it stands for. */
void rt_trie_weight(const rt_trie *t, rj *j, uint64_t w);
/* Sum of a column over every node. */
uint64_t rt_trie_total(const rt_trie *t, int col);
size_t rt_trie_size(const rt_trie *t); /* nodes, the root included */
/* Decides the trace printed for a node: returns `trace` or 0 (the report
 * keeps the traces it prints within a budget). */
typedef uint64_t (*rt_trace_filter)(void *ctx, uint64_t trace);
/* Writes {"name":[...],"depth":[...],"self":[...],"kind":[...],"trace":[...]}
 * (and "base":[...] when with_base). `keep` may be NULL (every trace
 * printed). Returns 0, or -1 when out of memory. */
int rt_trie_emit(const rt_trie *t, rj *j, int with_base, rt_trace_filter keep, void *ctx);

#endif
