/*
 * test_vec.c: the agent's chunked array (agent/vec.c): elements zeroed,
 * never moved, and aligned to VEC_ALIGN in every chunk (hp_site keeps its
 * allocation counter on a cache line of its own with _Alignas(64), which
 * holds only if the chunk itself is so aligned).
 */
#include <stdint.h>
#include <string.h>

#include "testutil.h"
#include "vec.h"

typedef struct over {
    uint64_t a;
    _Alignas(64) uint64_t hot;
} over;

static void test_aligned(void)
{
    vec v;
    CU_ASSERT_FATAL(vec_init(&v, sizeof(over)) == 0);
    uint32_t n = (1u << VEC_CHUNK_BITS) * 2 + 5, misaligned = 0, nonzero = 0;
    for (uint32_t i = 1; i < n; i++) {
        CU_ASSERT_EQUAL_FATAL(vec_push(&v), i);
        over *o = vec_at(&v, i);
        if ((uintptr_t)o % VEC_ALIGN)
            misaligned++;
        else if (o->a || o->hot) /* read only when aligned: UBSan */
            nonzero++;
    }
    CU_ASSERT_EQUAL(misaligned, 0);
    CU_ASSERT_EQUAL(nonzero, 0);
    over *first = vec_at(&v, 1);
    first->hot = 7;
    CU_ASSERT_EQUAL(((over *)vec_at(&v, 1))->hot, 7);
    vec_cleanup(&v);
}

static int vec_suites(void)
{
    CU_pSuite s = CU_add_suite("vec", NULL, NULL);
    if (!s || !CU_add_test(s, "chunks aligned to VEC_ALIGN, elements zeroed", test_aligned))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(vec_suites);
}
