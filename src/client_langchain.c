/* client_langchain.c — @langchain/openai 1 (ChatOpenAI with bindTools;
 * invoke, or stream with the chunks concatenated), modelled from its
 * source and @langchain/core's message merging, verified against the real
 * library (the oracle).  It runs openai 7 underneath (the same Stream and
 * APIError as openai-node, client_openai_node.c), and for a non-streamed
 * json_schema request openai 7's parse(), which raises on a length or
 * content_filter finish and parses the content.  Its own ways: only
 * choices[0] of each chunk is read; a chunk's class follows its role (no
 * role on the first delta: a generic message that keeps no tool calls);
 * fragments merge by numeric index (id and name: the last one wins,
 * arguments joined), a fragment without index stays apart; each call's
 * arguments go through parsePartialJson, which "repairs" what was cut,
 * and a streamed call without an id is invalid; finish_reason strings are
 * concatenated across chunks ("stopstop" for two choices); refusals never
 * reach the application; the first generation of a non-streamed answer
 * is the first element of choices. */
#include "config.h"
#include "client_int.h"
#include "message.h"

#include <stdlib.h>
#include <string.h>

enum mclass { M_NONE = 0, M_AI, M_CHAT, M_HUMAN, M_SYSTEM, M_TOOL, M_FUNCTION };

/* A JavaScript value's identity for the merge rules: undefined, null, a
 * number, a string, anything else. */
enum jkind { J_UNDEF = 0, J_NULL, J_NUM, J_STR, J_BOOL, J_OBJ, J_ARR };

static enum jkind jkind_of(const struct oc_jv *v)
{
  if(!v)
    return J_UNDEF;
  switch(v->type) {
  case OC_JNULL: return J_NULL;
  case OC_JNUMBER: return J_NUM;
  case OC_JSTRING: return J_STR;
  case OC_JTRUE:
  case OC_JFALSE: return J_BOOL;
  case OC_JARRAY: return J_ARR;
  default: return J_OBJ;
  }
}

/* One merged tool_call_chunk. */
struct tcc {
  enum jkind index_kind;
  double index;
  enum jkind id_kind, name_kind, args_kind;
  struct oc_ctext id, name;
  struct oc_buf args;     /* joined string arguments (c.args || "") */
  uint64_t args_len;
  int args_over;
};

struct lc {
  struct oc_cjs_stream s;
  struct oc_cview view;   /* the error, when one is raised */
  enum mclass cls;
  int chat_role_set;
  struct oc_ctext chat_role;
  int default_role_set;
  struct oc_ctext default_role;
  enum jkind default_role_kind;
  struct oc_ctext content;
  struct oc_cfollow follow; /* content, in step with the reference */
  int following;          /* follow was set up */
  struct oc_ctext finish;
  enum jkind finish_kind;
  int nfinish;
  struct tcc *calls;      /* grown on the first fragment, at most 2 * OC_MAX_TOOL_CALLS */
  size_t ncalls, acalls;
  int any_chunk;
  int usage;
  long first_index;
  int have_first;
  int mixed;
  enum oc_client_cause cause;
  enum oc_rule_id rule;
  int have_rule;
  struct oc_cview body;
  int have_body;
  int parse_path;
  int refused;            /* parse() refused the request before it was sent */
  int openai_major;       /* the openai-node underneath: 7, or 5 under LangChain 0.6 */
};

static int rf_json_schema(const struct oc_request_info *req)
{
  const cJSON *rf = req->body ? cJSON_GetObjectItemCaseSensitive(req->body, "response_format") : NULL;
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(rf, "type");
  return cJSON_IsObject(rf) && cJSON_IsString(type) && strcmp(type->valuestring, "json_schema") == 0 &&
         cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(rf, "json_schema"));
}

static void lc_raise(struct lc *l, struct oc_cview *v, const char *cls, const char *msg,
                     enum oc_client_cause cause, enum oc_rule_id rule)
{
  if(oc_cview_raised(v))
    return;
  oc_cview_raise(v, cls, msg, strlen(msg));
  l->cause = cause;
  l->rule = rule;
  l->have_rule = 1;
}

