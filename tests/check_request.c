/* SPDX-License-Identifier: ISC */
/* The control protocol's request parser and the UTF-8 cleaning of replies: what a hostile
 * or careless client sends, and what outside bytes a reply may carry. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "grow.h"
#include "request.h"
#include "strutil.h"

static const char *parse(const char *line)
{
    struct request r;
    char err[256];
    const char *code = request_parse(line, strlen(line), &r, err, sizeof(err));
    if (!code)
        request_done(&r);
    return code ? code : "ok";
}

START_TEST(test_strict_requests)
{
    ck_assert_str_eq(parse("{\"v\":1,\"cmd\":\"status\"}"), "ok");
    ck_assert_str_eq(parse("  {\"v\":1, \"cmd\":\"checks\", \"args\":{\"failed\":true}} \r"), "ok");
    /* "v" is the integer 1, nothing else */
    ck_assert_str_eq(parse("{\"v\":1.9,\"cmd\":\"status\"}"), "EPROTO");
    ck_assert_str_eq(parse("{\"v\":\"1\",\"cmd\":\"status\"}"), "EPROTO");
    ck_assert_str_eq(parse("{\"v\":true,\"cmd\":\"status\"}"), "EPROTO");
    ck_assert_str_eq(parse("{\"v\":2,\"cmd\":\"status\"}"), "EPROTO");
    ck_assert_str_eq(parse("{\"cmd\":\"status\"}"), "EPROTO");
    /* one object, nothing after it, no duplicate keys (json-c keeps the last one) */
    ck_assert_str_eq(parse("{\"v\":1,\"cmd\":\"status\"} garbage"), "EINVAL");
    ck_assert_str_eq(parse("{\"v\":1,\"cmd\":\"status\"}{\"v\":1,\"cmd\":\"reload\"}"), "EINVAL");
    ck_assert_str_eq(parse("{\"v\":1,\"cmd\":\"status\",\"cmd\":\"reload\"}"), "EINVAL");
    ck_assert_str_eq(parse("{\"v\":1,\"cmd\":\"status\",\"\\u0063md\":\"reload\"}"), "EINVAL");
    ck_assert_str_eq(parse("{\"v\":1,\"v\":1,\"cmd\":\"status\"}"), "EINVAL");
    /* a command name is compared with its length: no NUL inside */
    ck_assert_str_eq(parse("{\"v\":1,\"cmd\":\"status\\u0000reload\"}"), "EINVAL");
    ck_assert_str_eq(parse("{\"v\":1,\"cmd\":7}"), "EINVAL");
    ck_assert_str_eq(parse("{\"v\":1,\"cmd\":\"status\",\"args\":[1]}"), "EINVAL");
    ck_assert_str_eq(parse("[{\"v\":1,\"cmd\":\"status\"}]"), "EINVAL");
    ck_assert_str_eq(parse("{\"v\":1,\"cmd\":\"st\xff\"}"), "EINVAL");   /* not UTF-8 */
    ck_assert_str_eq(parse(""), "EINVAL");
    ck_assert_str_eq(parse("{\"v\":1,\"cmd\":\"status\""), "EINVAL");
    /* nested duplicate-looking keys inside args are args' business */
    ck_assert_str_eq(parse("{\"v\":1,\"cmd\":\"checks\",\"args\":{\"cmd\":1}}"), "ok");
}
END_TEST

START_TEST(test_utf8_sanitize)
{
    size_t len;
    const char *good = "ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
    char *s = utf8_sanitize(good, strlen(good), &len);
    ck_assert_str_eq(s, "ok \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");  /* valid stays */
    free(s);
    const char *bad = "a\xff" "b\xc0\xaf" "c\xed\xa0\x80" "d\xe2\x82";
    s = utf8_sanitize(bad, strlen(bad), &len);
    /* a bad byte, an overlong '/', a surrogate, a cut sequence: each byte -> U+FFFD */
    ck_assert_str_eq(s, "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd"
                        "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "d\xef\xbf\xbd\xef\xbf\xbd");
    ck_assert_uint_eq(len, strlen(s));
    free(s);
}
END_TEST

/* strscpy() tells the truth, as the kernel's does: the length, or -E2BIG when cut. */
START_TEST(test_strscpy)
{
    char buf[4];
    ck_assert_int_eq(strscpy(buf, "abc", sizeof(buf)), 3);
    ck_assert_str_eq(buf, "abc");
    ck_assert_int_eq(strscpy(buf, "abcd", sizeof(buf)), -E2BIG);
    ck_assert_str_eq(buf, "abc");
    ck_assert_int_eq(strscpy(buf, "", sizeof(buf)), 0);
    ck_assert_str_eq(buf, "");
    ck_assert_int_eq(strscpy(buf, "x", 0), -E2BIG);
}
END_TEST

/* grow_array() doubles from 8, stops at its bound, and leaves the array whole on failure. */
START_TEST(test_grow_array)
{
    int *a = NULL;
    size_t cap = 0, reallocs = 0;
    for (size_t n = 0; n < 1000; n++) {
        size_t before = cap;
        ck_assert_int_eq(GROW_ARRAY(a, cap, n + 1, 1000), 0);
        reallocs += cap != before;
        a[n] = (int)n;
    }
    /* 8, 16, ..., 512, then the bound: 8 reallocs for 1000 adds, not 1000. */
    ck_assert_uint_eq(cap, 1000);
    ck_assert_uint_eq(reallocs, 8);
    ck_assert_int_eq(GROW_ARRAY(a, cap, 1001, 1000), -EFBIG);
    ck_assert_uint_eq(cap, 1000);
    ck_assert_int_eq(a[999], 999);
    ck_assert_int_eq(GROW_ARRAY(a, cap, 10, 1000), 0);
    ck_assert_uint_eq(cap, 1000);
    free(a);
}
END_TEST

static Suite *request_suite(void)
{
    Suite *s = suite_create("request");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_strict_requests);
    tcase_add_test(tc, test_utf8_sanitize);
    tcase_add_test(tc, test_strscpy);
    tcase_add_test(tc, test_grow_array);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run(request_suite());
}
