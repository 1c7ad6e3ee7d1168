/* The reader child's limits and slots (src/readers/assimp/assimp_child.h, child_slots.h;
 * issue 31 item 3): a memory budget from the input's size with a floor and a ceiling; every
 * limit the lower of ours and the caller's, soft and hard (the child once raised a caller's
 * `prlimit --cpu=2` to 600 s); a wall-clock limit for a reader that uses no CPU; and at most
 * N readers at once, counted with lock files that leave the folder empty. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "readers/assimp/assimp_child.h"
#include "readers/assimp/child_slots.h"
#include "support/test_support.h"

#define GIB ((uint64_t)1 << 30)
#define MIB ((uint64_t)1 << 20)

static void test_budget_from_the_input_size(void **state)
{
    (void)state;
    am_child_limits l = am_assimp_child_limits(0, AM_ASSIMP_CHILD_FACTOR_BINARY);
    assert_int_equal(l.memory_bytes, 512 * MIB); /* the floor */
    assert_int_equal(l.cpu_seconds, 600);
    assert_int_equal(l.wall_seconds, 900);
    l = am_assimp_child_limits(3 * MIB, 32); /* rpm_avatar.fbx: 1.2 MB + 1.9 MB of arrays */
    assert_int_equal(l.memory_bytes, 512 * MIB + 96 * MIB);
    l = am_assimp_child_limits(25 * MIB, 96);
    assert_int_equal(l.memory_bytes, 512 * MIB + 2400 * MIB);
    l = am_assimp_child_limits(256 * MIB, 96); /* the largest file: the ceiling */
    assert_int_equal(l.memory_bytes, 8 * GIB);
    l = am_assimp_child_limits(UINT64_MAX, 96); /* no overflow */
    assert_int_equal(l.memory_bytes, 8 * GIB);
}

static void test_never_above_the_callers_limits(void **state)
{
    (void)state;
    uint64_t soft, hard, inf = (uint64_t)RLIM_INFINITY;
    /* prlimit --as=1.5G: the child's 8 GiB becomes 1.5 GiB, soft and hard */
    am_child_limit_within(8 * GIB, 8 * GIB, 3 * GIB / 2, 3 * GIB / 2, &soft, &hard);
    assert_int_equal(soft, 3 * GIB / 2);
    assert_int_equal(hard, 3 * GIB / 2);
    /* prlimit --cpu=2: 600 s / 605 s become 2 s / 2 s */
    am_child_limit_within(600, 605, 2, 2, &soft, &hard);
    assert_int_equal(soft, 2);
    assert_int_equal(hard, 2);
    /* a lower soft limit with a higher hard one: each the lower */
    am_child_limit_within(600, 605, 100, inf, &soft, &hard);
    assert_int_equal(soft, 100);
    assert_int_equal(hard, 605);
    /* a caller's hard limit below our soft one: the soft follows it down */
    am_child_limit_within(600, 605, inf, 30, &soft, &hard);
    assert_int_equal(soft, 30);
    assert_int_equal(hard, 30);
    /* no limit on the caller: ours */
    am_child_limit_within(600, 605, inf, inf, &soft, &hard);
    assert_int_equal(soft, 600);
    assert_int_equal(hard, 605);
}

/* The child's own CPU limit, told back as its error. */
static am_status report_cpu_limit(void *ctx, am_scene *out, am_error *err)
{
    (void)ctx, (void)out;
    struct rlimit cpu;
    getrlimit(RLIMIT_CPU, &cpu);
    return am_fail(err, AM_ERR_INVALID, "cpu %llu %llu", (unsigned long long)cpu.rlim_cur,
                   (unsigned long long)cpu.rlim_max);
}