static void lc_init(void *st, const struct oc_cctx *cx)
{
  struct lc *l = st;
  oc_cview_init(&l->view);
  oc_cview_init(&l->body);
  oc_ctext_init(&l->content);
  oc_ctext_init(&l->finish);
  oc_ctext_init(&l->chat_role);
  oc_ctext_init(&l->default_role);
  l->openai_major = 7;
  l->parse_path = !cx->stream && rf_json_schema(cx->req);
  if(l->parse_path && cx->req->tools) {
    /* openai 7's validateInputTools, before anything is sent */
    const cJSON *t;
    cJSON_ArrayForEach(t, cx->req->tools) {
      const cJSON *fn = cJSON_GetObjectItemCaseSensitive(t, "function");
      const cJSON *name = cJSON_GetObjectItemCaseSensitive(fn, "name");
      if(!cJSON_IsString(name))
        continue;
      if(!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fn, "strict"))) {
        char msg[300];
        snprintf(msg, sizeof(msg), "The `%s` tool is not marked with `strict: true`. Only strict "
                 "function tools can be auto-parsed", name->valuestring);
        lc_raise(l, &l->body, "OpenAIError", msg, OC_CAUSE_REQUEST, OC_R_CLIENT_BREAKS);
        l->refused = 1;
        break;
      }
    }
  }
}

/* LangChain 0.6 differs from 1 where measured: it runs openai 5, which
 * loses a flat error envelope's message as openai 6 does, and hands the
 * application no reasoning at all (client.c's RP_NONE). */
static void lc_init_0_6(void *st, const struct oc_cctx *cx)
{
  lc_init(st, cx);
  ((struct lc *)st)->openai_major = 5;
}

static enum mclass class_of(const struct oc_jv *role)
{
  if(!role || role->type != OC_JSTRING)
    return M_CHAT;
  /* read for every chunk: a constant table with the lengths in it */
  static const struct {
    const char *name;
    uint32_t len;
    enum mclass c;
  } map[] = { { "user", 4, M_HUMAN }, { "assistant", 9, M_AI }, { "system", 6, M_SYSTEM },
              { "developer", 9, M_SYSTEM }, { "function", 8, M_FUNCTION }, { "tool", 4, M_TOOL } };
  for(size_t i = 0; i < OC_ARRAY_LEN(map); i++)
    if(map[i].len == role->len && memcmp(map[i].name, role->u.str, role->len) == 0)
      return map[i].c;
  return M_CHAT;
}

/* _mergeLists for one tool_call_chunk: merged into the first with the
 * same numeric index whose id matches or is missing, else appended.
 * _mergeDicts throws when a key holds values of two types. */
