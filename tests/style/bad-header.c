/* bad-header.c — a sample for tests/style/run.sh: libcurl outside http.c. */
/* expect: 4 HEADER */
/* expect: 5 HEADER */
#include <curl/curl.h>
#include <pcre2.h>
#include <stdio.h>
