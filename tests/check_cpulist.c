/* SPDX-License-Identifier: ISC */
/* Tests of the cpulist parser (the kernel's "0-3,8-11" lists of local_cpulist and
 * smp_affinity_list) and the CPU set it fills. */
#include "config.h"

#include <check.h>
#include <errno.h>

#include "check_run.h"
#include "cpulist.h"

START_TEST(test_cpulist)
{
    struct cpuset a, b;
    ck_assert_int_eq(cpulist_parse("0-3,8-11\n", &a), 0);
    ck_assert_int_eq(cpuset_first(&a), 0);
    ck_assert_int_eq(cpulist_parse("10", &b), 0);
    ck_assert(cpuset_intersects(&a, &b));
    ck_assert_int_eq(cpulist_parse("12-4095", &b), 0);
    ck_assert(!cpuset_intersects(&a, &b));
    ck_assert_int_eq(cpuset_first(&b), 12);
    ck_assert_int_eq(cpulist_parse("", &b), 0);
    ck_assert_int_eq(cpuset_first(&b), -1);
    ck_assert_int_eq(cpulist_parse("4096", &b), -ERANGE);
    ck_assert_int_eq(cpulist_parse("5-3", &b), -EINVAL);
    ck_assert_int_eq(cpulist_parse("1,,2", &b), -EINVAL);
    ck_assert_int_eq(cpulist_parse("ff", &b), -EINVAL);
    ck_assert_int_eq(cpulist_parse("1-", &b), -EINVAL);
    ck_assert_int_eq(cpulist_parse("99999999999999999999", &b), -ERANGE);
}
END_TEST

static Suite *cpulist_suite(void)
{
    Suite *s = suite_create("cpulist");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_cpulist);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run(cpulist_suite());
}