static int merge_tcc(struct lc *l, const struct oc_jv *raw)
{
  const struct oc_jv *fn = raw && raw->type == OC_JOBJECT ? oc_jv_get(raw, "function") : NULL;
  const struct oc_jv *name = fn && fn->type == OC_JOBJECT ? oc_jv_get(fn, "name") : NULL;
  const struct oc_jv *args = fn && fn->type == OC_JOBJECT ? oc_jv_get(fn, "arguments") : NULL;
  const struct oc_jv *id = raw && raw->type == OC_JOBJECT ? oc_jv_get(raw, "id") : NULL;
  const struct oc_jv *index = raw && raw->type == OC_JOBJECT ? oc_jv_get(raw, "index") : NULL;
  struct tcc *t = NULL;
  if(index && index->type == OC_JNUMBER)
    for(size_t i = 0; i < l->ncalls && !t; i++) {
      struct tcc *c = &l->calls[i];
      if(c->index_kind != J_NUM || c->index != index->u.num)
        continue;
      int ids_match = (c->id_kind == J_UNDEF && !id) ||
                      (c->id_kind == J_STR && id && id->type == OC_JSTRING && oc_ctext_eqs(&c->id, id->u.str, id->len));
      int either_missing = !(c->id_kind == J_STR && c->id.len) || !oc_js_truthy(id);
      if(ids_match || either_missing)
        t = c;
    }
  if(!t) {
    if(l->ncalls >= 2 * OC_MAX_TOOL_CALLS)
      return 0;
    struct tcc *grown = oc_array_grow_from(l->calls, &l->acalls, l->ncalls + 1, sizeof(*l->calls), 1);
    if(!grown) {
      oc_cnote_oom();
      return 0;
    }
    l->calls = grown;
    t = &l->calls[l->ncalls++];
    memset(t, 0, sizeof(*t));
    oc_ctext_init(&t->id);
    oc_ctext_init(&t->name);
    oc_buf_init(&t->args, OC_CAP_ARGUMENTS);
    t->index_kind = jkind_of(index);
    t->index = index && index->type == OC_JNUMBER ? index->u.num : 0;
    t->id_kind = jkind_of(id);
    t->name_kind = jkind_of(name);
    t->args_kind = jkind_of(args);
    if(id && id->type == OC_JSTRING)
      oc_ctext_set(&t->id, id->u.str, id->len);
    if(name && name->type == OC_JSTRING)
      oc_ctext_set(&t->name, name->u.str, name->len);
    if(oc_js_truthy(args)) {
      struct oc_buf b;
      oc_buf_init(&b, OC_CAP_ARGUMENTS);
      oc_js_string(&b, args);
      t->args_len += b.len;
      if(oc_cargs_add(&t->args, oc_buf_str(&b), b.len))
        t->args_over = 1;
      oc_cbuf_free(&b);
    }
    return 0;
  }
  /* _mergeDicts(left, item): null on the left takes the value; a value of
   * another type throws; strings: id and name replaced, args joined */
  struct {
    enum jkind *have;
    const struct oc_jv *v;
  } keys[] = { { &t->name_kind, name }, { &t->args_kind, args }, { &t->id_kind, id } };
  for(size_t k = 0; k < OC_ARRAY_LEN(keys); k++) {
    enum jkind nk = jkind_of(keys[k].v);
    if(*keys[k].have == J_UNDEF || *keys[k].have == J_NULL) {
      *keys[k].have = nk;
      if(k == 1 && oc_js_truthy(args) && args->type == OC_JSTRING) {
        t->args_len += args->len;
        if(!t->args_over && oc_cargs_add(&t->args, args->u.str, args->len))
          t->args_over = 1;
      }
      else if(k == 0 && name && name->type == OC_JSTRING)
        oc_ctext_set(&t->name, name->u.str, name->len);
      else if(k == 2 && id && id->type == OC_JSTRING)
        oc_ctext_set(&t->id, id->u.str, id->len);
      continue;
    }
    if(nk == J_UNDEF || nk == J_NULL)
      continue;
    if(nk != *keys[k].have)
      return -1;
    if(nk != J_STR)
      continue;
    if(k == 0)
      oc_ctext_set(&t->name, name->u.str, name->len);
    else if(k == 2)
      oc_ctext_set(&t->id, id->u.str, id->len);
    else {
      t->args_len += args->len;
      if(!t->args_over && oc_cargs_add(&t->args, args->u.str, args->len))
        t->args_over = 1;
    }
  }
  return 0;
}

