/* spool.h — finished results kept on disk instead of in memory: each case's
 * result object is written as one line of compact JSON the moment the case
 * ends, and only its place (offset, length, status) stays resident, so a
 * run of 100,000 cases keeps a few bytes per finished case.  Reports read
 * the results back one at a time, in whatever order they want, from here.
 * What a result contains is result.c's; how reports use them is theirs. */
#ifndef OC_SPOOL_H
#define OC_SPOOL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct oc_spool_entry {
  uint64_t offset;   /* where its text starts in the file */
  uint32_t len;      /* 0: no result stored under this index */
  uint8_t status;    /* enum oc_status (results_json.h) */
};

struct oc_spool {
  int fd;                       /* -1 when closed */
  struct oc_spool_entry *items; /* by index */
  size_t nitems;
  uint64_t size;                /* bytes in the file, pending ones included */
  struct oc_buf pending;        /* written in large pieces */
  uint64_t pending_at;          /* file offset of pending's first byte */
  size_t stored;                /* entries with a result */
  char dir[512];                /* where the file is (for messages) */
};

/* Make an empty spool for results 0..nitems-1 in a new file in dir (NULL:
 * $TMPDIR, else /tmp).  The file is created private (0600, O_EXCL) and
 * unlinked at once: nothing is left behind however the process ends.
 * OC_OK, or OC_EIO / OC_ENOMEM with err saying what failed and where. */
int oc_spool_open(struct oc_spool *s, const char *dir, size_t nitems, char *err, size_t errlen);
/* Room in the index for results 0..nitems-1 (a reader that learns the
 * count as it goes); never shrinks.  OC_OK or OC_ENOMEM. */
int oc_spool_reserve(struct oc_spool *s, size_t nitems);
/* The directory a spool should live in for a run that writes --json to
 * json_path (NULL allowed): beside it when it has a directory part, so a
 * disk that can take the report can take the spool; else NULL ($TMPDIR).
 * Writes into buf. */
const char *oc_spool_dir_for(const char *json_path, char *buf, size_t buflen);

/* Store result (compact JSON text of len bytes, no newline) under index,
 * replacing nothing: an index is stored once.  status is the result's
 * enum oc_status.  OC_OK, OC_EUSAGE (index out of range or stored),
 * OC_ETOOBIG (4 GiB or more), OC_EIO (the disk refused: err says so). */
int oc_spool_put(struct oc_spool *s, size_t index, const char *text, size_t len, int status,
                 char *err, size_t errlen);
/* result as the spool stores it, into out (reset first, its cap set to
 * the spool's): compact JSON
 * with every secret the run knows masked.  A caller storing from
 * several threads makes the text before it takes its lock.  OC_OK,
 * OC_ENOMEM, OC_ETOOBIG (4 GiB or more); err says which result. */
int oc_spool_encode(const cJSON *result, size_t index, struct oc_buf *out, char *err,
                    size_t errlen);
/* Serialise result (oc_spool_encode) and store it. */
int oc_spool_put_json(struct oc_spool *s, size_t index, const cJSON *result, int status, char *err,
                      size_t errlen);

/* Store a new text for a result already stored (a later check added to
 * it): written after the others, the index moved to it; the old text
 * stays in the file, unreferenced.  OC_EUSAGE when nothing was stored. */
int oc_spool_replace(struct oc_spool *s, size_t index, const char *text, size_t len, int status,
                     char *err, size_t errlen);
int oc_spool_replace_json(struct oc_spool *s, size_t index, const cJSON *result, int status,
                          char *err, size_t errlen);

/* Is a result stored under index? */
int oc_spool_has(const struct oc_spool *s, size_t index);
/* The stored text of index into out (reset first; NUL-terminated).
 * OC_OK, OC_EUSAGE (nothing stored there), OC_EIO, OC_ENOMEM. */
int oc_spool_text(struct oc_spool *s, size_t index, struct oc_buf *out, char *err, size_t errlen);
/* The stored result parsed; caller deletes.  NULL with err on failure. */
cJSON *oc_spool_get(struct oc_spool *s, size_t index, char *err, size_t errlen);

/* Close the file (already unlinked) and free the index; safe twice. */
void oc_spool_close(struct oc_spool *s);

#endif
