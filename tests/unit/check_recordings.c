/* check_recordings.c — the verdict on every recording in
 * ../shared/recordings/<server>/, written down as data: the multiset of
 * (rule, severity) each one must produce under the server's own profile
 * and under the openai profile, so that any change in a verdict is seen.
 *
 * The expectations were worked out by reading each recording and its
 * folder's README (llama-server's D1-D18, vLLM's V1-V8, Ollama's OL1-OL8,
 * TGI's T1-T7, SGLang's S1-S6, LM Studio's L1-L5, LiteLLM's LL1-LL5), not
 * copied from the program: where the two disagreed the code was fixed
 * (see the commits that touch message.c, response.c and chat.c) or the
 * reason is written beside the row.  Generic rules only: what a suite case
 * adds (HTTP-STATUS for D4's 500, ERROR-STATUS for D1/D2, the template
 * rules, CTX-OVERFLOW-SHAPE) is check_rules.c's and tests/e2e's business.
 *
 * Captures that someone cut (a paste, a search excerpt) are run as
 * partial captures (struct oc_check.partial): their end is no evidence of
 * a missing [DONE] or finish_reason.  Snapshots that store parsed chunks
 * without the [DONE] line (TGI's) and excerpts that start after the first
 * chunk (SGLang's) declare the one rule their form makes fire as an
 * artefact: it must fire exactly once and is then set aside, with the
 * client breaks it alone causes.
 *
 * Each row holds two verdicts.  own/openai are the specification's
 * (--strict): every finding with the severity its profile gives it,
 * CLIENT-BREAKS (one per broken client) included.  fails/clients are the
 * default policy's under the profile a run without --profile picks (the
 * server's own, else openai's): the rules that still fail the case, and
 * the clients whose break fails it; everything else must be a warning or
 * less, so that no case fails on a deviation that breaks no client
 * (verdict.c).  Every rule that still fails must be a contract rule or
 * name a failing client, and the default policy reports exactly the
 * strict findings, no fewer. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "rulesutil.h"

#define CORS "HTTP-CORS-ORIGIN:info "
/* llama-server's non-streamed choice lacks logprobs and its message lacks
 * refusal: required-but-nullable, the profile's call (F20) */
#define LS_CHAT "CHAT-SCHEMA:warning*2 "
#define OA_CHAT "CHAT-SCHEMA:error*2 "
/* D14: no param (nullable-required) and an integer code (a type error,
 * which the llama-server profile downgrades with the whole envelope) */
#define LS_ERR "ERROR-SHAPE:warning*2 "
#define OA_ERR "ERROR-SHAPE:error*2 "

enum capture {
  WHOLE = 0,  /* the response as the server sent it */
  CUT,        /* cut at the end by whoever pasted it: analysed as partial */
};

struct verdict {
  const char *name;
  const char *own;        /* strict, under the server's profile (NULL: it has none of its own) */
  const char *openai;     /* strict, under the openai profile */
  enum capture capture;
  const char *artefact;   /* a rule the capture's form fires once, set aside */
  const char *route;      /* "METHOD PATH" where index.json has none */
  const char *fails;      /* default policy: the rules that fail the case ("A B"; NULL: none) */
  const char *clients;    /* default policy: the clients whose break fails it (NULL: none) */
};

/* ---- llama-server (genuine server output; README D1-D18) ---------------------- */

/* Most streamed recordings end in "length" (max_tokens): openai-python's
 * stream helper raises LengthFinishReasonError on those, as it does on
 * OpenAI's own answers: its limitation, reported as info.  n:2 streams
 * mix their choices in the ai SDK and LangChain: theirs too. */