static void lc_event(void *st, const struct oc_cctx *cx, const struct oc_cevent *ev)
{
  struct lc *l = st;
  if(!cx->stream || oc_cview_raised(&l->view))
    return;
  if(oc_cjs_stream_event(&l->s, ev, &l->view) != 1) {
    if(oc_cview_raised(&l->view)) {
      l->cause = OC_CAUSE_SERVER;
      l->rule = ev->root ? OC_R_STREAM_ERROR_EVENT : OC_R_STREAM_CHUNK_JSON;
      l->have_rule = 1;
    }
    return;
  }
  const struct oc_jv *root = ev->root;
  if(root->type == OC_JNULL) {
    lc_raise(l, &l->view, "TypeError", "Cannot read properties of null (reading 'usage')",
             OC_CAUSE_SERVER, OC_R_STREAM_CHUNK_SCHEMA);
    return;
  }
  if(oc_js_truthy(ev->usage))
    l->usage = 1;
  /* which entry's content this chunk adds, for following the reference */
  const struct oc_centry *e = ev->choices && ev->choices->type == OC_JARRAY && ev->nentries
                                ? &ev->entries[0] : NULL;
  int taken = e && e->v->type == OC_JOBJECT && oc_js_truthy(e->delta);
  int delta_obj = taken && e->delta->type == OC_JOBJECT;
  const struct oc_jv *role = delta_obj ? e->role : NULL;
  const struct oc_jv *content = delta_obj ? e->content : NULL;
  /* "Received non-string content": the chunk is skipped, after its role
   * became the default */
  int skipped = content && content->type != OC_JNULL && content->type != OC_JSTRING;
  if(e) {
    if(!l->following) {
      l->following = 1;
      oc_cfollow_init(&l->follow, cx, e->index_val);
    }
    oc_cfollow_chunk(&l->follow, &l->content, cx, ev, taken && delta_obj && !skipped ? e : NULL);
  }
  if(!taken)
    return;
  int role_given = role && role->type != OC_JNULL;
  enum mclass cls;
  if(role_given)
    cls = class_of(role);
  else if(l->default_role_set)
    cls = l->default_role_kind == J_STR ? M_AI : M_CHAT; /* refined below */
  else
    cls = M_CHAT;
  if(!role_given && l->default_role_set) {
    struct oc_jv dr = { .type = OC_JSTRING, .len = (uint32_t)l->default_role.nhead };
    dr.u.str = l->default_role.head;
    cls = l->default_role_kind == J_STR ? class_of(&dr) : M_CHAT;
  }
  if(role_given) {
    l->default_role_set = 1;
    l->default_role_kind = jkind_of(role);
    if(role->type == OC_JSTRING)
      oc_ctext_set(&l->default_role, role->u.str, role->len);
  }
  if(skipped)
    return;
  long idx = e->int_index ? e->index_val : 0;
  if(!l->have_first) {
    l->have_first = 1;
    l->first_index = idx;
  }
  int changes = (content && content->len) || (e->finish && e->finish->type != OC_JNULL) ||
                (delta_obj && e->tool_calls && e->tool_calls->type == OC_JARRAY && e->tool_calls->len);
  if(changes && idx != l->first_index)
    l->mixed = 1;
  if(l->cls == M_NONE) {
    l->cls = cls;
    if(cls == M_CHAT && role_given) {
      struct oc_buf b;
      oc_buf_init(&b, 4096);
      oc_js_string(&b, role);
      oc_ctext_set(&l->chat_role, oc_buf_str(&b), b.len);
      oc_cbuf_free(&b);
      l->chat_role_set = 1;
    }
  }
  l->any_chunk = 1;
  if(content && content->type == OC_JSTRING)
    oc_cfollow_add(&l->follow, &l->content, content->u.str, content->len);
  if(e->finish && e->finish->type != OC_JNULL) {
    enum jkind fk = jkind_of(e->finish);
    if(l->nfinish && fk != l->finish_kind) {
      lc_raise(l, &l->view, "Error", "field[finish_reason] already exists in the message chunk, but "
               "with a different type.", OC_CAUSE_SERVER, OC_R_STREAM_FINISH_ONCE);
      return;
    }
    l->finish_kind = fk;
    if(fk == J_STR)
      oc_ctext_add(&l->finish, e->finish->u.str, e->finish->len);
    l->nfinish++;
  }
  /* only an AI chunk carries tool_call_chunks, and only an AI message
   * keeps them */
  if(cls == M_AI && l->cls == M_AI && delta_obj && e->tool_calls && e->tool_calls->type == OC_JARRAY)
    for(uint32_t t = 0; t < e->tool_calls->len && t < 2 * OC_MAX_TOOL_CALLS; t++) {
      const struct oc_jv *raw = &e->tool_calls->u.items[t];
      if(raw->type == OC_JNULL) {
        lc_raise(l, &l->view, "TypeError", "Cannot read properties of null (reading 'function')",
                 OC_CAUSE_SERVER, OC_R_STREAM_CHUNK_SCHEMA);
        return;
      }
      if(merge_tcc(l, raw) < 0) {
        lc_raise(l, &l->view, "Error", "field[args] already exists in the message chunk, but with a "
                 "different type.", OC_CAUSE_SERVER, OC_R_TOOL_ARGS_STRING);
        return;
      }
    }
}

static void lc_extra(void *st, const struct oc_cctx *cx, const struct oc_cextra *x)
{
  struct lc *l = st;
  if(cx->stream)
    oc_cjs_stream_extra(&l->s, x, &l->view);
}

static const char *role_of(enum mclass c)
{
  switch(c) {
  case M_AI: return "assistant";
  case M_HUMAN: return "human";
  case M_SYSTEM: return "system";
  case M_TOOL: return "tool";
  case M_FUNCTION: return "function";
  default: return NULL;
  }
}

static int same_index(const struct tcc *a, const struct tcc *b)
{
  return a->index_kind == b->index_kind && (a->index_kind != J_NUM || a->index == b->index);
}

