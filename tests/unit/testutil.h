/* testutil.h — shared helpers for the Check unit tests: finding the team's
 * reference data (../shared) and the source tree, reading test files, and
 * running a suite with the Automake exit conventions (77 skip, 99 error). */
#ifndef OC_TESTUTIL_H
#define OC_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* $OACHECK_SHARED/rel when it exists, else NULL.  Under CI (CI=true) a
 * missing reference directory is a hard error (exit 99): CI must never
 * pass by skipping; elsewhere the caller skips with a printed reason. */
static inline char *oc_test_shared(const char *rel)
{
  const char *root = getenv("OACHECK_SHARED");
  char *path = NULL;
  if(root && *root)
    path = oc_path_join(root, rel);
  if(path && (oc_is_dir(path) || oc_is_file(path)))
    return path;
  const char *ci = getenv("CI");
  fprintf(stderr, "reference data '%s' not found under OACHECK_SHARED='%s'%s\n", rel,
          root ? root : "", (ci && strcmp(ci, "true") == 0) ? " (CI=true: this is a failure)" : "");
  free(path);
  if(ci && strcmp(ci, "true") == 0)
    exit(99);
  return NULL;
}

/* $OACHECK_SRCDIR/rel (the source tree), caller frees. */
static inline char *oc_test_src(const char *rel)
{
  const char *root = getenv("OACHECK_SRCDIR");
  return oc_path_join(root && *root ? root : ".", rel);
}

/* Read a whole file or fail the current test. */
static inline char *oc_test_read(const char *path, size_t *len)
{
  char *buf = NULL, err[512];
  size_t n = 0;
  int rc = oc_read_file(path, OC_CAP_FILE, &buf, &n, err, sizeof(err));
  ck_assert_msg(rc == 0, "%s", err);
  if(len)
    *len = n;
  return buf;
}

/* Run a suite; exit status per Automake (0 pass, 1 fail). */
static inline int oc_test_run(Suite *s)
{
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

#endif
