/* finding.c — storing findings with a per-rule cap and counting the rest.
 * Severity policy (profiles, allow lists) is applied before a finding
 * gets here, in rules.c. */
#include "config.h"
#include "finding.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *oc_severity_name(enum oc_severity s)
{
  switch(s) {
  case OC_SEV_ERROR: return "error";
  case OC_SEV_WARNING: return "warning";
  case OC_SEV_INFO: return "info";
  }
  return "info";
}

int oc_severity_parse(const char *s)
{
  if(oc_streq(s, "error"))
    return OC_SEV_ERROR;
  if(oc_streq(s, "warning"))
    return OC_SEV_WARNING;
  if(oc_streq(s, "info"))
    return OC_SEV_INFO;
  return -1;
}

void oc_findings_init(struct oc_findings *f)
{
  memset(f, 0, sizeof(*f));
  f->per_rule_max = OC_FINDINGS_PER_RULE;
}

static void finding_clear(struct oc_finding *x)
{
  free(x->path);
  free(x->message);
  free(x->expected);
  free(x->actual);
  free(x->excerpt);
}

void oc_findings_free(struct oc_findings *f)
{
  for(size_t i = 0; i < f->count; i++)
    finding_clear(&f->items[i]);
  free(f->items);
  free(f->counts);
  size_t per = f->per_rule_max;
  oc_findings_init(f);
  f->per_rule_max = per;
}

static struct oc_rule_count *count_for(struct oc_findings *f, enum oc_rule_id rule)
{
  for(size_t i = 0; i < f->ncounts; i++)
    if(f->counts[i].rule == rule)
      return &f->counts[i];
  struct oc_rule_count *d = oc_array_grow(f->counts, &f->acounts, f->ncounts + 1, sizeof(*d));
  if(!d)
    return NULL;
  f->counts = d;
  struct oc_rule_count *c = &f->counts[f->ncounts++];
  c->rule = rule;
  c->total = 0;
  c->kept = 0;
  return c;
}

/* Findings quote what servers sent, which may be anything: every string
 * is made valid UTF-8 here, once, so that no report has to. */
static char *dup_or_null(const char *s, int *fail)
{
  if(!s)
    return NULL;
  char *d = oc_utf8_sanitize(s, strlen(s));
  if(!d)
    *fail = 1;
  return d;
}

int oc_findings_add(struct oc_findings *f, const struct oc_finding *src)
{
  struct oc_rule_count *c = count_for(f, src->rule);
  if(!c)
    return OC_ENOMEM;
  c->total++;
  if(f->per_rule_max && c->kept >= f->per_rule_max)
    return OC_OK;
  struct oc_finding *d = oc_array_grow(f->items, &f->alloc, f->count + 1, sizeof(*d));
  if(!d)
    return OC_ENOMEM;
  f->items = d;
  struct oc_finding *x = &f->items[f->count];
  int fail = 0;
  *x = *src;
  x->path = dup_or_null(src->path, &fail);
  x->message = dup_or_null(src->message ? src->message : "", &fail);
  x->expected = dup_or_null(src->expected, &fail);
  x->actual = dup_or_null(src->actual, &fail);
  x->excerpt = dup_or_null(src->excerpt, &fail);
  if(fail) {
    finding_clear(x);
    return OC_ENOMEM;
  }
  f->count++;
  c->kept++;
  return OC_OK;
}

int oc_findings_worst(const struct oc_findings *f)
{
  int worst = -1;
  for(size_t i = 0; i < f->count; i++)
    if(!f->items[i].allowed && (int)f->items[i].severity > worst)
      worst = (int)f->items[i].severity;
  return worst;
}

size_t oc_findings_total(const struct oc_findings *f, enum oc_rule_id rule)
{
  for(size_t i = 0; i < f->ncounts; i++)
    if(f->counts[i].rule == rule)
      return f->counts[i].total;
  return 0;
}

const struct oc_finding *oc_findings_first(const struct oc_findings *f, enum oc_rule_id rule)
{
  for(size_t i = 0; i < f->count; i++)
    if(f->items[i].rule == rule)
      return &f->items[i];
  return NULL;
}

int oc_findings_take(struct oc_findings *dst, struct oc_findings *src)
{
  for(size_t i = 0; i < src->count; i++) {
    struct oc_finding *x = &src->items[i];
    int rc = oc_findings_add(dst, x);
    if(rc)
      return rc;
  }
  /* carry the counts of findings that were over the cap in src */
  for(size_t i = 0; i < src->ncounts; i++) {
    size_t over = src->counts[i].total - src->counts[i].kept;
    if(over) {
      struct oc_rule_count *c = count_for(dst, src->counts[i].rule);
      if(!c)
        return OC_ENOMEM;
      c->total += over;
    }
  }
  oc_findings_free(src);
  return OC_OK;
}

void oc_finding_where_text(const struct oc_finding *x, char *out, size_t outlen)
{
  if(x->chunk >= 0 && x->byte >= 0)
    snprintf(out, outlen, "chunk %ld, byte %lld", x->chunk, (long long)x->byte);
  else if(x->chunk >= 0)
    snprintf(out, outlen, "chunk %ld", x->chunk);
  else if(x->byte >= 0)
    snprintf(out, outlen, "byte %lld", (long long)x->byte);
  else if(outlen)
    out[0] = '\0';
}