static const struct verdict llama[] = {
  /* D16: every response carries an empty Access-Control-Allow-Origin */
  { "health", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "v1-models", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },   /* D15: extra models/meta are extensions */
  { "models", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "props", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "slots", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "metrics", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },     /* Prometheus text: no JSON rule applies */
  { "tokenize", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "chat-basic", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "chat-max-tokens-1", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  /* D13: the loaded model answers for any name; no response rule can see it */
  { "chat-model-other-name", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  /* D11: the role chunk's content null is legal (string or null) */
  { "chat-stream", CORS "CLIENT-BREAKS:info", CORS "CLIENT-BREAKS:info", WHOLE, NULL, NULL, NULL, NULL },
  { "chat-stream.wire", CORS "CLIENT-BREAKS:info", CORS "CLIENT-BREAKS:info", WHOLE, NULL, NULL, NULL, NULL },
  /* D18: the usage chunk is right (choices [], after the finish, before [DONE]) */
  { "chat-stream-include-usage", CORS "CLIENT-BREAKS:info", CORS "CLIENT-BREAKS:info",
    WHOLE, NULL, NULL, NULL, NULL },
  /* D10: completion_tokens counts one choice of two; nothing in the body
   * proves it without the model's tokenizer, so no rule fires */
  { "chat-n-2", CORS "CHAT-SCHEMA:warning*4", CORS "CHAT-SCHEMA:error*4", WHOLE, NULL, NULL, NULL, NULL },
  { "chat-n-2-stream", CORS "CLIENT-BREAKS:info*3", CORS "CLIENT-BREAKS:info*3",
    WHOLE, NULL, NULL, NULL, NULL },
  /* D5: tool_choice required answered with text */
  { "tools-required", CORS LS_CHAT "CLIENT-BREAKS:error TOOL-CHOICE-HONOURED:error", CORS OA_CHAT "CLIENT-BREAKS:error TOOL-CHOICE-HONOURED:error",
    WHOLE, NULL, NULL, "TOOL-CHOICE-HONOURED", "ai-sdk" },
  { "tools-required-stream", CORS "CLIENT-BREAKS:error CLIENT-BREAKS:info TOOL-CHOICE-HONOURED:error", CORS "CLIENT-BREAKS:error CLIENT-BREAKS:info TOOL-CHOICE-HONOURED:error",
    WHOLE, NULL, NULL, "TOOL-CHOICE-HONOURED", "ai-sdk" },
  { "tools-auto", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "tools-auto-stream", CORS "CLIENT-BREAKS:info", CORS "CLIENT-BREAKS:info",
    WHOLE, NULL, NULL, NULL, NULL },
  /* D8: content "" beside the call (OpenAI sends null) */
  { "tools-required-steered", CORS LS_CHAT "TOOL-CONTENT-NULL:info", CORS OA_CHAT "TOOL-CONTENT-NULL:info",
    WHOLE, NULL, NULL, NULL, NULL },
  /* the key fixture: by the book (its content stays null: no content key) */
  { "tools-required-steered-stream", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "tools-required-steered-stream.wire", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "tools-auto-steered", CORS LS_CHAT "TOOL-CONTENT-NULL:info", CORS OA_CHAT "TOOL-CONTENT-NULL:info",
    WHOLE, NULL, NULL, NULL, NULL },
  { "tools-auto-steered-stream", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  /* D6 two calls despite parallel_tool_calls false; D7 the second cut at
   * '{"locati' by max_tokens: truncated, a warning */
  { "tools-parallel-false-two-calls",
    CORS LS_CHAT "TOOL-CONTENT-NULL:info TOOL-PARALLEL-FALSE:error TOOL-ARGS-JSON:warning",
    CORS OA_CHAT "TOOL-CONTENT-NULL:info TOOL-PARALLEL-FALSE:error TOOL-ARGS-JSON:warning", WHOLE, NULL, NULL, "TOOL-PARALLEL-FALSE", NULL },
  /* three complete calls cut by max_tokens: "length" is no TOOL-FINISH-REASON */
  { "tools-parallel", CORS LS_CHAT "TOOL-CONTENT-NULL:info", CORS OA_CHAT "TOOL-CONTENT-NULL:info",
    WHOLE, NULL, NULL, NULL, NULL },
  { "tools-parallel-stream", CORS "CLIENT-BREAKS:info", CORS "CLIENT-BREAKS:info",
    WHOLE, NULL, NULL, NULL, NULL },
  { "json-schema", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "json-schema-stream", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  /* D4: a 500 for a valid request (HTTP-STATUS is the case's): the
   * server's parser failed on the model's text, "does not match the
   * expected peg-native format" */
  { "json-object", CORS LS_ERR "CHAT-OUTPUT-PARSE:error", CORS OA_ERR "CHAT-OUTPUT-PARSE:error",
    WHOLE, NULL, NULL, "CHAT-OUTPUT-PARSE", NULL },
  /* D4 streamed: the parser's error as the last event, no finish, no
   * [DONE]: a genuine defect, an error under every profile; not known
   * before generation (content came first), so no STREAM-EARLY-ERROR */
  { "json-object-stream",
    CORS "CHAT-OUTPUT-PARSE:error STREAM-DONE:error STREAM-ERROR-EVENT:error",
    CORS "CHAT-OUTPUT-PARSE:error STREAM-DONE:error STREAM-ERROR-EVENT:error",
    WHOLE, NULL, NULL, "CHAT-OUTPUT-PARSE STREAM-DONE", NULL },
  /* D3: json_object not enforced: prose, which length does not excuse */
  { "json-object-max8", CORS LS_CHAT "JSON-OBJECT-OUTPUT:error CLIENT-BREAKS:info", CORS OA_CHAT "JSON-OBJECT-OUTPUT:error CLIENT-BREAKS:info",
    WHOLE, NULL, NULL, "JSON-OBJECT-OUTPUT", NULL },
  /* D14: the overflow error is plain JSON with 400 even for stream:true */
  { "ctx-overflow", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "ctx-overflow-stream", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  /* D1: 500 for invalid JSON (ERROR-STATUS is the case's) */
  { "bad-invalid-json", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "bad-missing-messages", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "bad-messages-not-array", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  /* D2: an unknown role accepted with 200 (ERROR-STATUS is the case's) */
  { "bad-unknown-role", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "bad-n-3", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "bad-tools-invalid-schema", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "bad-tools-parameters-not-object", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  /* the trailing assistant message as a prefill, the dropped wizard (D2):
   * the suites' template assertions see those, no response rule does */
  { "apply-template", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "apply-template-multiturn", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "apply-template-tool-call", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "apply-template-tool-call-id9", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "apply-template-unknown-role", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  /* D12: the id prefix chatcmpl- is no rule; usage nobody asked for is */
  { "completions-legacy", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "completions-legacy-stream", CORS "USAGE-UNREQUESTED:info", CORS "USAGE-UNREQUESTED:warning",
    WHOLE, NULL, NULL, NULL, NULL },
  /* logprobs objects without refusal (required, nullable) */
  { "logprobs", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "logprobs-stream", CORS "STREAM-CHUNK-SCHEMA:warning*4 CLIENT-BREAKS:info", CORS "STREAM-CHUNK-SCHEMA:error*4 CLIENT-BREAKS:info",
    WHOLE, NULL, NULL, NULL, NULL },
  /* templates/: the same server with other chat templates */
  { "templates/Qwen-Qwen2.5-7B-Instruct/props", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "templates/Qwen-Qwen2.5-7B-Instruct/apply-template", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "templates/Qwen-Qwen2.5-7B-Instruct/apply-template-multiturn", CORS, CORS,
    WHOLE, NULL, NULL, NULL, NULL },
  { "templates/Qwen-Qwen2.5-7B-Instruct/apply-template-tool-call", CORS, CORS,
    WHOLE, NULL, NULL, NULL, NULL },
  { "templates/Qwen-Qwen2.5-7B-Instruct/apply-template-tool-call-id9", CORS, CORS,
    WHOLE, NULL, NULL, NULL, NULL },
  { "templates/meta-llama-Llama-3.1-8B-Instruct/props", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "templates/meta-llama-Llama-3.1-8B-Instruct/apply-template", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "templates/meta-llama-Llama-3.1-8B-Instruct/apply-template-multiturn", CORS, CORS,
    WHOLE, NULL, NULL, NULL, NULL },
  { "templates/meta-llama-Llama-3.1-8B-Instruct/apply-template-tool-call", CORS, CORS,
    WHOLE, NULL, NULL, NULL, NULL },
  { "templates/meta-llama-Llama-3.1-8B-Instruct/apply-template-tool-call-id9", CORS, CORS,
    WHOLE, NULL, NULL, NULL, NULL },
  { "templates/mistralai-Mistral-Nemo-Instruct-2407/props", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  /* the system prompt dropped or moved: template rules, from the suites */
  { "templates/mistralai-Mistral-Nemo-Instruct-2407/apply-template", CORS, CORS,
    WHOLE, NULL, NULL, NULL, NULL },
  { "templates/mistralai-Mistral-Nemo-Instruct-2407/apply-template-multiturn", CORS, CORS,
    WHOLE, NULL, NULL, NULL, NULL },
  /* D9: ids of 9 alphanumerics only: 400 for call_1 */
  { "templates/mistralai-Mistral-Nemo-Instruct-2407/apply-template-tool-call", CORS LS_ERR, CORS OA_ERR,
    WHOLE, NULL, NULL, NULL, NULL },
  { "templates/mistralai-Mistral-Nemo-Instruct-2407/apply-template-tool-call-id9", CORS, CORS,
    WHOLE, NULL, NULL, NULL, NULL },
};

/* ---- OpenAI (verbatim bodies from openai-python and pydantic-ai) -------------------- */

/* The 2024 SDK recordings end with a usage chunk (choices: []) nobody
 * asked for (README): a warning twice over, never a failure. */
#define OA_2024 "USAGE-UNREQUESTED:warning STREAM-EMPTY-CHOICES:warning "

static const struct verdict openai[] = {
  { "chat-basic", NULL, "", WHOLE, NULL, NULL, NULL, NULL },
  { "chat-stream", NULL, OA_2024, WHOLE, NULL, NULL, NULL, NULL },
  { "tools-strict", NULL, "", WHOLE, NULL, NULL, NULL, NULL },
  { "tools-strict-stream", NULL, OA_2024, WHOLE, NULL, NULL, NULL, NULL },
  { "tools-nonstrict-stream", NULL, OA_2024, WHOLE, NULL, NULL, NULL, NULL },
  { "tools-parallel", NULL, "", WHOLE, NULL, NULL, NULL, NULL },
  { "tools-parallel-stream", NULL, OA_2024, WHOLE, NULL, NULL, NULL, NULL },
  /* the ai SDK and LangChain mix n:3's choices, and drop a refusal: their
   * limitation (info), shown on OpenAI's own answers; openai-python's
   * stream helper raises on length, as it does on every server */
  { "n3-json-schema-stream", NULL, OA_2024 "CLIENT-BREAKS:info*2", WHOLE, NULL, NULL, NULL, NULL },
  /* a json_schema answer cut by length is truncated, not wrong */
  { "length-max-tokens-1", NULL, "SCHEMA-OUTPUT:warning CLIENT-BREAKS:info*3",
    WHOLE, NULL, NULL, NULL, NULL },
  { "length-max-tokens-1-stream", NULL, OA_2024 "SCHEMA-OUTPUT:warning CLIENT-BREAKS:info*2",
    WHOLE, NULL, NULL, NULL, NULL },
  { "logprobs-stream", NULL, OA_2024, WHOLE, NULL, NULL, NULL, NULL },
  { "json-object-stream", NULL, OA_2024, WHOLE, NULL, NULL, NULL, NULL },
  /* the refusal streams in delta.refusal: not empty, no schema output due */
  { "refusal-stream", NULL, OA_2024 "CLIENT-BREAKS:info*3", WHOLE, NULL, NULL, NULL, NULL },
  { "tools-stream-include-usage", NULL, "", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-result-stream-include-usage", NULL, "", WHOLE, NULL, NULL, NULL, NULL },
  { "error-400-unsupported-option", NULL, "", WHOLE, NULL, NULL, NULL, NULL },
  { "error-context-length-stream-request", NULL, "", WHOLE, NULL, NULL, NULL, NULL },
};

/* ---- vLLM (V1-V8) ------------------------------------------------------------------- */

static const struct verdict vllm[] = {
  /* V1: message without refusal (nullable: the profile's call) and
   * usage.prompt_tokens_details null, which the spec types as an object
   * (a type error in every profile, docs/schemas.md); V2: tool_calls [] */
  { "chat-image-nonstream-via-aibrix", "CHAT-SCHEMA:warning CHAT-SCHEMA:error TOOL-CALLS-EMPTY:info",
    "CHAT-SCHEMA:error*2 TOOL-CALLS-EMPTY:info", WHOLE, NULL, NULL, NULL, NULL },
  /* V6: the newer envelope with an integer code */
  { "completions-context-overflow-v0.15", "ERROR-SHAPE:warning", "ERROR-SHAPE:error",
    WHOLE, NULL, NULL, NULL, NULL },
  /* V6: the old flat envelope without an "error" object: the ai SDK
   * loses its message (openai 7, under openai-node, LangChain and the
   * Agents SDK, reads a top-level message; openai 6 lost it too) */
  { "error-model-not-found", "CLIENT-BREAKS:error ERROR-SHAPE:warning", "CLIENT-BREAKS:error ERROR-SHAPE:error",
    WHOLE, NULL, NULL, NULL, "ai-sdk" },
  /* cut by the reporter; content deltas without finish_reason (fixed by
   * PR #19662; nullable-required) and with tool_calls [] (V2, judged only
   * on a finished message) */
  { "stream-missing-finish-reason-partial", "STREAM-CHUNK-SCHEMA:warning*2", "STREAM-CHUNK-SCHEMA:error*2",
    CUT, NULL, NULL, NULL, NULL },
  /* V3: a named tool_choice streams no id and no type and repeats the
   * name: the vllm profile knows it (warnings), but openai-node's stream
   * helper throws on the missing type (it invents the missing id) and
   * openai-python's doubles the name, which no profile excuses */
  { "named-tool-choice-stream-partial", "CLIENT-BREAKS:error*3 TOOL-DELTA-HEAD:warning TOOL-NAME-ONCE:warning", "CLIENT-BREAKS:error*3 TOOL-DELTA-HEAD:error TOOL-NAME-ONCE:error",
    CUT, NULL, NULL, NULL, "openai-agents-chat openai-node-stream openai-python-stream" },
  /* V3 (no arguments on the first fragment), V4 (content "" in the finish
   * chunk), V5 (empty model): all legal */
  { "tools-auto-stream-hermes", "", "", WHOLE, NULL, NULL, NULL, NULL },
};

/* ---- Ollama (OL1-OL8) ------------------------------------------------------------------ */

static const struct verdict ollama[] = {
  /* OL1: role on all 7 deltas, which openai-python's stream helper joins
   * ("assistantassistant…"); the pasted capture shows no [DONE] */
  { "chat-stream", "STREAM-ROLE-ONCE:info*6 CLIENT-BREAKS:error", "STREAM-ROLE-ONCE:warning*6 CLIENT-BREAKS:error",
    CUT, NULL, NULL, NULL, "openai-python-stream" },
  /* OL3: each call whole in one chunk (legal); OL1 role repeated (joined
   * by openai-python's stream helper); the created timestamp moves on a
   * second boundary (verbatim) */
  { "tools-parallel-stream", "STREAM-ROLE-ONCE:info*2 STREAM-CREATED-STABLE:warning*2 CLIENT-BREAKS:error", "STREAM-ROLE-ONCE:warning*2 STREAM-CREATED-STABLE:warning*2 CLIENT-BREAKS:error",
    WHOLE, NULL, NULL, NULL, "openai-python-stream" },
  /* OL2/OL5: no logprobs, no refusal; the thinking model's reasoning
   * comes in `reasoning`, which LangChain.js does not read (info) */
  { "json-schema", "CHAT-SCHEMA:warning*2 REASONING-FIELD:info", "CHAT-SCHEMA:error*2 REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  /* OL5: content "" beside the call; index inside a non-stream call is an
   * extension; reasoning in `reasoning` (info) */
  { "tools-cloud-nonstream", "CHAT-SCHEMA:warning*2 REASONING-FIELD:info TOOL-CONTENT-NULL:info",
    "CHAT-SCHEMA:error*2 REASONING-FIELD:info TOOL-CONTENT-NULL:info", WHOLE, NULL, NULL, NULL, NULL },
  /* OL6: the envelope is OpenAI's; a type that does not follow the status is no rule */
  { "error-model-not-found", "", "", WHOLE, NULL, NULL, NULL, NULL },
};

/* ---- TGI (T1-T7; openai profile) --------------------------------------------------------- */

static const struct verdict tgi[] = {
  /* T1: id "" is a string; the message lacks refusal */
  { "chat-basic-length", NULL, "CHAT-SCHEMA:error", WHOLE, NULL, NULL, NULL, NULL },
  { "chat-continue-final-assistant", NULL, "CHAT-SCHEMA:error", WHOLE, NULL, NULL, NULL, NULL },
  /* T5: TGI's own response_format shape (no json_schema.schema): parsed only */
  { "json-schema", NULL, "CHAT-SCHEMA:error", WHOLE, NULL, NULL, NULL, NULL },
  /* T3: role on all 39 deltas (joined by openai-python's stream helper);
   * created moves in 22 of them; the snapshot keeps chunks, not the [DONE]
   * TGI's router sends */
  { "json-schema-stream", NULL, "STREAM-ROLE-ONCE:warning*38 STREAM-CREATED-STABLE:warning*22 CLIENT-BREAKS:error",
    WHOLE, "STREAM-DONE", NULL, NULL, "openai-python-stream" },
  /* T3/T4: 17 chunks each repeating role and id "0", name null after the
   * first (not a string), and no finish_reason at all (T4, not an artefact:
   * the snapshot holds every chunk the client saw); with neither a
   * finish_reason nor [DONE] at the end, the stream also reads as cut.
   * openai-node's stream helper throws on the missing finish_reason (so
   * STREAM-FINISH-ONCE fails the case), openai-python's joins the roles */
  { "tools-named-choice-stream", NULL, "STREAM-CHUNK-SCHEMA:error*16 STREAM-ROLE-ONCE:warning*16 TOOL-NAME-ONCE:error*16 "
    "CLIENT-BREAKS:error*3 STREAM-FINISH-ONCE:error STREAM-TRUNCATED:error", WHOLE, "STREAM-DONE", NULL, "STREAM-FINISH-ONCE STREAM-TRUNCATED", "ai-sdk openai-node-stream openai-python-stream" },
  /* T4: finish_reason stop after a tool call (tool_choice unset: auto) */
  { "tools-nonstream", NULL, "CHAT-SCHEMA:error TOOL-FINISH-REASON:error", WHOLE, NULL, NULL, NULL, NULL },
  /* T6: {"error": "<string>", "error_type": ...}: the ai SDK shows only
   * the status text */
  { "error-422-grammar-and-tools", NULL, "ERROR-SHAPE:error CLIENT-BREAKS:error",
    WHOLE, NULL, NULL, "ERROR-SHAPE", "ai-sdk" },
  { "error-422-context-length", NULL, "ERROR-SHAPE:error CLIENT-BREAKS:error",
    WHOLE, NULL, NULL, "ERROR-SHAPE", "ai-sdk" },
};

/* ---- SGLang (S1-S6; openai profile) ------------------------------------------------------ */

static const struct verdict sglang[] = {
  /* S2: role null and tool_calls null (neither nullable in the spec) on
   * both events; the excerpt starts after the role chunk (S2 says "after
   * the first chunk") and is cut at the end; openai-node's stream helper
   * throwing on the missing role is the excerpt's artefact too */
  { "stream-partial-v0.4.4", NULL, "STREAM-CHUNK-SCHEMA:error*4 STREAM-ROLE-ONCE:warning",
    CUT, "STREAM-ROLE-FIRST", NULL, NULL, NULL },
  /* S5: the flat envelope: the ai SDK loses its message (openai 7 keeps
   * it, see V6) */
  { "error-context-length", NULL, "CLIENT-BREAKS:error ERROR-SHAPE:error",
    WHOLE, NULL, NULL, "ERROR-SHAPE", "ai-sdk" },
};

/* ---- LM Studio (L1-L5; openai profile) ----------------------------------------------------- */

static const struct verdict lmstudio[] = {
  /* L1: an unknown route answered 200 with a string error: no client
   * shows it */
  { "error-unknown-endpoint-200", NULL, "CLIENT-BREAKS:error*5 ERROR-SHAPE:error ERROR-STATUS:error",
    WHOLE, NULL,
    "POST /chat/completions", "ERROR-STATUS", "ai-sdk langchain openai-agents-chat openai-node openai-python" },
  /* L3: a tool-call message without content (and without refusal) */
  { "tools-nonstream-docs", NULL, "CHAT-SCHEMA:error*2", WHOLE, NULL, NULL, NULL, NULL },
};

/* ---- LiteLLM (LL1-LL5; openai profile) ----------------------------------------------------- */

static const struct verdict litellm[] = {
  /* LL1 code "400" is a string (legal); type null is not */
  { "error-400-upstream-invalid-model", NULL, "ERROR-SHAPE:error", WHOLE, NULL, NULL, NULL, NULL },
  /* LL3: message is an object (the ai SDK shows only the status text) */
  { "error-400-invalid-model-message-object", NULL, "ERROR-SHAPE:error CLIENT-BREAKS:error",
    WHOLE, NULL, NULL, "ERROR-SHAPE", "ai-sdk" },
  { "error-400-model-missing", NULL, "ERROR-SHAPE:error", WHOLE, NULL, NULL, NULL, NULL },
};

/* ---- llama-server, live: tests/data/recordings/llama-server-tiny-random (cassettes) --- */

/* The same server, model and flags as the curl captures above, recorded by
 * `oacheck record --jobs 1` with every case of every suite (the shipped
 * default target until the reasoning model's recordings replaced it; its
 * README).  Each row is the curl capture's verdict
 * for the same request where there is one (named after the comment), and
 * worked out the same way for the cases only the live set has. */
static const struct verdict live[] = {
  /* The clients, as on the curl captures: openai-python's stream helper
   * raises on every stream that ends in "length" (its limitation, info);
   * n-2-stream also mixes the two choices in the ai SDK and LangChain
   * (theirs), and this recording's first chunk is choice 1, on which that
   * helper raises IndexError: a break of the server's making (OpenAI's n>1
   * streams start with choice 0), which fails the case. */
  /* the overflow probes and the overflow itself: D14's plain JSON 400 */
  { "context-overflow.overflow", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL }, /* ctx-overflow */
  { "context-overflow.overflow-stream", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "context-overflow.over-by-one", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "context-overflow.over-by-one-stream", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  /* N tokens with max_tokens 1 leave no room: refused like N+1 */
  { "context-overflow.at-limit", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "context-overflow.recovery-overflow", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  /* answered: a plain chat completion (chat-basic) */
  { "context-overflow.under-by-one", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "context-overflow.under-limit", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "context-overflow.recovery", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "errors.invalid-json", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },       /* bad-invalid-json, D1 */
  { "errors.messages-not-array", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "errors.missing-messages", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "errors.n-over-limit", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },       /* bad-n-3 */
  { "errors.tool-parameters-not-object", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "errors.tool-schema-invalid", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "errors.unknown-role", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },     /* D2 */
  /* GET on the chat endpoint: llama-server's own 404 error envelope */
  { "errors.wrong-method", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  /* identification: the same endpoints as apply-template, tokenize, props, v1-models */
  { "identify-apply-template-705fdebd", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-apply-template-82ab7da5", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-apply-template-c061d9d3", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-apply-template-c77c1402", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-apply-template-fac4ef74", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-props-fe993739", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-5a379053", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-65804110", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-87914454", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-8dda12c1", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-f1812aa5", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-v1-models-d2c92acc", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  /* D3, D4 as json-object-max8, json-object, json-object-stream */
  { "json-schema.json-object-short", CORS LS_CHAT "JSON-OBJECT-OUTPUT:error CLIENT-BREAKS:info",
    CORS OA_CHAT "JSON-OBJECT-OUTPUT:error CLIENT-BREAKS:info", WHOLE, NULL, NULL, "JSON-OBJECT-OUTPUT", NULL },
  { "json-schema.json-object", CORS LS_ERR "CHAT-OUTPUT-PARSE:error", CORS OA_ERR "CHAT-OUTPUT-PARSE:error",
    WHOLE, NULL, NULL, "CHAT-OUTPUT-PARSE", NULL },
  { "json-schema.json-object-stream",
    CORS "CHAT-OUTPUT-PARSE:error STREAM-DONE:error STREAM-ERROR-EVENT:error",
    CORS "CHAT-OUTPUT-PARSE:error STREAM-DONE:error STREAM-ERROR-EVENT:error",
    WHOLE, NULL, NULL, "CHAT-OUTPUT-PARSE STREAM-DONE", NULL },
  { "json-schema.json-schema", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  /* the curl capture fitted in one second; this stream crossed a second
   * boundary, and llama-server stamps every chunk with the time it was
   * made: 13 chunks say ...652, the last 22 ...653 */
  { "json-schema.json-schema-stream", CORS "STREAM-CREATED-STABLE:warning*22",
    CORS "STREAM-CREATED-STABLE:warning*22", WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.apply-template", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.apply-template-multiturn", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.apply-template-tool-call", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.apply-template-unknown-role", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.completions-legacy", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },          /* D12 */
  { "llama-server.completions-legacy-stream", CORS "USAGE-UNREQUESTED:info", CORS "USAGE-UNREQUESTED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.health", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.metrics", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.models-alias", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },               /* models */
  { "llama-server.props", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.slots", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.tokenize", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "models.list", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },                              /* v1-models */
  { "plain.chat-basic", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "plain.logprobs", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "plain.max-tokens-1", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "plain.n-2", CORS "CHAT-SCHEMA:warning*4", CORS "CHAT-SCHEMA:error*4", WHOLE, NULL, NULL, NULL, NULL }, /* D10 */
  { "plain.unknown-model", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },     /* D13 */
  { "streaming.include-usage", CORS "CLIENT-BREAKS:info", CORS "CLIENT-BREAKS:info", WHOLE, NULL, NULL, NULL, NULL },                  /* D18 */
  { "streaming.logprobs-stream", CORS "STREAM-CHUNK-SCHEMA:warning*4 CLIENT-BREAKS:info", CORS "STREAM-CHUNK-SCHEMA:error*4 CLIENT-BREAKS:info", WHOLE, NULL, NULL, NULL, NULL },
  { "streaming.max-tokens-1-stream", CORS "CLIENT-BREAKS:info", CORS "CLIENT-BREAKS:info", WHOLE, NULL, NULL, NULL, NULL },
  { "streaming.n-2-stream", CORS "CLIENT-BREAKS:error CLIENT-BREAKS:info*2",
    CORS "CLIENT-BREAKS:error CLIENT-BREAKS:info*2", WHOLE, NULL, NULL, NULL, "openai-python-stream" },
  { "streaming.stream-basic", CORS "CLIENT-BREAKS:info", CORS "CLIENT-BREAKS:info", WHOLE, NULL, NULL, NULL, NULL },                   /* chat-stream */
  { "tool-call.auto", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.auto-stream", CORS "CLIENT-BREAKS:info", CORS "CLIENT-BREAKS:info", WHOLE, NULL, NULL, NULL, NULL },
  /* D5, and the same for a named tool_choice and for two tools */
  { "tool-call.required", CORS LS_CHAT "CLIENT-BREAKS:error TOOL-CHOICE-HONOURED:error", CORS OA_CHAT "CLIENT-BREAKS:error TOOL-CHOICE-HONOURED:error", WHOLE, NULL, NULL, "TOOL-CHOICE-HONOURED", "ai-sdk" },
  { "tool-call.required-stream", CORS "CLIENT-BREAKS:error CLIENT-BREAKS:info TOOL-CHOICE-HONOURED:error", CORS "CLIENT-BREAKS:error CLIENT-BREAKS:info TOOL-CHOICE-HONOURED:error", WHOLE, NULL, NULL, "TOOL-CHOICE-HONOURED", "ai-sdk" },
  { "tool-call.named", CORS LS_CHAT "CLIENT-BREAKS:error TOOL-CHOICE-HONOURED:error", CORS OA_CHAT "CLIENT-BREAKS:error TOOL-CHOICE-HONOURED:error", WHOLE, NULL, NULL, "TOOL-CHOICE-HONOURED", "ai-sdk" },
  { "tool-call.named-stream", CORS "CLIENT-BREAKS:error CLIENT-BREAKS:info TOOL-CHOICE-HONOURED:error", CORS "CLIENT-BREAKS:error CLIENT-BREAKS:info TOOL-CHOICE-HONOURED:error", WHOLE, NULL, NULL, "TOOL-CHOICE-HONOURED", "ai-sdk" },
  { "tool-call.parallel-stream", CORS "CLIENT-BREAKS:error CLIENT-BREAKS:info TOOL-CHOICE-HONOURED:error", CORS "CLIENT-BREAKS:error CLIENT-BREAKS:info TOOL-CHOICE-HONOURED:error", WHOLE, NULL, NULL, "TOOL-CHOICE-HONOURED", "ai-sdk" },
  /* the answer after a tool result: a plain completion */
  { "tool-call.tool-result-turn", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
};

static const struct server {
  const char *dir;
  const char *profile;    /* its own profile, NULL: openai only */
  const struct verdict *v;
  size_t n;
} servers[] = {
  { "llama-server", "llama-server", llama, OC_ARRAY_LEN(llama) },
  { "openai", NULL, openai, OC_ARRAY_LEN(openai) },
  { "vllm", "vllm", vllm, OC_ARRAY_LEN(vllm) },
  { "ollama", "ollama", ollama, OC_ARRAY_LEN(ollama) },
  { "tgi", NULL, tgi, OC_ARRAY_LEN(tgi) },
  { "sglang", NULL, sglang, OC_ARRAY_LEN(sglang) },
  { "lmstudio", NULL, lmstudio, OC_ARRAY_LEN(lmstudio) },
  { "litellm", NULL, litellm, OC_ARRAY_LEN(litellm) },
};

/* ---- checking --------------------------------------------------------------------------- */

/* Remove findings of rule (and the client breaks that rule alone
 * causes) from f. */
static void set_aside(struct oc_findings *f, enum oc_rule_id artefact,
                      const struct oc_client_verdict *v)
{
  unsigned because = 0;
  for(int i = 0; i < OC_CLIENT__COUNT; i++)
    if(oc_client_broken(&v[i]) && v[i].nrules == 1 && v[i].rules[0] == artefact)
      because |= 1u << i;
  size_t k = 0;
  for(size_t i = 0; i < f->count; i++) {
    struct oc_finding *x = &f->items[i];
    if(x->rule == artefact || (x->rule == OC_R_CLIENT_BREAKS && (x->clients & because))) {
      free(x->path);
      free(x->message);
      free(x->expected);
      free(x->actual);
      free(x->excerpt);
      continue;
    }
    f->items[k++] = *x;
  }
  f->count = k;
}

/* One recording under one profile and policy: findings into f. */
static void run_row(const struct server *sv, const struct verdict *v, const struct rt_rec *rec,
                    const char *profile, int strict, struct oc_findings *f, struct oc_buf *errors)
{
  struct oc_client_verdict cv[OC_CLIENT__COUNT];
  rt_strict = strict;
  rt_analyze_v(&rec->x, profile, v->capture == CUT, f, cv);
  rt_strict = 1;
  if(v->artefact) {
    enum oc_rule_id artefact = rt_rule(v->artefact);
    size_t n = oc_findings_total(f, artefact);
    if(n != 1)
      oc_buf_printf(errors, "%s/%s [%s]: the capture's artefact %s fired %zu times, expected once\n",
                    sv->dir, v->name, profile, v->artefact, n);
    set_aside(f, artefact, cv);
  }
}

static void dump(const struct oc_findings *f, struct oc_buf *errors)
{
  for(size_t i = 0; i < f->count; i++)
    oc_buf_printf(errors, "    %s %s: %.200s\n", oc_rule_name(f->items[i].rule),
                  oc_severity_name(f->items[i].severity), f->items[i].message);
}

/* The specification's verdict (--strict) under one profile. */
static void judge(const struct server *sv, const struct verdict *v, const struct rt_rec *rec,
                  const char *profile, const char *expected, struct oc_buf *errors)
{
  struct oc_findings f;
  run_row(sv, v, rec, profile, 1, &f, errors);
  char *got = rt_summary(&f), *want = rt_canonical(expected);
  if(strcmp(got, want) != 0) {
    oc_buf_printf(errors, "%s/%s [%s, strict]:\n  expected: %s\n  got:      %s\n", sv->dir, v->name, profile,
                  *want ? want : "(nothing)", *got ? got : "(nothing)");
    dump(&f, errors);
  }
  free(got);
  free(want);
  oc_findings_free(&f);
}

/* Sorted, space-separated words of s; caller frees. */
static char *words(const char *s)
{
  char *items[64];
  size_t n = 0;
  for(const char *p = s ? s : ""; *p && n < 64;) {
    while(*p == ' ')
      p++;
    size_t len = strcspn(p, " ");
    if(len)
      items[n++] = oc_strndup(p, len);
    p += len;
  }
  char *r = rt_render(items, n);
  for(size_t i = 0; i < n; i++)
    free(items[i]);
  return r;
}

/* The default policy's verdict under the profile a run picks without
 * --profile: what still fails, which clients break, and that nothing
 * reported under --strict is missing. */
static void judge_policy(const struct server *sv, const struct verdict *v, const struct rt_rec *rec,
                         struct oc_buf *errors)
{
  const char *profile = sv->profile ? sv->profile : "openai";
  struct oc_findings f, strict;
  run_row(sv, v, rec, profile, 0, &f, errors);
  run_row(sv, v, rec, profile, 1, &strict, errors);
  struct oc_buf fails, clients;
  oc_buf_init(&fails, 1u << 16);
  oc_buf_init(&clients, 1u << 16);
  for(size_t i = 0; i < f.count; i++) {
    const struct oc_finding *x = &f.items[i];
    if(x->severity != OC_SEV_ERROR)
      continue;
    if(x->rule == OC_R_CLIENT_BREAKS) {
      for(int c = 0; c < OC_CLIENT__COUNT; c++)
        if(x->clients & (1u << c))
          oc_buf_printf(&clients, "%s ", oc_client_name((enum oc_client_id)c));
      continue;
    }
    if(!strstr(oc_buf_str(&fails), oc_rule_name(x->rule)))
      oc_buf_printf(&fails, "%s ", oc_rule_name(x->rule));
    if(!oc_rule_contract(x->rule) && !x->clients)
      oc_buf_printf(errors, "%s/%s [%s]: %s fails the case but is no contract rule and breaks no "
                    "client\n", sv->dir, v->name, profile, oc_rule_name(x->rule));
  }
  char *gf = words(oc_buf_str(&fails)), *wf = words(v->fails);
  char *gc = words(oc_buf_str(&clients)), *wc = words(v->clients);
  if(strcmp(gf, wf) || strcmp(gc, wc)) {
    oc_buf_printf(errors, "%s/%s [%s, default policy]:\n  expected fails: %s; clients: %s\n"
                  "  got fails:      %s; clients: %s\n", sv->dir, v->name, profile,
                  *wf ? wf : "(none)", *wc ? wc : "(none)", *gf ? gf : "(none)", *gc ? gc : "(none)");
    dump(&f, errors);
  }
  /* the same findings, only some of them milder */
  struct oc_findings *sets[2] = { &f, &strict };
  char *rules[2];
  for(int k = 0; k < 2; k++) {
    struct oc_buf b;
    oc_buf_init(&b, 1u << 20);
    for(size_t i = 0; i < sets[k]->count; i++)
      oc_buf_printf(&b, "%s:x ", oc_rule_name(sets[k]->items[i].rule));
    rules[k] = rt_canonical(oc_buf_str(&b));
    oc_buf_free(&b);
  }
  if(strcmp(rules[0], rules[1]))
    oc_buf_printf(errors, "%s/%s [%s]: the default policy reports %s, --strict %s\n", sv->dir, v->name,
                  profile, rules[0], rules[1]);
  free(rules[0]);
  free(rules[1]);
  free(gf);
  free(wf);
  free(gc);
  free(wc);
  oc_buf_free(&fails);
  oc_buf_free(&clients);
  oc_findings_free(&f);
  oc_findings_free(&strict);
}

START_TEST(recordings_get_their_verdicts)
{
  const struct server *sv = &servers[_i];
  char *dir = rt_recordings(sv->dir);
  if(!dir)
    return;
  struct oc_buf errors;
  oc_buf_init(&errors, 1u << 22);
  for(size_t i = 0; i < sv->n; i++) {
    const struct verdict *v = &sv->v[i];
    char method[16] = "", path[128] = "";
    if(v->route)
      sscanf(v->route, "%15s %127s", method, path);
    struct rt_rec rec;
    rt_rec_load(&rec, dir, v->name, v->route ? method : NULL, v->route ? path : NULL);
    if(sv->profile)
      judge(sv, v, &rec, sv->profile, v->own, &errors);
    else
      ck_assert_msg(v->own == NULL, "%s/%s: a verdict for a profile the server lacks", sv->dir, v->name);
    judge(sv, v, &rec, "openai", v->openai, &errors);
    judge_policy(sv, v, &rec, &errors);
    rt_rec_free(&rec);
  }
  if(errors.len)
    fprintf(stderr, "%s", oc_buf_str(&errors));
  ck_assert_msg(errors.len == 0, "%s: verdicts differ from the table (see the log)", sv->dir);
  oc_buf_free(&errors);
  free(dir);
}
END_TEST

static int listed(const struct server *sv, const char *name)
{
  for(size_t i = 0; i < sv->n; i++)
    if(strcmp(sv->v[i].name, name) == 0)
      return 1;
  return 0;
}

/* Every recording of every folder has a verdict here (a new recording
 * fails until someone writes down what it should produce), and every row
 * names a recording that exists. */
START_TEST(every_recording_has_a_verdict)
{
  const struct server *sv = &servers[_i];
  char *dir = rt_recordings(sv->dir);
  if(!dir)
    return;
  char err[512];
  char *idx = oc_path_join(dir, "index.json");
  cJSON *index = oc_json_parse_file(idx, err, sizeof(err));
  ck_assert_msg(index != NULL, "%s", err);
  const cJSON *e;
  size_t missing = 0;
  cJSON_ArrayForEach(e, index)
  {
    if(!listed(sv, e->string)) {
      fprintf(stderr, "%s/%s has no verdict in check_recordings.c\n", sv->dir, e->string);
      missing++;
    }
  }
  /* the raw wire recordings sit beside, outside the index */
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  struct dirent *de;
  while((de = readdir(d)) != NULL) {
    if(!oc_endswith(de->d_name, ".wire.http"))
      continue;
    char *name = oc_strndup(de->d_name, strlen(de->d_name) - 5);
    if(!listed(sv, name)) {
      fprintf(stderr, "%s/%s has no verdict in check_recordings.c\n", sv->dir, name);
      missing++;
    }
    free(name);
  }
  closedir(d);
  ck_assert_msg(missing == 0, "%s: %zu recording(s) without a verdict", sv->dir, missing);
  for(size_t i = 0; i < sv->n; i++) {
    const char *name = sv->v[i].name;
    if(oc_endswith(name, ".wire"))
      continue;
    ck_assert_msg(oc_json_get(index, name) != NULL, "%s/%s is in the table but not in index.json",
                  sv->dir, name);
    if(sv->v[i].artefact)
      ck_assert_msg(oc_rule_find(sv->v[i].artefact) != NULL, "%s: unknown rule %s", name,
                    sv->v[i].artefact);
  }
  cJSON_Delete(index);
  free(idx);
  free(dir);
}
END_TEST

/* What the tables say about the profiles, in one place: the OpenAI
 * recordings pass their profile (warnings only); every llama-server
 * failure under its own profile is a defect its README names (D3-D6, D7's
 * neighbour), never an envelope or an extra. */
START_TEST(openai_recordings_pass_and_llama_fails_only_on_defects)
{
  for(size_t i = 0; i < OC_ARRAY_LEN(openai); i++)
    ck_assert_msg(!strstr(openai[i].openai, ":error"), "openai/%s fails its own profile",
                  openai[i].name);
  static const char *const defects[] = {
    "tools-required", "tools-required-stream", "tools-parallel-false-two-calls",
    "json-object", "json-object-stream", "json-object-max8", /* D4: the parser's 500 (CHAT-OUTPUT-PARSE) */
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(llama); i++) {
    int defect = 0;
    for(size_t k = 0; k < OC_ARRAY_LEN(defects); k++)
      defect |= strcmp(defects[k], llama[i].name) == 0;
    ck_assert_msg(defect == (strstr(llama[i].own, ":error") != NULL),
                  "llama-server/%s: %s under its own profile", llama[i].name,
                  defect ? "a defect that passes" : "an accepted deviation that fails");
  }
}
END_TEST

/* A cassette as the rules see an exchange: its request, status, headers,
 * body and the boundaries of the pieces that arrived. */
struct live_rec {
  struct rt_rec r;        /* judge() reads r.x */
  struct oc_cassette c;
  size_t *ends;
};

static void live_load(struct live_rec *l, const char *dir, const char *name)
{
  memset(l, 0, sizeof(*l));
  char err[700];
  char *file = oc_asprintf("%s/%s%s", dir, name, OC_CASSETTE_EXT);
  ck_assert_msg(oc_cassette_read(file, &l->c, err, sizeof(err)) == OC_OK, "%s", err);
  free(file);
  struct oc_buf h;
  oc_buf_init(&h, 1u << 20);
  for(size_t i = 0; i < l->c.headers.count; i++)
    oc_buf_printf(&h, "%s: %s\n", l->c.headers.items[i].name, l->c.headers.items[i].value);
  l->r.headers_text = oc_buf_take(&h, NULL);
  l->ends = calloc(l->c.npieces + 1, sizeof(*l->ends));
  for(size_t i = 0; i < l->c.npieces; i++)
    l->ends[i] = l->c.pieces[i].end;
  l->r.x.method = l->c.method;
  l->r.x.path = l->c.path;
  l->r.x.request = l->c.req_body;
  l->r.x.status = l->c.status;
  l->r.x.headers = l->r.headers_text;
  l->r.x.body = l->c.body;
  l->r.x.len = l->c.body_len;
  l->r.x.pieces = l->ends;
  l->r.x.npieces = l->c.npieces;
}

static void live_free(struct live_rec *l)
{
  free(l->r.headers_text);
  free(l->ends);
  oc_cassette_free(&l->c);
}

/* ---- llama-server with tiny-reasoner, live: suites/recordings/llama-server ------------ */

/* The default target of `oacheck run` (its README): the same server build
 * as above with a model that really reasons, recorded by `oacheck record
 * --jobs 1` with every case of every shipped suite.  Worked out from the
 * cassettes: the envelope findings are those of the tiny-random set (D14,
 * D16, F20); what differs is the model's, and each group says how. */
/* Every answer that reasons carries it in reasoning_content alone:
 * REASONING-FIELD (info: the OpenAI Agents SDK reads only `reasoning`).
 * Where the case's max_tokens ends inside the think block (the probes of
 * 1 and 8 tokens, plain.logprobs, the JSON case cut short, the budget
 * cases) REASONING-BUDGET says so (a warning: the case's budget, not the
 * server); max_tokens 1 leaves the lone "<think>" in a non-streamed content
 * (REASONING-MARKUP-LEAK, a warning for that case) while the stream parses
 * it away (STREAM-EMPTY, a warning when every choice ended "length"); the
 * null reasoning_content sent back is refused with a 500
 * (REASONING-HISTORY-REFUSED, a contract).  A length stop that left
 * nothing but reasoning_content (which it does not read) makes the Agents
 * SDK raise ModelBehaviorError: its limitation, info. */
static const struct verdict reasoner[] = {
  /* the overflow probes (N_CTX words for overflow: 4096 here) and the
   * history over the window: the plain JSON 400 exceed_context_size_error
   * (D14's envelope: an integer code, no param) */
  { "context-overflow.at-limit", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "context-overflow.over-by-one", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "context-overflow.over-by-one-stream", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "context-overflow.overflow", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "context-overflow.overflow-stream", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  /* answered: plain completions, with their reasoning (REASONING-FIELD;
   * the 1- and 8-token probes stop inside it) */
  { "context-overflow.recovery", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "context-overflow.recovery-overflow", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "context-overflow.under-by-one", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-MARKUP-LEAK:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-MARKUP-LEAK:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "context-overflow.under-limit", "CHAT-SCHEMA:warning*2 CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", "CHAT-SCHEMA:error*2 CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  /* D1 (a 500 for invalid JSON: ERROR-STATUS in the suite run) and the
   * clean 400/404s; unknown-role is D2, answered with 200 */
  { "errors.invalid-json", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "errors.messages-not-array", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "errors.missing-messages", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "errors.n-over-limit", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "errors.tool-parameters-not-object", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "errors.tool-schema-invalid", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "errors.unknown-role", "CHAT-SCHEMA:warning*2 CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", "CHAT-SCHEMA:error*2 CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "errors.wrong-method", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  /* identification: /apply-template, /metrics, /props, /slots, /tokenize,
   * /v1/models (this server has --metrics and --slots) */
  { "identify-apply-template-5b15bfda", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-apply-template-78af44ee", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-apply-template-82ab7da5", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-apply-template-f125127c", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-apply-template-fac4ef74", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-metrics-0a5f553e", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-props-fe993739", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-slots-0c5e42e7", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-13fe563e", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-9b9349cf", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-d4d0cea0", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-d8a22f35", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-f4f8eb1b", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-v1-models-d2c92acc", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  /* json_object and json_schema with room to think: the JSON parses (the
   * tiny-random server's 500 and in-band error, D4, were the parser failing
   * on gibberish).  max_tokens 8 ends in the think block: content "" is no
   * JSON object (a warning: truncated), and the ai SDK's Output.object raises
   * on it, as on OpenAI's (info).  A stream that crosses a second boundary
   * changes created on every chunk from then on */
  { "json-schema.json-object", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "json-schema.json-object-short", "CHAT-SCHEMA:warning*2 CLIENT-BREAKS:info*2 HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", "CHAT-SCHEMA:error*2 CLIENT-BREAKS:info*2 HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "json-schema.json-object-stream", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "json-schema.json-schema", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "json-schema.json-schema-stream", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info STREAM-CREATED-STABLE:warning*28", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info STREAM-CREATED-STABLE:warning*28", WHOLE, NULL, NULL, NULL, NULL },
  /* llama-server's own endpoints */
  { "llama-server.apply-template", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.apply-template-multiturn", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.apply-template-tool-call", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.apply-template-unknown-role", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.completions-legacy", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.completions-legacy-stream", CORS "USAGE-UNREQUESTED:info", CORS "USAGE-UNREQUESTED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.health", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.metrics", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.models-alias", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.props", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.slots", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "llama-server.tokenize", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "models.list", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  /* plain completions; plain.n-2 and streaming.n-2-stream are the 400 of a
   * one-slot server ("Field 'n': Value must be between 1 <= value <= 1") */
  { "plain.chat-basic", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "plain.logprobs", "CHAT-SCHEMA:warning*2 CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", "CHAT-SCHEMA:error*2 CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "plain.max-tokens-1", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-MARKUP-LEAK:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-MARKUP-LEAK:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "plain.n-2", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "plain.unknown-model", "CHAT-SCHEMA:warning*2 CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", "CHAT-SCHEMA:error*2 CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  /* the reasoning suite: reasoning_content beside content, as the model
   * README says; thinking off leaves the key out.  budget-exhausted-stream
   * ends "length": openai-python's stream helper raises (info).  The
   * 400 for enable_thinking "false" and the 500 for reasoning_content null
   * are error bodies in D14's envelope (the 500 fails the suite case);
   * reasoning-budget and tool-call answer with content "" beside tool_calls
   * (D8, info) */
  { "reasoning.answer", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.answer-stream", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.budget-exhausted", "CHAT-SCHEMA:warning*2 CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", "CHAT-SCHEMA:error*2 CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.budget-exhausted-stream", "CLIENT-BREAKS:info*2 HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", "CLIENT-BREAKS:info*2 HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.effort-none", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.enable-thinking-string", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.history-reasoning", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.history-reasoning-content", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.history-reasoning-null", "ERROR-SHAPE:warning*2 HTTP-CORS-ORIGIN:info REASONING-HISTORY-REFUSED:error", "ERROR-SHAPE:error*2 HTTP-CORS-ORIGIN:info REASONING-HISTORY-REFUSED:error", WHOLE, NULL, NULL, "REASONING-HISTORY-REFUSED", NULL },
  { "reasoning.history-tool-call", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.json-schema", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.reasoning-budget", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info TOOL-CONTENT-NULL:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info TOOL-CONTENT-NULL:info", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.thinking-off", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.thinking-off-stream", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.tool-call", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info TOOL-CONTENT-NULL:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info TOOL-CONTENT-NULL:info", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.tool-call-stream", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  /* streams that end "length" (openai-python's helper raises, info);
   * logprobs-stream's logprobs objects lack refusal on every chunk but the
   * first (<think>, which the parser takes away, has none); max-tokens-1-stream
   * has nothing to stream: its one token is <think> (STREAM-EMPTY, which the
   * suite case allows) */
  { "streaming.include-usage", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "streaming.logprobs-stream", "CLIENT-BREAKS:info*2 HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info STREAM-CHUNK-SCHEMA:warning*3", "CLIENT-BREAKS:info*2 HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-FIELD:info STREAM-CHUNK-SCHEMA:error*3", WHOLE, NULL, NULL, NULL, NULL },
  { "streaming.max-tokens-1-stream", "CLIENT-BREAKS:info*2 HTTP-CORS-ORIGIN:info STREAM-EMPTY:warning", "CLIENT-BREAKS:info*2 HTTP-CORS-ORIGIN:info STREAM-EMPTY:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "streaming.n-2-stream", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "streaming.stream-basic", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  /* tool calls after thinking: content "" beside tool_calls (D8, info);
   * streams that cross a second boundary restamp created */
  { "tool-call.auto", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info TOOL-CONTENT-NULL:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info TOOL-CONTENT-NULL:info", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.auto-stream", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.named", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info TOOL-CONTENT-NULL:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info TOOL-CONTENT-NULL:info", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.named-stream", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info STREAM-CREATED-STABLE:warning*18", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info STREAM-CREATED-STABLE:warning*18", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.parallel-stream", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info STREAM-CREATED-STABLE:warning*54", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info STREAM-CREATED-STABLE:warning*54", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.required", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info TOOL-CONTENT-NULL:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info TOOL-CONTENT-NULL:info", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.required-stream", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info STREAM-CREATED-STABLE:warning*24", "HTTP-CORS-ORIGIN:info REASONING-FIELD:info STREAM-CREATED-STABLE:warning*24", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.tool-result-turn", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-FIELD:info", WHOLE, NULL, NULL, NULL, NULL },
};

/* The same model with --reasoning-format none (the reasoning, streaming
 * and tool-call suites: tests/data/recordings/llama-server-reasoning-none,
 * its README). */
static const struct verdict reasoning_none[] = {
  /* identification, as in the default-format set */
  { "identify-apply-template-5b15bfda", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-apply-template-78af44ee", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-apply-template-82ab7da5", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-apply-template-f125127c", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-apply-template-fac4ef74", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-metrics-0a5f553e", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-props-fe993739", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-slots-0c5e42e7", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-13fe563e", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-9b9349cf", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-d4d0cea0", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-d8a22f35", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-tokenize-f4f8eb1b", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  { "identify-v1-models-d2c92acc", CORS, CORS, WHOLE, NULL, NULL, NULL, NULL },
  /* the think block stays in content: REASONING-UNPARSED on every answer
   * (the template's empty <think></think> that thinking off prepends too,
   * which is no reasoning, so the thinking-off cases have no
   * REASONING-CONTROL-IGNORED); the lone "<think>" of max_tokens 1 is
   * REASONING-MARKUP-LEAK (a warning).  The rest as in the default-format
   * set */
  { "reasoning.answer", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.answer-stream", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.budget-exhausted", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.budget-exhausted-stream", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-UNPARSED:warning", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.effort-none", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.enable-thinking-string", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.history-reasoning", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.history-reasoning-content", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.history-reasoning-null", "ERROR-SHAPE:warning*2 HTTP-CORS-ORIGIN:info REASONING-HISTORY-REFUSED:error", "ERROR-SHAPE:error*2 HTTP-CORS-ORIGIN:info REASONING-HISTORY-REFUSED:error", WHOLE, NULL, NULL, "REASONING-HISTORY-REFUSED", NULL },
  { "reasoning.history-tool-call", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.json-schema", CORS LS_CHAT, CORS OA_CHAT, WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.reasoning-budget", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.thinking-off", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.thinking-off-stream", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.tool-call", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "reasoning.tool-call-stream", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  /* streams: max-tokens-1-stream's one token <think> is content here, so
   * the stream is not empty; logprobs on four chunks, all without refusal */
  { "streaming.include-usage", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "streaming.logprobs-stream", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-UNPARSED:warning STREAM-CHUNK-SCHEMA:warning*4", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-BUDGET:warning REASONING-UNPARSED:warning STREAM-CHUNK-SCHEMA:error*4", WHOLE, NULL, NULL, NULL, NULL },
  { "streaming.max-tokens-1-stream", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-MARKUP-LEAK:warning", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-MARKUP-LEAK:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "streaming.n-2-stream", CORS LS_ERR, CORS OA_ERR, WHOLE, NULL, NULL, NULL, NULL },
  { "streaming.stream-basic", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning STREAM-CREATED-STABLE:warning*16", "CLIENT-BREAKS:info HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning STREAM-CREATED-STABLE:warning*16", WHOLE, NULL, NULL, NULL, NULL },
  /* tool calls: parsed into tool_calls with the think block left in
   * content, so no TOOL-CONTENT-NULL */
  { "tool-call.auto", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.auto-stream", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.named", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.named-stream", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.parallel-stream", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.required", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.required-stream", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
  { "tool-call.tool-result-turn", "CHAT-SCHEMA:warning*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", "CHAT-SCHEMA:error*2 HTTP-CORS-ORIGIN:info REASONING-UNPARSED:warning", WHOLE, NULL, NULL, NULL, NULL },
};

static const struct server live_servers[] = {
  { "tests/data/recordings/llama-server-tiny-random", "llama-server", live, OC_ARRAY_LEN(live) },
  { "suites/recordings/llama-server", "llama-server", reasoner, OC_ARRAY_LEN(reasoner) },
  { "tests/data/recordings/llama-server-reasoning-none", "llama-server", reasoning_none,
    OC_ARRAY_LEN(reasoning_none) },
};

/* Every live recording gets its verdict (they are in the source tree: no
 * reference data needed), and every row names one that exists. */
START_TEST(live_recordings_get_their_verdicts)
{
  const struct server *sv = &live_servers[_i];
  char *dir = oc_test_src(sv->dir);
  struct oc_buf errors;
  oc_buf_init(&errors, 1u << 22);
  for(size_t i = 0; i < sv->n; i++) {
    struct live_rec l;
    live_load(&l, dir, sv->v[i].name);
    judge(sv, &sv->v[i], &l.r, "llama-server", sv->v[i].own, &errors);
    judge(sv, &sv->v[i], &l.r, "openai", sv->v[i].openai, &errors);
    judge_policy(sv, &sv->v[i], &l.r, &errors);
    live_free(&l);
  }
  if(errors.len)
    fprintf(stderr, "%s", oc_buf_str(&errors));
  ck_assert_msg(errors.len == 0, "live: verdicts differ from the table (see the log)");
  oc_buf_free(&errors);
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  struct dirent *de;
  size_t files = 0, missing = 0;
  while((de = readdir(d)) != NULL) {
    if(!oc_endswith(de->d_name, OC_CASSETTE_EXT))
      continue;
    files++;
    char *name = oc_strndup(de->d_name, strlen(de->d_name) - strlen(OC_CASSETTE_EXT));
    if(!listed(sv, name)) {
      fprintf(stderr, "%s/%s has no verdict in check_recordings.c\n", sv->dir, name);
      missing++;
    }
    free(name);
  }
  closedir(d);
  ck_assert_msg(missing == 0, "%zu live recording(s) without a verdict", missing);
  ck_assert_uint_eq(files, sv->n);
  free(dir);
}
END_TEST

static Suite *live_suite(void)
{
  Suite *s = suite_create("recordings-live");
  TCase *tc = tcase_create("live");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, live_recordings_get_their_verdicts, 0, (int)OC_ARRAY_LEN(live_servers));
  suite_add_tcase(s, tc);
  return s;
}

static Suite *recordings_suite(void)
{
  Suite *s = suite_create("recordings");
  TCase *tc = tcase_create("verdicts");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, every_recording_has_a_verdict, 0, (int)OC_ARRAY_LEN(servers));
  tcase_add_loop_test(tc, recordings_get_their_verdicts, 0, (int)OC_ARRAY_LEN(servers));
  tcase_add_test(tc, openai_recordings_pass_and_llama_fails_only_on_defects);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  rt_setup();
  /* the shipped live recordings are in the tree: always judged */
  int rc = oc_test_run(live_suite());
  char *dir = rt_recordings("llama-server");
  if(!dir) {
    rt_teardown();
    fprintf(stderr, "skipped: the shared recordings are not available (the live ones were "
                    "judged: %s)\n", rc ? "FAILED" : "ok");
    return rc ? rc : 77;
  }
  free(dir);
  rc |= oc_test_run(recordings_suite());
  rt_teardown();
  return rc;
}