/* The message the driver ends up with: the AIMessageChunk constructor's
 * grouping of the merged tool_call_chunks. */
static void stream_view(struct lc *l, struct oc_cview *got, struct oc_client_verdict *v,
                        const struct oc_cctx *cx)
{
  struct oc_cchoice *ch = oc_cview_choice(got, 0, 1);
  if(!ch)
    return;
  enum mclass cls = l->cls == M_NONE && l->usage ? M_AI : l->cls;
  const char *role = role_of(cls);
  if(role)
    oc_ctext_set(&ch->role, role, strlen(role));
  else if(l->chat_role_set)
    ch->role = l->chat_role;
  if(l->following)
    oc_cfollow_final(&l->follow, &l->content, cx);
  ch->content = l->content;
  if(l->nfinish && l->finish_kind == J_STR)
    ch->finish = l->finish;
  if(cls != M_AI || !l->ncalls) {
    if(l->mixed) {
      v->cause = cx->req->n > 1 ? OC_CAUSE_N : OC_CAUSE_SERVER;
      if(cx->req->n <= 1)
        oc_client_add_rule(v, OC_R_CHAT_CHOICES_COUNT);
    }
    else if(l->nfinish > 1)
      oc_client_add_rule(v, OC_R_STREAM_FINISH_ONCE);
    if(cls != M_AI)
      oc_client_add_rule(v, OC_R_STREAM_ROLE_FIRST);
    return;
  }
  /* groups: by id and index, by id, by index; neither: alone */
  int group[2 * OC_MAX_TOOL_CALLS];
  int ngroups = 0, first[2 * OC_MAX_TOOL_CALLS];
  for(size_t i = 0; i < l->ncalls; i++) {
    const struct tcc *c = &l->calls[i];
    int g = -1;
    int id = c->id_kind == J_STR && c->id.len;
    for(int k = 0; k < ngroups && g < 0; k++) {
      const struct tcc *m = &l->calls[first[k]];
      int id_eq = (m->id_kind == J_STR && c->id_kind == J_STR && oc_ctext_eq(&m->id, &c->id));
      if(id && c->index_kind != J_UNDEF)
        g = id_eq && same_index(c, m) ? k : -1;
      else if(id)
        g = id_eq ? k : -1;
      else if(c->index_kind != J_UNDEF)
        g = same_index(c, m) ? k : -1;
    }
    if(g < 0) {
      g = ngroups;
      first[ngroups++] = (int)i;
    }
    group[i] = g;
  }
  struct oc_buf joined, fixed;
  oc_buf_init(&joined, OC_CAP_ARGUMENTS);
  oc_buf_init(&fixed, OC_CAP_ARGUMENTS);
  int no_id = 0, repaired = 0, split = 0;
  for(int pass = 0; pass < 2; pass++)
    for(int g = 0; g < ngroups; g++) {
      const struct tcc *head = &l->calls[first[g]];
      oc_cbuf_reset(&joined);
      int over = 0;
      for(size_t i = 0; i < l->ncalls; i++)
        if(group[i] == g) {
          over |= l->calls[i].args_over;
          oc_buf_add(&joined, oc_buf_str(&l->calls[i].args), l->calls[i].args.len);
        }
      if(!joined.len)
        oc_buf_adds(&joined, "{}");
      int ok = !over && oc_client_partial_json(oc_buf_str(&joined), joined.len, &fixed) == 0;
      if(ok) {
        struct oc_jdoc d;
        struct oc_jerr err;
        oc_jdoc_init(&d);
        ok = oc_cjdoc_parse(&d, oc_buf_str(&fixed), fixed.len, &err) == OC_OK &&
             d.root->type == OC_JOBJECT;
        oc_jdoc_free(&d);
      }
      int valid = ok && head->id_kind == J_STR && head->id.len;
      if(valid != (pass == 0))
        continue;
      struct oc_ccall *c = oc_cchoice_call(ch, (long)ch->ncalls, 1);
      if(!c)
        continue;
      c->id = head->id;
      if(head->name_kind == J_STR)
        c->name = head->name;
      else
        oc_ctext_set(&c->name, "", 0);
      const struct oc_buf *a = valid ? &fixed : &joined;
      oc_ccall_args_add(c, oc_buf_str(a), a->len);
      if(!valid) {
        c->invalid = 1;
        snprintf(c->error, sizeof(c->error), "Malformed args.");
        if(!(head->id_kind == J_STR && head->id.len))
          no_id = 1;
        if(head->index_kind != J_NUM)
          split = 1;
      }
      else if(fixed.len != joined.len || memcmp(oc_buf_str(&fixed), oc_buf_str(&joined), joined.len))
        repaired = 1;
    }
  oc_cbuf_free(&joined);
  oc_cbuf_free(&fixed);
  if(l->mixed) {
    v->cause = cx->req->n > 1 ? OC_CAUSE_N : OC_CAUSE_SERVER;
    if(cx->req->n <= 1)
      oc_client_add_rule(v, OC_R_CHAT_CHOICES_COUNT);
  }
  else if(split)
    oc_client_add_rule(v, OC_R_TOOL_DELTA_INDEX);
  else if(no_id)
    oc_client_add_rule(v, OC_R_TOOL_DELTA_HEAD);
  else if(repaired) {
    int length = l->finish.set && l->finish.nhead >= 6 && strstr(l->finish.head, "length");
    v->cause = length ? OC_CAUSE_LENGTH : OC_CAUSE_SERVER;
    oc_client_add_rule(v, OC_R_TOOL_ARGS_JSON);
  }
  else if(l->nfinish > 1)
    oc_client_add_rule(v, OC_R_STREAM_FINISH_ONCE);
}

