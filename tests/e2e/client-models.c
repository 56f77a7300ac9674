/* client-models.c — the client models against the real clients: runs the
 * models (src/client*.c) over exactly the chat exchanges the oracle ran
 * (the directories of its manifest, read through the cassette store, the
 * way `oacheck serve` serves them) and compares each verdict with the
 * oracle's line for the same directory, recording and client
 * (tests/client-oracle.jsonl): outcome and works must agree.  Prints the
 * agreement per client and every disagreement; exit 0 all agree, 1 some
 * disagree, 2 usage or unreadable input.  tests/e2e/client-oracle.sh runs
 * it right after the oracle, so the two never go out of step; the oracle
 * itself knows nothing of the models.  --protocol responses|messages
 * compares that protocol's exchanges instead, with the clients whose
 * model its family lists (tests/e2e/client-oracle-PROTOCOL.sh). */
#include "config.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "client.h"
#include "json.h"
#include "response.h"
#include "rules.h"
#include "util.h"

/* The clients verified against the real library (the Node ones: the
 * oracle runs them); the emulated ones have no oracle line. */
static int verified(int ci)
{
  return oc_client_basis((enum oc_client_id)ci) == OC_BASIS_VERIFIED;
}

struct line {
  char *dir, *name, *client, *outcome, *reason;
  char *reasoning;        /* NULL: null */
  int works;              /* -1 null */
  int leak;               /* reasoning_leak; -1 null */
  int used;
};

static struct line *lines;
static size_t nlines, alines;

static int read_oracle(const char *file)
{
  char *text = NULL, err[512];
  size_t len = 0;
  if(oc_read_file(file, OC_CAP_FILE, &text, &len, err, sizeof(err))) {
    fprintf(stderr, "client-models: %s\n", err);
    return 2;
  }
  long lineno = 0;
  for(char *p = text; *p;) {
    char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    lineno++;
    if(n) {
      cJSON *o = oc_json_parse(p, n, NULL);
      const char *dir = oc_json_str(o, "dir"), *name = oc_json_str(o, "name");
      const char *client = oc_json_str(o, "client"), *outcome = oc_json_str(o, "outcome");
      if(!o || !dir || !name || !client || !outcome) {
        fprintf(stderr, "client-models: %s:%ld: not an oracle line\n", file, lineno);
        cJSON_Delete(o);
        free(text);
        return 2;
      }
      struct line *d = oc_array_grow(lines, &alines, nlines + 1, sizeof(*d));
      if(!d)
        return 2;
      lines = d;
      const cJSON *w = oc_json_get(o, "works");
      const char *reason = oc_json_str(o, "reason");
      const char *reasoning = oc_json_str(o, "reasoning");
      const cJSON *leak = oc_json_get(o, "reasoning_leak");
      lines[nlines++] = (struct line){ oc_strdup(dir), oc_strdup(name), oc_strdup(client), oc_strdup(outcome),
                                       oc_strdup(reason ? reason : ""),
                                       reasoning ? oc_strdup(reasoning) : NULL,
                                       cJSON_IsBool(w) ? cJSON_IsTrue(w) : -1,
                                       cJSON_IsBool(leak) ? cJSON_IsTrue(leak) : -1, 0 };
      cJSON_Delete(o);
    }
    p += n + (nl ? 1 : 0);
  }
  free(text);
  return 0;
}

static struct line *find_line(const char *dir, const char *name, const char *client)
{
  for(size_t i = 0; i < nlines; i++)
    if(strcmp(lines[i].dir, dir) == 0 && strcmp(lines[i].name, name) == 0 &&
       strcmp(lines[i].client, client) == 0)
      return &lines[i];
  return NULL;
}

/* The protocol compared (--protocol; chat by default). */
static enum oc_api protocol = OC_API_CHAT;

static int protocol_path(const char *path)
{
  return oc_api_from_path(path) == protocol;
}

static void on_error(void *ctx, const char *msg)
{
  (void)ctx;
  fprintf(stderr, "client-models: %s\n", msg);
}

