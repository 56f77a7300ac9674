/* datadir.c — locating the data root.  The decision is made once: an
 * explicit OACHECK_DATADIR wins; a binary that sits in the build tree it
 * was built in reads the source tree (so `./src/oacheck run` works without
 * installing); anything else reads the installed $(pkgdatadir). */
#include "config.h"
#include "datadir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#ifndef OC_PKGDATADIR
#define OC_PKGDATADIR "/usr/local/share/oacheck"
#endif
#ifndef OC_ABS_SRCDIR
#define OC_ABS_SRCDIR "."
#endif
#ifndef OC_ABS_BUILDDIR
#define OC_ABS_BUILDDIR "."
#endif

static int running_from_build_tree(void)
{
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if(n <= 0)
    return 0;
  exe[n] = '\0';
  char build[PATH_MAX];
  if(!realpath(OC_ABS_BUILDDIR, build))
    return 0;
  size_t bl = strlen(build);
  /* libtool-less build: the binary is BUILDDIR/src/oacheck; test programs
   * live under BUILDDIR/tests/ */
  return strncmp(exe, build, bl) == 0 && exe[bl] == '/';
}

const char *oc_datadir(void)
{
  static const char *root;
  if(root)
    return root;
  const char *env = getenv("OACHECK_DATADIR");
  if(env && *env)
    root = env;
  else if(running_from_build_tree())
    root = OC_ABS_SRCDIR;
  else
    root = OC_PKGDATADIR;
  return root;
}

char *oc_data_path(const char *rel)
{
  return oc_path_join(oc_datadir(), rel);
}
