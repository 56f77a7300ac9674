/* check_url.c — target roots, joining roots with API paths, and URLs made
 * safe to print. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "url.h"

static void join_is(const char *base, const char *path, const char *want)
{
  char *got = oc_url_join(base, path);
  ck_assert_msg(got && strcmp(got, want) == 0, "join('%s', '%s') = '%s', want '%s'", base,
                path ? path : "(null)", got ? got : "(null)", want);
  free(got);
}

static void root_is(const char *base, const char *want)
{
  char *got = oc_url_root(base);
  ck_assert_msg(got && strcmp(got, want) == 0, "root('%s') = '%s', want '%s'", base,
                got ? got : "(null)", want);
  free(got);
}

static void redact_is(const char *url, const char *want)
{
  char out[256];
  oc_url_redact(url, out, sizeof(out));
  ck_assert_msg(strcmp(out, want) == 0, "redact('%s') = '%s', want '%s'", url, out, want);
}

START_TEST(root_takes_off_v1)
{
  root_is("http://h:8080", "http://h:8080");
  root_is("http://h:8080/", "http://h:8080");
  root_is("http://h:8080/v1", "http://h:8080");
  root_is("http://h:8080/v1/", "http://h:8080");
  root_is("  http://h:8080/v1/ \n", "http://h:8080");
  root_is("http://h/llm/", "http://h/llm");
  root_is("http://h/llm/v1", "http://h/llm");
  /* only one trailing /v1, and only a whole segment */
  root_is("http://h/v1/v1", "http://h/v1");
  root_is("http://h/apiv1", "http://h/apiv1");
  root_is("http://h/v1?x=1", "http://h");
  root_is("https://u:p@h/v1", "https://u:p@h");
}
END_TEST

START_TEST(join_paths)
{
  join_is("http://h:8080/v1/", "/v1/chat/completions", "http://h:8080/v1/chat/completions");
  join_is("http://h:8080", "/v1/models", "http://h:8080/v1/models");
  join_is("http://h:8080/", "v1/models", "http://h:8080/v1/models");
  join_is("http://h/llm/", "/v1/models", "http://h/llm/v1/models");
  join_is("http://h/llm/v1", "/props", "http://h/llm/props");
  join_is("http://h:8080/v1", NULL, "http://h:8080");
  join_is("http://h:8080/v1", "", "http://h:8080");
  /* a query on the base (Azure's api-version) stays, after the path's own */
  join_is("https://h/openai?api-version=1", "/v1/models", "https://h/openai/v1/models?api-version=1");
  join_is("https://h/openai/v1/?api-version=1", "/v1/models?limit=2",
          "https://h/openai/v1/models?limit=2&api-version=1");
  join_is("http://h/v1#frag", "/v1/x#y", "http://h/v1/x#y");
}
END_TEST

START_TEST(redact_for_messages)
{
  redact_is("http://u:p@h/v1/x?key=1", "http://h/v1/x");
  redact_is("http://h:8080/v1/models", "http://h:8080/v1/models");
  redact_is("https://a@b@h/x#f", "https://h/x");
  redact_is("http://h?x=@y", "http://h");
  redact_is("not a url?x", "not a url");
  redact_is(NULL, "");
  char small[8];
  oc_url_redact("http://very-long-host/", small, sizeof(small));
  ck_assert_str_eq(small, "http://");
}
END_TEST

START_TEST(redact_keeping_the_query)
{
  char out[256];
  oc_url_redact_query("https://u:p@h/openai/v1/chat/completions?api-version=2024-10-21&api-key=QK&x=1#f", out,
                      sizeof(out));
  ck_assert_str_eq(out, "https://h/openai/v1/chat/completions?api-version=2024-10-21&api-key=[redacted]&x=1");
  oc_url_redact_query("http://h/v1?Token=a&sig=b&code&&n=", out, sizeof(out));
  ck_assert_str_eq(out, "http://h/v1?Token=[redacted]&sig=[redacted]&code&n=");
  oc_url_redact_query("http://h:8080/v1/models", out, sizeof(out));
  ck_assert_str_eq(out, "http://h:8080/v1/models");
  oc_url_redact_query("http://h/v1?", out, sizeof(out));
  ck_assert_str_eq(out, "http://h/v1");
  oc_url_redact_query(NULL, out, sizeof(out));
  ck_assert_str_eq(out, "");
  /* what does not fit is left out a parameter at a time, never a value cut */
  char small[24];
  oc_url_redact_query("http://h/v1?a=1&key=secretvalue&b=2", small, sizeof(small));
  ck_assert_str_eq(small, "http://h/v1?a=1");
  char tiny[8];
  oc_url_redact_query("http://very-long-host/?a=1", tiny, sizeof(tiny));
  ck_assert_str_eq(tiny, "http://");
}
END_TEST

static void endpoint_is(const char *url, const char *want)
{
  size_t len = 99, at = oc_url_endpoint(url, &len);
  if(!want) {
    ck_assert_msg(at == 0 && len == 0, "endpoint('%s') = '%.*s', want none", url, (int)len, url + at);
    return;
  }
  ck_assert_msg(at > 0 && len == strlen(want) && strncmp(url + at, want, len) == 0,
                "endpoint('%s') = '%.*s', want '%s'", url, at ? (int)len : 0, at ? url + at : "", want);
}

/* A target given as the full endpoint (the URL a client library is
 * configured with elsewhere) would be joined into
 * /v1/chat/completions/v1/models: told apart from a base with a path. */
START_TEST(endpoint_in_the_path)
{
  endpoint_is("http://127.0.0.1:8080/v1/chat/completions", "/v1/chat/completions");
  endpoint_is("http://h/v1/chat/completions/", "/v1/chat/completions");
  endpoint_is("http://h/chat/completions", "/chat/completions");
  endpoint_is("http://h/v1/completions", "/v1/completions");
  endpoint_is("http://h/v1/embeddings", "/v1/embeddings");
  endpoint_is("http://h/v1/models", "/v1/models");
  endpoint_is("http://h/models", "/models");
  endpoint_is("HTTP://H/V1/Chat/Completions", "/V1/Chat/Completions");
  endpoint_is("http://u:p@h/llm/v1/chat/completions?api-version=1#x", "/v1/chat/completions");
  endpoint_is("https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21",
              "/chat/completions");
  endpoint_is(" http://h/v1/models \n", "/v1/models");
  /* roots, and bases with a path of their own */
  endpoint_is("http://h:8080", NULL);
  endpoint_is("http://h:8080/v1", NULL);
  endpoint_is("http://h/openai/v1/", NULL);
  endpoint_is("https://h/openai?api-version=1", NULL);
  endpoint_is("https://h/openai/v1?api-version=2024-10-21", NULL);
  endpoint_is("http://h/models/llama/v1", NULL);
  endpoint_is("http://h/mycompletions", NULL);
  endpoint_is("http://h/v1?path=/chat/completions", NULL);
  endpoint_is("http://models", NULL);
  endpoint_is("", NULL);
  endpoint_is(NULL, NULL);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("url");
  TCase *tc = tcase_create("url");
  tcase_add_test(tc, root_takes_off_v1);
  tcase_add_test(tc, join_paths);
  tcase_add_test(tc, redact_for_messages);
  tcase_add_test(tc, redact_keeping_the_query);
  tcase_add_test(tc, endpoint_in_the_path);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
