/* SPDX-License-Identifier: ISC */
/* Tests of src/shared: the UTF-8 cleaning of replies (what outside bytes a reply may
 * carry), strscpy(), grow_array(), and json_text()'s fields for the terminal. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "grow.h"
#include "json_text.h"
#include "sha256.h"
#include "strutil.h"

/* FIPS 180-4's examples (and the empty string): one block, the two-block padding of 56
 * bytes, and a million bytes. */
START_TEST(test_sha256)
{
    char hex[SHA256_HEX_LEN + 1];
    sha256_hex("", 0, hex);
    ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex("abc", 3, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex(two, strlen(two), hex);
    ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *a = malloc(1000000);
    ck_assert_ptr_nonnull(a);
    memset(a, 'a', 1000000);
    sha256_hex(a, 1000000, hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
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

/* A field's text lives as long as its object, however many fields are asked for after it
 * (issue 41, item 8: a ring of 8 buffers gave the ninth call the first's memory), and a
 * control character (C0, DEL, C1) reads '?'. */
START_TEST(test_json_text_lives_with_its_object)
{
    json_object *o = json_object_new_object();
    char key[16], want[32];
    const char *kept[12];
    for (int i = 0; i < 12; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        snprintf(want, sizeof(want), "reason %d", i);
        json_object_object_add(o, key, json_object_new_string(want));
    }
    json_object_object_add(o, "esc", json_object_new_string("a\x1b[2Jb\x7f\xc2\x9b" "c\td"));
    json_object_object_add(o, "n", json_object_new_int(42));
    for (int i = 0; i < 12; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        kept[i] = json_text(o, key);
    }
    ck_assert_str_eq(json_text(o, "esc"), "a?[2Jb??c\td");
    ck_assert_str_eq(json_text(o, "esc"), "a?[2Jb??c\td");     /* cleaned once, stays */
    ck_assert_str_eq(json_text(o, "n"), "42");
    ck_assert_str_eq(json_text(o, "absent"), "-");
    ck_assert_str_eq(json_text(NULL, "k0"), "-");
    for (int i = 0; i < 12; i++) {
        snprintf(want, sizeof(want), "reason %d", i);
        ck_assert_str_eq(kept[i], want);
    }
    json_object_put(o);
}
END_TEST

static Suite *shared_suite(void)
{
    Suite *s = suite_create("shared");
    TCase *tc = tcase_create("strings-and-arrays");
    tcase_add_test(tc, test_sha256);
    tcase_add_test(tc, test_utf8_sanitize);
    tcase_add_test(tc, test_strscpy);
    tcase_add_test(tc, test_grow_array);
    tcase_add_test(tc, test_json_text_lives_with_its_object);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run(shared_suite());
}