/* JSON.parse(x) when x is not a string: String(x) is parsed. */
static int js_json_parse(const struct oc_jv *v, struct oc_buf *text)
{
  oc_cbuf_reset(text);
  if(v && v->type == OC_JSTRING)
    oc_buf_add(text, v->u.str, v->len);
  else
    oc_js_string(text, v);
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  int ok = oc_cjdoc_parse(&d, oc_buf_str(text), text->len, &err) == OC_OK;
  oc_jdoc_free(&d);
  return ok;
}

static void body_answer(struct lc *l, const struct oc_cctx *cx, const struct oc_cbody *b)
{
  struct oc_cview *v = &l->body;
  int json = strstr(b->media, "application/json") != NULL || oc_endswith(b->media, "+json");
  if(json && !b->root) {
    lc_raise(l, v, "SyntaxError", "the body is not valid JSON (response.json())", OC_CAUSE_SERVER,
             OC_R_JSON_BODY);
    return;
  }
  const struct oc_jv *root = json ? b->root : NULL;
  int choices_array = root && b->choices && b->choices->type == OC_JARRAY;
  if(l->parse_path) {
    /* parseChatCompletion: completion.choices.map(...) */
    if(!choices_array) {
      lc_raise(l, v, "TypeError", "Cannot read properties of undefined (reading 'map')",
               OC_CAUSE_SERVER, root && b->error ? OC_R_ERROR_STATUS : OC_R_CHAT_SCHEMA);
      return;
    }
    for(size_t i = 0; i < b->nentries; i++) {
      const struct oc_centry *e = &b->entries[i];
      if(e->v->type != OC_JOBJECT) {
        lc_raise(l, v, "TypeError", "Cannot read properties of null (reading 'finish_reason')",
                 OC_CAUSE_SERVER, OC_R_CHAT_SCHEMA);
        return;
      }
      if(e->finish && e->finish->type == OC_JSTRING && e->finish->len == 6 &&
         memcmp(e->finish->u.str, "length", 6) == 0) {
        lc_raise(l, v, "LengthFinishReasonError", "Could not parse response content as the length "
                 "limit was reached", OC_CAUSE_LENGTH, OC_R_CHAT_FINISH_REASON);
        return;
      }
      if(e->finish && e->finish->type == OC_JSTRING && e->finish->len == 14 &&
         memcmp(e->finish->u.str, "content_filter", 14) == 0) {
        lc_raise(l, v, "ContentFilterFinishReasonError", "Could not parse response content as the "
                 "request was rejected by the content filter", OC_CAUSE_CONTENT_FILTER,
                 OC_R_CHAT_FINISH_REASON);
        return;
      }
      if(!e->message || e->message->type != OC_JOBJECT) {
        lc_raise(l, v, "TypeError", "Cannot read properties of undefined (reading 'tool_calls')",
                 OC_CAUSE_SERVER, OC_R_CHAT_SCHEMA);
        return;
      }
      if(e->tool_calls && e->tool_calls->type == OC_JARRAY)
        for(uint32_t k = 0; k < e->tool_calls->len; k++) {
          const struct oc_jv *tc = &e->tool_calls->u.items[k];
          const struct oc_jv *type = oc_jv_get(tc, "type");
          if(tc->type != OC_JOBJECT) {
            lc_raise(l, v, "TypeError", "Cannot read properties of null (reading 'type')",
                     OC_CAUSE_SERVER, OC_R_TOOL_CALL_ID);
            return;
          }
          if(!type || type->type != OC_JSTRING || type->len != 8 || memcmp(type->u.str, "function", 8)) {
            lc_raise(l, v, "OpenAIError", "Currently only `function` tool calls are supported",
                     OC_CAUSE_SERVER, OC_R_TOOL_CALL_ID);
            return;
          }
        }
      if(oc_js_truthy(e->content) && !oc_js_truthy(e->refusal)) {
        struct oc_buf t;
        oc_buf_init(&t, OC_CAP_BODY);
        int ok = js_json_parse(e->content, &t);
        oc_cbuf_free(&t);
        if(!ok) {
          lc_raise(l, v, "SyntaxError", "the structured answer is not JSON (JSON.parse)",
                   OC_CAUSE_SERVER, OC_R_SCHEMA_OUTPUT);
          return;
        }
      }
    }
  }
  if(root && b->choices && b->choices->type != OC_JARRAY && b->choices->type != OC_JNULL &&
     b->choices->type != OC_JSTRING) {
    lc_raise(l, v, "TypeError", "data.choices is not iterable", OC_CAUSE_SERVER, OC_R_CHAT_SCHEMA);
    return;
  }
  if(!choices_array || b->nentries == 0) {
    lc_raise(l, v, "TypeError", "Cannot read properties of undefined (reading 'message')",
             OC_CAUSE_SERVER, root && b->error ? OC_R_ERROR_STATUS : OC_R_CHAT_SCHEMA);
    return;
  }
  const struct oc_centry *e = &b->entries[0];
  if(e->v->type == OC_JNULL) {
    lc_raise(l, v, "TypeError", "Cannot read properties of null (reading 'message')", OC_CAUSE_SERVER,
             OC_R_CHAT_SCHEMA);
    return;
  }
  struct oc_cchoice *ch = oc_cview_choice(v, 0, 1);
  if(!ch)
    return;
  oc_ctext_set(&ch->role, "assistant", 9);
  const struct oc_jv *m = e->message;
  const struct oc_jv *content = e->content;
  if(oc_js_truthy(content)) {
    if(content->type == OC_JSTRING)
      oc_ctext_set(&ch->content, content->u.str, content->len);
    else if(content->type == OC_JARRAY) {
      oc_ctext_set(&ch->content, "", 0);
      for(uint32_t i = 0; i < content->len; i++) {
        const struct oc_jv *p = &content->u.items[i];
        const struct oc_jv *text = oc_jv_get(p, "text");
        if(p->type == OC_JSTRING)
          oc_ctext_add(&ch->content, p->u.str, p->len);
        else if(text && text->type == OC_JSTRING)
          oc_ctext_add(&ch->content, text->u.str, text->len);
      }
    }
    else {
      struct oc_buf t;
      oc_buf_init(&t, 4096);
      oc_js_stringify(&t, content);
      oc_ctext_set(&ch->content, oc_buf_str(&t), t.len);
      oc_cbuf_free(&t);
    }
  }
  if(oc_js_truthy(e->finish) && e->finish->type == OC_JSTRING)
    oc_ctext_set(&ch->finish, e->finish->u.str, e->finish->len);
  int assistant = m && m->type == OC_JOBJECT && e->role && e->role->type == OC_JSTRING &&
                  e->role->len == 9 && memcmp(e->role->u.str, "assistant", 9) == 0;
  if(!assistant) {
    if(e->tool_calls && e->tool_calls->type == OC_JARRAY && e->tool_calls->len)
      l->rule = OC_R_CHAT_SCHEMA, l->have_rule = 1, l->cause = OC_CAUSE_SERVER;
    return; /* a ChatMessage turned into an AIMessage: no tool calls */
  }
  if(e->tool_calls && e->tool_calls->type != OC_JARRAY && e->tool_calls->type != OC_JNULL) {
    lc_raise(l, v, "TypeError", "message.tool_calls is not iterable", OC_CAUSE_SERVER, OC_R_CHAT_SCHEMA);
    return;
  }
  if(!e->tool_calls || e->tool_calls->type != OC_JARRAY)
    return;
  struct oc_buf text;
  oc_buf_init(&text, OC_CAP_ARGUMENTS);
  /* parsed calls first (tool_calls), then the invalid ones */
  for(int pass = 0; pass < 2; pass++)
    for(uint32_t k = 0; k < e->tool_calls->len; k++) {
      const struct oc_jv *raw = &e->tool_calls->u.items[k];
      if(raw->type == OC_JNULL) {
        lc_raise(l, v, "TypeError", "Cannot read properties of null (reading 'function')",
                 OC_CAUSE_SERVER, OC_R_CHAT_SCHEMA);
        goto out;
      }
      const struct oc_jv *fn = oc_jv_get(raw, "function");
      if(!fn) {
        /* parseToolCall returns undefined, and reading it throws */
        lc_raise(l, v, "TypeError", "Cannot read properties of undefined (reading 'id')",
                 OC_CAUSE_SERVER, OC_R_CHAT_SCHEMA);
        goto out;
      }
      const struct oc_jv *args = fn->type == OC_JOBJECT ? oc_jv_get(fn, "arguments") : NULL;
      int ok = fn->type == OC_JOBJECT && js_json_parse(args, &text);
      if(ok != (pass == 0))
        continue;
      struct oc_ccall *c = oc_cchoice_call(ch, (long)ch->ncalls, 1);
      if(!c)
        continue;
      const struct oc_jv *id = oc_jv_get(raw, "id");
      const struct oc_jv *name = fn->type == OC_JOBJECT ? oc_jv_get(fn, "name") : NULL;
      if(id && id->type == OC_JSTRING)
        oc_ctext_set(&c->id, id->u.str, id->len);
      if(name && name->type == OC_JSTRING)
        oc_ctext_set(&c->name, name->u.str, name->len);
      if(ok)
        oc_ccall_args_add(c, oc_buf_str(&text), text.len);
      else {
        c->invalid = 1;
        snprintf(c->error, sizeof(c->error), "not valid JSON");
        if(args && args->type == OC_JSTRING)
          oc_ccall_args_add(c, args->u.str, args->len);
      }
    }
  (void)cx;
out:
  oc_cbuf_free(&text);
}