int main(int argc, char **argv)
{
  const char *manifest = NULL, *oracle = NULL;
  long show = 50;
  for(int i = 1; i < argc; i++) {
    if(strcmp(argv[i], "--manifest") == 0 && i + 1 < argc)
      manifest = argv[++i];
    else if(strcmp(argv[i], "--oracle") == 0 && i + 1 < argc)
      oracle = argv[++i];
    else if(strcmp(argv[i], "--protocol") == 0 && i + 1 < argc) {
      const char *pn = argv[++i];
      protocol = strcmp(pn, "chat") == 0 ? OC_API_CHAT : strcmp(pn, "responses") == 0 ? OC_API_RESPONSES :
                 strcmp(pn, "messages") == 0 ? OC_API_MESSAGES : OC_API_OTHER;
      if(protocol == OC_API_OTHER) {
        fprintf(stderr, "client-models: --protocol chat|responses|messages\n");
        return 2;
      }
    }
    else if(strcmp(argv[i], "--show") == 0 && i + 1 < argc && !oc_parse_long(argv[i + 1], 0, 100000, &show))
      i++;
    else {
      fprintf(stderr, "usage: client-models [--protocol P] --manifest FILE --oracle FILE.jsonl [--show N]\n");
      return 2;
    }
  }
  if(!manifest || !oracle) {
    fprintf(stderr, "usage: client-models [--protocol P] --manifest FILE --oracle FILE.jsonl [--show N]\n");
    return 2;
  }
  const char *src = getenv("OACHECK_SRCDIR");
  if(src && *src)
    setenv("OACHECK_DATADIR", src, 1);
  char err[1024];
  struct oc_schemas schemas;
  if(oc_schemas_load(&schemas, err, sizeof(err))) {
    fprintf(stderr, "client-models: cannot load the shipped schemas: %s\n", err);
    return 2;
  }
  if(read_oracle(oracle))
    return 2;
  char *mtext = NULL;
  size_t mlen = 0;
  if(oc_read_file(manifest, OC_CAP_FILE, &mtext, &mlen, err, sizeof(err))) {
    fprintf(stderr, "client-models: %s\n", err);
    return 2;
  }
  /* the clients the oracle ran: last year's majors only where
   * tests/node/previous is installed (client-oracle.sh insists under CI) */
  int ran[OC_CLIENT__COUNT] = { 0 };
  for(size_t i = 0; i < nlines; i++) {
    int ci = oc_client_find(lines[i].client);
    if(ci >= 0)
      ran[ci] = 1;
  }
  for(int ci = OC_CLIENT__TODAY; ci < OC_CLIENT__COUNT; ci++)
    if(!ran[ci] && (oc_clients_of_api(protocol) & (1u << ci)))
      printf("note: the oracle did not run %s: not compared\n", oc_client_name((enum oc_client_id)ci));
  size_t agree[OC_CLIENT__COUNT] = { 0 }, total[OC_CLIENT__COUNT] = { 0 };
  size_t counts[OC_CLIENT__COUNT][4] = { { 0 } }, broken[OC_CLIENT__COUNT] = { 0 };
  size_t exchanges = 0, dirs = 0, shown = 0, problems = 0;
  int modelled_any[OC_CLIENT__COUNT] = { 0 };
  for(char *p = mtext; *p;) {
    char *nl = strchr(p, '\n');
    if(nl)
      *nl = '\0';
    char *label = p, *tab1 = strchr(p, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
    p = nl ? nl + 1 : p + strlen(p);
    if(!*label)
      continue;
    if(!tab1 || !tab2) {
      fprintf(stderr, "client-models: %s: a line is not LABEL<TAB>PATH<TAB>URL\n", manifest);
      return 2;
    }
    *tab1 = '\0';
    *tab2 = '\0';
    const char *path = tab1 + 1;
    struct oc_cassette_store store;
    oc_cassette_store_init(&store);
    if(oc_cassette_store_load(&store, &path, 1, on_error, NULL) == OC_ENOMEM) {
      fprintf(stderr, "client-models: out of memory loading %s\n", path);
      return 2;
    }
    dirs++;
    for(size_t k = 0; k < store.count; k++) {
      const struct oc_cassette *c = &store.items[k];
      if(!c->method || strcmp(c->method, "POST") != 0 || !c->path || !protocol_path(c->path))
        continue;
      exchanges++;
      struct oc_findings f;
      struct oc_check check;
      oc_findings_init(&f);
      oc_check_init(&check, &f, oc_profile_default());
      check.clients = OC_CLIENTS_EVERY; /* last year's majors too */
      size_t *pieces = c->npieces ? calloc(c->npieces, sizeof(*pieces)) : NULL;
      for(size_t i = 0; pieces && i < c->npieces; i++)
        pieces[i] = c->pieces[i].end;
      struct oc_client_verdict v[OC_CLIENT__COUNT];
      int rc = oc_response_analyze_clients(&schemas, &check, c->method, c->path, c->req_body,
                                           c->req_body_len, c->status, &c->headers, c->body,
                                           c->body_len, pieces, c->npieces, v);
      free(pieces);
      oc_findings_free(&f);
      if(rc) {
        fprintf(stderr, "client-models: %s/%s: the analysis failed (%d)\n", label, c->name, rc);
        return 2;
      }
      const char *dump = getenv("CLIENT_MODELS_DUMP");
      for(int ci = 0; ci < OC_CLIENT__COUNT; ci++) {
        if(dump && strcmp(dump, oc_client_name((enum oc_client_id)ci)) == 0)
          printf("%s/%s: %s works=%d cause=%s limitation=%d: %s\n", label, c->name,
                 oc_client_outcome_name(v[ci].outcome), v[ci].works, oc_client_cause_name(v[ci].cause),
                 v[ci].limitation, v[ci].reason);
        modelled_any[ci] |= v[ci].modelled;
        counts[ci][v[ci].outcome]++;
        broken[ci] += v[ci].works == 0;
      }
      for(int ci = 0; ci < OC_CLIENT__COUNT; ci++) {
        if(!verified(ci) || !(oc_clients_of_api(protocol) & (1u << ci)) ||
           (protocol == OC_API_CHAT && ci >= OC_CLIENT__TODAY && !ran[ci]))
          continue;
        /* a typed protocol's client is compared once its family lists
         * its model (pclient.h): until then it has no verdict */
        if(protocol != OC_API_CHAT && !v[ci].modelled)
          continue;
        const char *cn = oc_client_name((enum oc_client_id)ci);
        struct line *l = find_line(label, c->name, cn);
        total[ci]++;
        if(!l) {
          problems++;
          if(shown++ < (size_t)show)
            printf("MISSING %s on %s/%s: no oracle line\n", cn, label, c->name);
          continue;
        }
        l->used = 1;
        const char *got = oc_client_outcome_name(v[ci].outcome);
        int gw = v[ci].works;
        /* what the application can read of the reasoning, and whether
         * markup reached its answer, must agree too */
        const char *gr = oc_client_reasoning_name(v[ci].reasoning);
        int reasoning_ok = (!gr && !l->reasoning) || (gr && l->reasoning && strcmp(gr, l->reasoning) == 0);
        int leak_ok = v[ci].reasoning_leak == l->leak;
        if(strcmp(got, l->outcome) == 0 && gw == l->works && reasoning_ok && leak_ok) {
          agree[ci]++;
          continue;
        }
        problems++;
        if(shown++ < (size_t)show)
          printf("DISAGREE %s on %s/%s\n  model:  %s works=%d reasoning=%s leak=%d: %s\n"
                 "  client: %s works=%d reasoning=%s leak=%d: %s\n",
                 cn, label, c->name, got, gw, gr ? gr : "null", v[ci].reasoning_leak, v[ci].reason,
                 l->outcome, l->works, l->reasoning ? l->reasoning : "null", l->leak, l->reason);
      }
    }
    oc_cassette_store_free(&store);
  }
  for(size_t i = 0; i < nlines; i++)
    if(!lines[i].used && oc_client_find(lines[i].client) >= 0 &&
       protocol != OC_API_CHAT && !modelled_any[oc_client_find(lines[i].client)])
      lines[i].used = 1; /* a client whose model is not in its family yet */
  for(size_t i = 0; i < nlines; i++)
    if(!lines[i].used) {
      problems++;
      if(shown++ < (size_t)show)
        printf("UNMATCHED oracle line %s on %s/%s: the models saw no such exchange\n", lines[i].client,
               lines[i].dir, lines[i].name);
    }
  printf("client models vs the real clients: %zu exchanges in %zu directories\n", exchanges, dirs);
  printf("  %-22s %10s %8s %8s %8s %14s %12s\n", "client", "agreement", "ok", "raises", "wrong",
         "not-exercised", "works=false");
  for(int ci = 0; ci < OC_CLIENT__COUNT; ci++) {
    char ag[32] = "-";
    if(!(oc_clients_of_api(protocol) & (1u << ci)))
      continue;
    if(protocol != OC_API_CHAT && !modelled_any[ci])
      snprintf(ag, sizeof(ag), "no model");
    else if(verified(ci) && (ci < OC_CLIENT__TODAY || ran[ci]))
      snprintf(ag, sizeof(ag), "%zu/%zu", agree[ci], total[ci]);
    printf("  %-22s %10s %8zu %8zu %8zu %14zu %12zu\n", oc_client_name((enum oc_client_id)ci), ag,
           counts[ci][0], counts[ci][1], counts[ci][2], counts[ci][3], broken[ci]);
  }
  free(mtext);
  for(size_t i = 0; i < nlines; i++) {
    free(lines[i].dir);
    free(lines[i].name);
    free(lines[i].client);
    free(lines[i].outcome);
    free(lines[i].reason);
    free(lines[i].reasoning);
  }
  free(lines);
  oc_schemas_free(&schemas);
  return problems ? 1 : 0;
}
