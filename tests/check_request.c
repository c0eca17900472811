/* SPDX-License-Identifier: ISC */
/* The control protocol's request parser: what a hostile or careless client sends. */
#include "config.h"

#include <check.h>
#include <string.h>

#include "check_run.h"
#include "request_parse.h"

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

static Suite *request_suite(void)
{
    Suite *s = suite_create("request");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_strict_requests);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run(request_suite());
}
