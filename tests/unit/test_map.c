/*
 * test_map.c: hu_map, the u64 -> u64 hash map of the verifier, the tools and
 * the agent's heap dump: a long random sequence of puts, gets and deletes
 * (backward-shift deletion in linear probing) checked against a plain
 * array; keys drawn from a small range so that probe runs collide, wrap
 * around the table and get deleted from the middle. Key 0 included.
 */
#include <stdlib.h>

#include "hu_map.h"
#include "testutil.h"

#define MAP_KEYS 4096 /* key range: dense collisions in a 8192-slot table */
#define MAP_OPS 400000

static void test_random_ops_match_reference(void)
{
    static uint64_t ref[MAP_KEYS];
    static uint8_t present[MAP_KEYS];
    hu_map m;
    hu_map_init(&m);
    uint64_t rnd = 88172645463325252ULL;
    size_t count = 0;
    for (int op = 0; op < MAP_OPS; op++) {
        rnd ^= rnd << 13;
        rnd ^= rnd >> 7;
        rnd ^= rnd << 17;
        uint64_t k = rnd % MAP_KEYS;
        /* keys spread over the u64 range, and key 0 itself */
        uint64_t key = k ? k * 0x9e3779b97f4a7c15ULL : 0;
        switch ((rnd >> 32) % 3) {
        case 0:
            CU_ASSERT_EQUAL_FATAL(hu_map_put(&m, key, rnd), 0);
            count += !present[k];
            present[k] = 1;
            ref[k] = rnd;
            break;
        case 1: {
            uint64_t v = 0;
            int had = hu_map_del(&m, key, &v);
            CU_ASSERT_EQUAL_FATAL(had, present[k]);
            if (had) {
                CU_ASSERT_EQUAL_FATAL(v, ref[k]);
                count--;
            }
            present[k] = 0;
            break;
        }
        default: {
            uint64_t *p = hu_map_get(&m, key);
            CU_ASSERT_EQUAL_FATAL(p != NULL, present[k]);
            if (p)
                CU_ASSERT_EQUAL_FATAL(*p, ref[k]);
        }
        }
        CU_ASSERT_EQUAL_FATAL(m.count, count);
    }
    /* every key still where it should be after all the shifting */
    for (uint64_t k = 0; k < MAP_KEYS; k++) {
        uint64_t *p = hu_map_get(&m, k ? k * 0x9e3779b97f4a7c15ULL : 0);
        CU_ASSERT_EQUAL_FATAL(p != NULL, present[k]);
        if (p)
            CU_ASSERT_EQUAL_FATAL(*p, ref[k]);
    }
    hu_map_cleanup(&m);
}

static void test_delete_absent_and_empty(void)
{
    hu_map m;
    hu_map_init(&m);
    CU_ASSERT_EQUAL(hu_map_del(&m, 5, NULL), 0);
    CU_ASSERT_EQUAL(hu_map_del(&m, 0, NULL), 0);
    CU_ASSERT_EQUAL(hu_map_put(&m, 5, 50), 0);
    CU_ASSERT_EQUAL(hu_map_del(&m, 6, NULL), 0);
    CU_ASSERT_EQUAL(hu_map_del(&m, 5, NULL), 1);
    CU_ASSERT_PTR_NULL(hu_map_get(&m, 5));
    CU_ASSERT_EQUAL(m.count, 0);
    hu_map_cleanup(&m);
}

static int map_suites(void)
{
    CU_pSuite s = CU_add_suite("hu_map", NULL, NULL);
    if (!s || !CU_add_test(s, "random put/get/del match a reference", test_random_ops_match_reference) ||
        !CU_add_test(s, "delete of absent keys, empty map", test_delete_absent_and_empty))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(map_suites);
}