static void lc_body(void *st, const struct oc_cctx *cx, const struct oc_cbody *b)
{
  struct lc *l = st;
  l->have_body = 1;
  if(l->refused)
    return;
  if(cx->status < 200 || cx->status >= 300) {
    oc_cjs_http_error(cx, b, &l->body, l->openai_major);
    return;
  }
  if(cx->stream)
    return;
  body_answer(l, cx, b);
}

static void lc_finish(void *st, const struct oc_cctx *cx, struct oc_cview *got,
                      struct oc_client_verdict *v)
{
  struct lc *l = st;
  if(l->have_body && (oc_cview_raised(&l->body) || !cx->stream))
    oc_cview_move(got, &l->body);
  else if(l->refused)
    oc_cview_move(got, &l->body);
  else if(oc_cview_raised(&l->view))
    oc_cview_move(got, &l->view);
  else
    stream_view(l, got, v, cx);
  if(l->have_rule) {
    v->cause = l->cause;
    oc_client_add_rule(v, l->rule);
  }
}

static void lc_free(void *st)
{
  struct lc *l = st;
  oc_cview_free(&l->view);
  oc_cview_free(&l->body);
  for(size_t i = 0; i < l->ncalls; i++)
    oc_cbuf_free(&l->calls[i].args);
  free(l->calls);
}

const struct oc_cmodel oc_cmodel_langchain = {
  .id = OC_CLIENT_LANGCHAIN,
  .size = sizeof(struct lc),
  .init = lc_init,
  .event = lc_event,
  .extra = lc_extra,
  .body = lc_body,
  .finish = lc_finish,
  .free = lc_free,
};

const struct oc_cmodel oc_cmodel_langchain_0_6 = {
  .id = OC_CLIENT_LANGCHAIN_0_6,
  .size = sizeof(struct lc),
  .init = lc_init_0_6,
  .event = lc_event,
  .extra = lc_extra,
  .body = lc_body,
  .finish = lc_finish,
  .free = lc_free,
};