static void test_the_child_keeps_the_callers_lower_limit(void **state)
{
    (void)state;
    struct rlimit mine;
    assert_int_equal(getrlimit(RLIMIT_CPU, &mine), 0);
    am_scene s;
    am_error err;
    memset(&s, 0, sizeof s);
    /* without a limit of ours, the defaults: 600 s, hard 605 s (or the caller's, if lower) */
    assert_int_equal(am_child_read_scene(report_cpu_limit, NULL, NULL, "the test reader", "m.fbx", &s, &err),
                     AM_ERR_INVALID);
    unsigned long long soft, hard;
    assert_int_equal(sscanf(err.msg, "cpu %llu %llu", &soft, &hard), 2);
    assert_int_equal(soft, mine.rlim_cur < 600 ? mine.rlim_cur : 600);
    assert_int_equal(hard, mine.rlim_max < 605 ? mine.rlim_max : 605);
    /* the caller lowers its own soft limit to 50 s: the child gets 50 s, not 600 */
    struct rlimit lower = {50, mine.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_CPU, &lower), 0);
    am_status st = am_child_read_scene(report_cpu_limit, NULL, NULL, "the test reader", "m.fbx", &s, &err);
    assert_int_equal(setrlimit(RLIMIT_CPU, &mine), 0);
    assert_int_equal(st, AM_ERR_INVALID);
    assert_int_equal(sscanf(err.msg, "cpu %llu %llu", &soft, &hard), 2);
    assert_int_equal(soft, 50);
    assert_int_equal(hard, mine.rlim_max < 605 ? mine.rlim_max : 605);
}

static am_status sleep_long(void *ctx, am_scene *out, am_error *err)
{
    (void)ctx, (void)out, (void)err;
    for (;;)
        pause(); /* no CPU time: only the wall clock stops it */
    return AM_OK;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void test_wall_clock_limit(void **state)
{
    (void)state;
    am_scene s;
    am_error err;
    memset(&s, 0, sizeof s);
    am_child_limits one_second = {0, 0, 1};
    double t0 = now_seconds();
    assert_int_equal(am_child_read_scene(sleep_long, NULL, &one_second, "the test reader", "m.fbx", &s, &err),
                     AM_ERR_INVALID);
    double took = now_seconds() - t0;
    assert_string_equal(err.where, "m.fbx");
    if (!strstr(err.msg, "the test reader took more than its 1 s of wall-clock time and was stopped"))
        fail_msg("%s", err.msg);
    assert_true(took >= 0.9 && took < 30);
    assert_int_equal(s.node_count, 0);
}

static am_status answer_nothing(void *ctx, am_scene *out, am_error *err)
{
    (void)ctx, (void)out;
    return am_fail(err, AM_ERR_INVALID, "ran");
}

static void test_slots(void **state)
{
    (void)state;
    char dir[256];
    am_test_tmpdir(dir, sizeof dir);
    am_child_slot a, b;
    am_error err;
    assert_int_equal(am_child_slot_take(dir, 1, 0, &a, &err), AM_OK);
    assert_int_equal(am_test_count_entries(dir), 1); /* the slot's lock file */
    /* the one slot is held (another open of the file is another lock) */
    assert_int_equal(am_child_slot_take(dir, 1, 0, &b, &err), AM_ERR_IO);
    assert_non_null(strstr(err.msg, "all 1 reader slots in"));
    assert_int_equal(b.fd, -1);
    /* a second slot is free */
    assert_int_equal(am_child_slot_take(dir, 2, 0, &b, &err), AM_OK);
    assert_int_equal(am_test_count_entries(dir), 2);
    am_child_slot_give(&b);
    /* a reader waits for a slot, at most its wall-clock limit, and names why it gave up */
    assert_int_equal(setenv("ANIMESH_READER_SLOT_DIR", dir, 1), 0);
    assert_int_equal(setenv("ANIMESH_READER_SLOTS", "1", 1), 0);
    am_scene s;
    memset(&s, 0, sizeof s);
    am_child_limits one_second = {0, 0, 1};
    am_status st = am_child_read_scene(answer_nothing, NULL, &one_second, "the test reader", "m.fbx", &s, &err);
    assert_int_equal(st, AM_ERR_IO);
    if (!strstr(err.msg, "reader slots in") || !strstr(err.msg, "stayed busy for 1 s"))
        fail_msg("%s", err.msg);
    am_child_slot_give(&a);
    assert_int_equal(am_test_count_entries(dir), 0); /* given back: the files are gone */
    st = am_child_read_scene(answer_nothing, NULL, &one_second, "the test reader", "m.fbx", &s, &err);
    assert_int_equal(st, AM_ERR_INVALID);
    assert_string_equal(err.msg, "ran");
    assert_int_equal(am_test_count_entries(dir), 0);
    unsetenv("ANIMESH_READER_SLOT_DIR");
    unsetenv("ANIMESH_READER_SLOTS");
    am_test_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_from_the_input_size),
        cmocka_unit_test(test_never_above_the_callers_limits),
        cmocka_unit_test(test_the_child_keeps_the_callers_lower_limit),
        cmocka_unit_test(test_wall_clock_limit),
        cmocka_unit_test(test_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
