/* datadir.h — where the program finds its suites, schemas, report assets
 * and shipped recordings: $OACHECK_DATADIR, else the source tree when the
 * binary runs from its build tree, else $(pkgdatadir). */
#ifndef OC_DATADIR_H
#define OC_DATADIR_H

/* The data root; borrowed, valid for the life of the process. */
const char *oc_datadir(void);
/* DATADIR/rel as a new string (caller frees). */
char *oc_data_path(const char *rel);

#endif
