/* check_secret.c — the secret registry: what is registered (values,
 * credentials after Bearer/Basic, URL passwords, key-like query values,
 * their percent- and JSON-escaped forms), and masking that keeps lengths
 * in bytes, JSON trees and files. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "headers.h"
#include "secret.h"
#include "testutil.h"

#define KEY "sk-oacheck-SECRET-1234567890"

static void masked_is(const char *in, const char *want)
{
  char *got = oc_secret_masked(in, strlen(in));
  ck_assert_msg(got && strcmp(got, want) == 0, "mask('%s') = '%s', want '%s'", in, got ? got : "(null)",
                want);
  ck_assert_uint_eq(strlen(got), strlen(in));
  free(got);
}

START_TEST(mask_keeps_length)
{
  oc_secrets_clear();
  ck_assert_int_eq(oc_secret_add(KEY), OC_OK);
  masked_is("key " KEY " and " KEY "!", "key [secret********************] and [secret********************]!");
  masked_is("nothing here", "nothing here");
  masked_is(KEY, "[secret********************]");
  oc_secrets_clear();
  masked_is("key " KEY, "key " KEY);
}
END_TEST

START_TEST(header_credentials)
{
  oc_secrets_clear();
  oc_secret_add_header("Authorization", "Bearer " KEY);
  oc_secret_add_header("Content-Type", "application/json-that-is-long");
  masked_is("Incorrect API key provided: " KEY ".", "Incorrect API key provided: [secret********************].");
  masked_is("application/json-that-is-long", "application/json-that-is-long");
  oc_secret_add_header("Proxy-Authorization", "Basic dXNlcjpwYXNzd29yZA==");
  masked_is("dXNlcjpwYXNzd29yZA==", "[secret************]");
  oc_secrets_clear();
}
END_TEST

/* Which header names carry credentials: exact names, suffixes and parts
 * in any case, rate-limit counters excepted, names of any length. */
START_TEST(secret_header_names)
{
  static const struct {
    const char *name;
    int secret;
  } cases[] = {
    { "Authorization", 1 }, { "authorization", 1 }, { "PROXY-AUTHORIZATION", 1 },
    { "Cookie", 1 }, { "Set-Cookie", 1 }, { "api-key", 1 }, { "X-Api-Key", 1 },
    { "OpenAI-Organization", 1 }, { "openai-project", 1 }, { "X-Goog-Api-Key", 1 },
    { "Ocp-Apim-Subscription-Key", 1 }, { "apikey", 1 }, { "X-Auth", 1 },
    { "X-Session-Id", 1 }, { "X-Amz-Signature", 1 }, { "X-Upstream-Token", 1 },
    { "x-client-secret", 1 }, { "X-Password", 1 }, { "X-Credentials", 1 },
    { "Content-Type", 0 }, { "Date", 0 }, { "Server", 0 }, { "X-Request-Id", 0 },
    { "x-ratelimit-remaining-tokens", 0 }, { "X-RateLimit-Limit-Tokens", 0 },
    { "X-Ratelimit-Reset-Tokens", 0 }, { "", 0 }, { "Authorizatio", 1 /* "auth" */ },
    { "Monkey", 1 /* "key": the wide net is on purpose */ },
  };
  for(size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    ck_assert_msg(oc_header_is_secret(cases[i].name) == cases[i].secret, "'%s': want %d",
                  cases[i].name, cases[i].secret);
  /* longer than the lower-casing buffer: the same answers */
  char name[400];
  memset(name, 'a', sizeof(name) - 1);
  name[sizeof(name) - 1] = '\0';
  ck_assert_int_eq(oc_header_is_secret(name), 0);
  memcpy(name + 300, "-TOKEN", 7);
  ck_assert_int_eq(oc_header_is_secret(name), 1);
  memcpy(name + 300, "-Tok", 5);
  ck_assert_int_eq(oc_header_is_secret(name), 0);
  memcpy(name + 10, "SeCrEt", 6);
  ck_assert_int_eq(oc_header_is_secret(name), 1);
}
END_TEST

START_TEST(short_values_are_not_registered)
{
  oc_secrets_clear();
  oc_secret_add("abc");
  ck_assert_uint_eq(oc_secret_count(), 0);
  masked_is("abcabc", "abcabc");
  oc_secret_add("abcdef");
  masked_is("xabcdefx", "x******x");
}
END_TEST

START_TEST(url_credentials_and_queries)
{
  oc_secrets_clear();
  oc_secret_add_url("https://user:hunter2-password@h.example/v1?api-version=2024-10-21&api-key=QUERYKEY123&x=1");
  masked_is("pw hunter2-password", "pw [secret********]");
  masked_is("user:hunter2-password@", "[secret*************]@");
  masked_is("?api-key=QUERYKEY123", "?api-key=[secret***]");
  /* not a credential: the API version stays readable */
  masked_is("api-version=2024-10-21", "api-version=2024-10-21");
  oc_secrets_clear();
}
END_TEST

START_TEST(escaped_forms)
{
  oc_secrets_clear();
  oc_secret_add("abc/def+ghi");
  masked_is("q=abc%2Fdef%2Bghi", "q=[secret*******]");
  masked_is("\"abc\\/def+ghi\"", "\"[secret****]\"");
  oc_secrets_clear();
}
END_TEST

START_TEST(json_tree)
{
  oc_secrets_clear();
  oc_secret_add(KEY);
  cJSON *doc = cJSON_Parse("{\"a\":[{\"b\":\"x " KEY "\"},{\"" KEY "\":1}],\"c\":{\"d\":{\"e\":\"" KEY "\"}},"
                           "\"f\":\"clean\"}");
  ck_assert_ptr_nonnull(doc);
  oc_secret_mask_json(doc);
  char *text = cJSON_PrintUnformatted(doc);
  ck_assert_ptr_null(strstr(text, KEY));
  ck_assert_ptr_nonnull(strstr(text, "\"f\":\"clean\""));
  ck_assert_ptr_nonnull(strstr(text, "\"x [secret"));
  free(text);
  cJSON_Delete(doc);
  oc_secrets_clear();
}
END_TEST

START_TEST(write_file_masks)
{
  oc_secrets_clear();
  oc_secret_add(KEY);
  char path[] = "/tmp/oacheck-secret-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  char text[] = "report: " KEY "\n";
  char err[256];
  ck_assert_int_eq(oc_secret_write_file(path, text, strlen(text), err, sizeof(err)), OC_OK);
  size_t n;
  char *back = oc_test_read(path, &n);
  ck_assert_str_eq(back, "report: [secret********************]\n");
  free(back);
  unlink(path);
  oc_secrets_clear();
}
END_TEST

int main(void)
{
  Suite *s = suite_create("secret");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, mask_keeps_length);
  tcase_add_test(tc, header_credentials);
  tcase_add_test(tc, secret_header_names);
  tcase_add_test(tc, short_values_are_not_registered);
  tcase_add_test(tc, url_credentials_and_queries);
  tcase_add_test(tc, escaped_forms);
  tcase_add_test(tc, json_tree);
  tcase_add_test(tc, write_file_masks);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
