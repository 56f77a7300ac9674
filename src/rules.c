/* rules.c — the rule catalogue, the profiles and the reporting path every
 * check goes through.  The table is the single source: `oacheck rules`,
 * docs/rules.md and the severity of every finding come from it.  The
 * facts behind each rule (F-numbers, issues, SDK behaviour) are cited in
 * its source field; Fnn refers to the failure-mode catalogue the team's
 * research collected (each with its public issue). */
#include "config.h"
#include "rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define E OC_SEV_ERROR
#define W OC_SEV_WARNING
#define I OC_SEV_INFO

const struct oc_rule oc_rules[] = {
  /* ---- HTTP: status and media type ---------------------------------- */
  { "HTTP-STATUS", "HTTP", "http", E,
    "The response has the HTTP status the case expects (200 for a valid request).",
    "Clients branch on the status first: a 500 for a good request is retried by openai-python "
    "(408/409/429/5xx) and then raised; a 200 for a bad one hides the error.",
    "OpenAI API reference, createChatCompletion responses; F04" },
  { "HTTP-CONTENT-TYPE", "HTTP", "http", E,
    "A non-streamed response is application/json.",
    "SDKs pick their decoder by Content-Type; an SSE or NDJSON body where JSON was asked for "
    "cannot be parsed.",
    "F03: microsoft/foundry-dev-tools#195, decolua/9router#3492, ollama/ollama#13128" },
  { "HTTP-TRANSPORT", "HTTP", "http", E,
    "The exchange completes: the connection is not refused, reset or timed out, and the body "
    "is not cut.",
    "A client sees an exception instead of an answer; a stream cut mid-way loses the rest of "
    "the answer without a clear error.",
    "RFC 9112 (message framing); F12" },
  { "HTTP-CORS-ORIGIN", "HTTP", "http", I,
    "Access-Control-Allow-Origin, when present, is '*' or an origin, never empty.",
    "An empty value makes every browser reject the response to a cross-origin request.",
    "Fetch standard, CORS check; llama-server recordings (D16)" },

  /* ---- JSON bodies ---------------------------------------------------- */
  { "JSON-BODY", "JSON", "http", E,
    "A JSON response body parses as exactly one JSON value.",
    "Every SDK parses the body before anything else; a parse failure surfaces as an opaque "
    "client exception.",
    "RFC 8259; OpenAI API reference" },
  { "JSON-SCHEMA", "JSON", "chunk", E,
    "A JSON body matches the schema of its endpoint (models, legacy completions, embeddings, "
    "llama-server's /health, /props, /slots, /tokenize, /apply-template).",
    "Clients and tools read these bodies by field name; a missing or mistyped field breaks "
    "them the same way a broken chat completion does.",
    "OpenAI OpenAPI; llama.cpp tools/server/README.md" },

  /* ---- SSE framing ---------------------------------------------------- */
  { "SSE-UTF8", "SSE", "sse", E,
    "Every byte of an event stream is UTF-8; no character is split across events.",
    "Clients decode each event as UTF-8: a character cut in half becomes U+FFFD or a JSON "
    "error in the chunk.",
    "WHATWG HTML 9.2.5; F13: ggml-org/llama.cpp PR #28926, mlc-ai/mlc-llm PR #1142" },
  { "SSE-UNKNOWN-FIELD", "SSE", "sse", W,
    "Event-stream lines use only the fields data, event, id and retry (or are comments).",
    "Unknown fields are ignored by every SDK, so anything sent in one (e.g. 'error: {...}') is "
    "silently lost.",
    "WHATWG HTML 9.2.6; F10: coddy-project/coddy-agent PR #106" },
  { "SSE-EVENT-SIZE", "SSE", "sse", E,
    "No single event or line exceeds oacheck's cap (8 MiB of data, 4 MiB per line).",
    "Clients buffer a whole event before parsing it; an unbounded event exhausts their memory.",
    "oacheck's own limit (OC_CAP_SSE_EVENT, OC_CAP_SSE_LINE)" },

  /* ---- streams ---------------------------------------------------------- */
  { "STREAM-CONTENT-TYPE", "STREAM", "stream", E,
    "A response to stream:true is text/event-stream (a charset parameter is allowed).",
    "SDKs only run their SSE decoder on text/event-stream; JSON or NDJSON instead breaks "
    "streaming clients.",
    "OpenAI OpenAPI createChatCompletion text/event-stream (openai-openapi#197); F03" },
  { "STREAM-DONE", "STREAM", "stream", E,
    "A chat stream ends with the event 'data: [DONE]'.",
    "Without it a client cannot tell a complete answer from a dropped connection; SDKs just "
    "stop iterating and lose tool calls, finish_reason and usage silently.",
    "OpenAI streaming guide, stream_options.include_usage; F06: ikawrakow/ik_llama.cpp#467, "
    "mlc-ai/mlc-llm#1300, 2389-research/tracker#544" },
  { "STREAM-AFTER-DONE", "STREAM", "stream", E,
    "Nothing follows 'data: [DONE]'.",
    "SDKs stop reading at [DONE]; anything after it (usage, errors) is never seen.",
    "OpenAI streaming contract; openai-python Stream.__stream__" },
  { "STREAM-CHUNK-JSON", "STREAM", "chunk", E,
    "Every data payload other than [DONE] is one JSON object.",
    "openai-node throws 'Could not parse message into JSON'; openai-python raises "
    "JSONDecodeError; an empty or rewrapped 'data:' line kills the stream.",
    "F11, F08: coddy-project/coddy-agent PR #106, mnfst/llm-gateway#2053" },
  { "STREAM-CHUNK-SCHEMA", "STREAM", "chunk", E,
    "Every chunk matches the chat.completion.chunk schema.",
    "Typed clients (openai-go, pydantic models in strict mode, the Vercel AI SDK) reject a "
    "chunk whose fields have the wrong type or are missing.",
    "OpenAI OpenAPI CreateChatCompletionStreamResponse; F16, F18, F23" },
  { "STREAM-ROLE-FIRST", "STREAM", "stream", E,
    "The first delta of every choice carries role \"assistant\".",
    "openai-node's finaliser throws 'missing role for choice N'; accumulators keyed on the role "
    "crash or mistype the message.",
    "OpenAI streaming examples; F14: langwatch/langwatch#6196, agentgateway PR #3005" },
  { "STREAM-ROLE-ONCE", "STREAM", "stream", W,
    "role appears once per choice and is never null.",
    "The spec's role is a non-nullable enum: strict clients reject null, and openai-python's "
    "helper concatenates a repeated role into 'assistantassistant'.",
    "F15: lemonade-sdk/lemonade#350, sgl-project/sglang#3387, ai-dynamo/dynamo PR #12741" },
  { "STREAM-ID-STABLE", "STREAM", "stream", E,
    "Every chunk of a stream has the same id.",
    "Clients and proxies group chunks by id; a changing id splits one answer into many.",
    "OpenAI OpenAPI ('Each chunk has the same ID'); F19: BerriAI/litellm PR #37792" },
  { "STREAM-MODEL-STABLE", "STREAM", "stream", E,
    "Every chunk of a stream names the same model.",
    "Clients record the model of the first chunk; a change mid-stream means the answer was "
    "stitched together.",
    "F19; llama.cpp server tests (stable id and model)" },
  { "STREAM-CREATED-STABLE", "STREAM", "stream", W,
    "Every chunk of a stream has the same created timestamp.",
    "The spec says each chunk has the same timestamp; clients use it as the answer's time.",
    "OpenAI OpenAPI CreateChatCompletionStreamResponse.created" },
  { "STREAM-FINISH-ONCE", "STREAM", "stream", E,
    "Each choice gets exactly one non-null finish_reason, and no content after it.",
    "openai-node throws 'missing finish_reason for choice N'; agents treat a missing "
    "finish_reason as a broken stream; content after it is dropped by accumulators.",
    "OpenAI streaming contract; F07: anomalyco/opencode#43882" },
  { "STREAM-ERROR-EVENT", "STREAM", "stream", E,
    "A stream carries no in-band error; when one cannot be avoided it is an event "
    "{\"error\": {...}} followed by 'data: [DONE]'.",
    "All three SDKs raise on an event with an error key; without [DONE] after it the client "
    "cannot tell the error from a cut connection.",
    "F12: BerriAI/litellm PR #39748, vLLM test_chat_error.py; openai-python _streaming.py" },
  { "STREAM-EARLY-ERROR", "STREAM", "stream", E,
    "An error known before generation is an HTTP 4xx/5xx JSON response, not an in-band event "
    "of a 200 stream.",
    "Clients check the status before reading the stream: a 200 with an error inside looks like "
    "success until the first chunk, and retries and error handling never run.",
    "F01: ggml-org/llama.cpp#14566 (fixed by PR #16486), sgl-project/sglang#12081, "
    "BerriAI/litellm#6629" },
  { "STREAM-TRUNCATED", "STREAM", "stream", E,
    "The stream is not cut: the connection does not end in the middle of an event, nor before "
    "every choice finished without [DONE].",
    "Every SSE parser discards an unterminated last event, and every SDK ends a stream that "
    "stops before its finish_reason without an error: the client loses the rest of the answer "
    "without being told.",
    "WHATWG HTML 9.2.6 (an incomplete event is discarded); F06 (EOF without finish_reason is "
    "truncation), F12" },
  { "STREAM-EMPTY", "STREAM", "stream", E,
    "A successful stream carries some content, reasoning, refusal or tool call.",
    "A well-formed but empty stream is how some servers report an overflowing prompt: the "
    "client shows an empty answer and no error.",
    "F02: lmstudio-ai/lmstudio-bug-tracker#2339, BerriAI/litellm#32086" },
  { "STREAM-EMPTY-CHOICES", "STREAM", "stream", W,
    "choices is empty only in the final usage chunk requested by stream_options.include_usage.",
    "Client code indexes choices[0] on every chunk and raises IndexError on an empty list.",
    "OpenAI OpenAPI ChatCompletionStreamOptions; F17: TheR1D/shell_gpt#457" },
  { "STREAM-REPLACEMENT-CHAR", "STREAM", "stream", W,
    "The rebuilt content holds no U+FFFD replacement character.",
    "U+FFFD in streamed text is the trace of a multi-byte character split and decoded in "
    "halves on the server.",
    "F13: ggml-org/llama.cpp PR #28926, ardanlabs/kronk PR #275" },

  /* ---- usage -------------------------------------------------------------- */
  { "USAGE-CHUNK", "USAGE", "stream", E,
    "With stream_options.include_usage, exactly one chunk after the last finish_reason and "
    "before [DONE] carries usage with empty choices; every other chunk has usage null or absent.",
    "Clients take usage from the last chunk for billing and budgets; a missing or misplaced "
    "usage chunk means no accounting.",
    "OpenAI OpenAPI ChatCompletionStreamOptions.include_usage; F38: ollama/ollama#4448; F39" },
  { "USAGE-UNREQUESTED", "USAGE", "stream", W,
    "Without stream_options.include_usage, no chunk carries usage.",
    "An unexpected usage chunk (especially one with empty choices) breaks clients that index "
    "choices[0] on every chunk.",
    "F39: ggml-org/llama.cpp#12102, vllm-project/vllm PR #36379" },
  { "CHAT-USAGE", "CHAT", "semantics", E,
    "usage is present with integer prompt_tokens, completion_tokens and total_tokens, and "
    "total = prompt + completion.",
    "Budgets, cost reports and context management read usage; an inconsistent sum corrupts "
    "them quietly.",
    "OpenAI OpenAPI CompletionUsage" },

  /* ---- chat completions ----------------------------------------------------- */
  { "CHAT-SCHEMA", "CHAT", "chunk", E,
    "A chat completion body matches the chat.completion schema.",
    "Typed clients reject missing or mistyped fields; lenient ones hand the mistake to the "
    "application.",
    "OpenAI OpenAPI CreateChatCompletionResponse; F20, F26" },
  { "CHAT-CONTENT-STRING", "CHAT", "semantics", E,
    "content is clean text: no chat-template control tokens such as <|im_end|>, </s> or "
    "<|eot_id|>.",
    "Leaked template tokens end up in the user's answer and in the next turn's prompt, where "
    "they derail the model.",
    "llama-server chat templates; OpenAI ChatCompletionResponseMessage.content" },
  { "CHAT-FINISH-REASON", "CHAT", "semantics", E,
    "Every choice ends with a finish_reason from the spec's list (and from the case's allowed "
    "list, when it gives one).",
    "Agents decide what to do next from finish_reason (call tools, continue, stop).",
    "OpenAI OpenAPI choices[].finish_reason" },
  { "CHAT-SIZE", "CHAT", "semantics", E,
    "A response stays within what any client handles: at most 128 choices, 128 tool calls "
    "per message and 16 MiB of text per message (oacheck reads or keeps no more).",
    "Clients allocate per choice and per call; a response beyond any sane count is a runaway "
    "or hostile server, and reading it whole would let it exhaust the checker too.",
    "oacheck's own limits (OC_MAX_CHOICES, OC_MAX_TOOL_CALLS, OC_CAP_CONTENT)" },
  { "CHAT-CHOICES-COUNT", "CHAT", "semantics", E,
    "The response has n choices with indexes 0..n-1 when n was requested.",
    "Clients that ask for n candidates index them; fewer or duplicated indexes lose answers.",
    "OpenAI OpenAPI CreateChatCompletionRequest.n" },

  /* ---- tool calls ------------------------------------------------------------ */
  { "TOOL-DELTA-INDEX", "TOOL", "tools", E,
    "Every tool-call fragment in a stream has an integer index.",
    "openai-python's stream helper raises 'Expected list delta entry to have an `index` key'; "
    "the Vercel AI SDK fails type validation.",
    "OpenAI ChatCompletionMessageToolCallChunk (index required); F23: chenyme/grok2api#239, "
    "openai/openai-python#2806" },
  { "TOOL-DELTA-HEAD", "TOOL", "tools", E,
    "The first fragment of each tool call carries a non-empty id, type \"function\" and the "
    "name; later fragments do not change them.",
    "openai-node's finaliser throws 'missing choices[i].tool_calls[j].id'; without an id the "
    "tool result cannot be sent back.",
    "OpenAI streaming tool-call contract; F25: vllm-project/vllm#18412, BerriAI/litellm#11262, "
    "lmstudio-bug-tracker#830" },
  { "TOOL-NAME-ONCE", "TOOL", "tools", E,
    "A tool call's name (and id) is sent once, on its first fragment.",
    "openai-python's stream helper concatenates repeated strings: a name resent on every "
    "fragment becomes 'get_weatherget_weather'.",
    "F28: NousResearch/hermes-agent#8259, AstrBotDevs/AstrBot PR #7735; openai-python "
    "lib/streaming/_deltas.py" },
  { "TOOL-ID-INDEX", "TOOL", "tools", E,
    "Distinct tool calls use distinct indexes.",
    "Parallel calls sharing index 0 are merged by every client into one call with "
    "concatenated arguments ('{...}{...}').",
    "F24: BerriAI/litellm PR #37792" },
  { "TOOL-ARGS-STRING", "TOOL", "tools", E,
    "function.arguments is a string, never an object.",
    "The spec types arguments as a string holding JSON; clients call json.loads/JSON.parse on "
    "it and echo it back, and an object breaks both.",
    "OpenAI ChatCompletionMessageToolCall; F27: ggml-org/llama.cpp#20198, BerriAI/litellm PR "
    "#37792" },
  { "TOOL-ARGS-JSON", "TOOL", "tools", E,
    "A tool call's (concatenated) arguments parse as one JSON object that matches the tool's "
    "parameters schema.",
    "Clients json.loads the arguments and pass them to the function; broken JSON or a missing "
    "required parameter fails there.",
    "F29: vllm-project/vllm#9693, #28806; llama-server recordings (D7)" },
  { "TOOL-CALL-ID", "TOOL", "tools", E,
    "Every tool call in a message has a non-empty id and type \"function\".",
    "The id is echoed back as tool_call_id of the tool result; an empty id makes the next "
    "request fail validation.",
    "OpenAI ChatCompletionMessageToolCall; F26; lmstudio-ai/lmstudio-bug-tracker#830" },
  { "TOOL-FINISH-REASON", "TOOL", "tools", E,
    "A message with tool calls ends with finish_reason \"tool_calls\" when tool_choice was "
    "auto or required (OpenAI itself answers \"stop\" for a named tool_choice: a warning there).",
    "Agents key on finish_reason to run tools; 'stop' after tool calls makes them show the "
    "calls as the answer.",
    "F30: openvinotoolkit/model_server#3927, vllm-project/vllm PR #25054" },
  { "TOOL-CHOICE-HONOURED", "TOOL", "tools", E,
    "With tool_choice \"required\" or a named function, the answer contains a tool call "
    "(the named one).",
    "A client that forces a tool call relies on getting one; text instead means the request's "
    "tools were silently ignored.",
    "OpenAI CreateChatCompletionRequest.tool_choice; F21, F22; llama-server recordings (D5)" },
  { "TOOL-PARALLEL-FALSE", "TOOL", "tools", E,
    "With parallel_tool_calls false, a message has at most one tool call.",
    "Clients that disable parallel calls handle exactly one call per turn.",
    "OpenAI CreateChatCompletionRequest.parallel_tool_calls; llama-server recordings (D6)" },
  { "TOOL-TEXT-LEAK", "TOOL", "tools", E,
    "When tools were offered, content holds no tool-call markup (<tool_call>, [TOOL_CALLS], "
    "<|python_tag|>, {\"name\": …, \"arguments\": …}).",
    "The call arrives as text: the client never runs the tool and shows raw markup to the user.",
    "F21: ollama/ollama#7825, BerriAI/litellm#12481, sgl-project/sglang#3387" },
  { "TOOL-CALLS-EMPTY", "TOOL", "tools", I,
    "tool_calls is absent rather than an empty array when there is no call.",
    "Harmless to the SDKs, but code that tests 'if tool_calls is not None' treats the empty "
    "array as a tool turn.",
    "vLLM recordings (V2)" },
  { "TOOL-CONTENT-NULL", "TOOL", "tools", I,
    "content is null (not \"\") beside tool calls.",
    "OpenAI sends null; code that checks 'content is None' to detect a pure tool turn sees a "
    "text turn instead.",
    "OpenAI recordings (tools-strict); llama-server recordings (D8)" },

  /* ---- structured output --------------------------------------------------------- */
  { "SCHEMA-OUTPUT", "SCHEMA", "semantics", E,
    "With response_format json_schema, content parses as JSON and validates against the "
    "requested schema (a warning when finish_reason length cut the JSON short).",
    "Structured-output clients parse content straight into typed objects; prose or a schema "
    "violation fails there.",
    "OpenAI ResponseFormatJsonSchema; F32: ggml-org/llama.cpp#24097, ollama/ollama#10001" },
  { "JSON-OBJECT-OUTPUT", "JSON", "semantics", E,
    "With response_format json_object, content parses as a JSON object (a warning when "
    "finish_reason length cut the JSON short).",
    "JSON mode exists so that clients can json.loads the answer; plain text means the mode "
    "was ignored.",
    "OpenAI ResponseFormatJsonObject; F32: ggml-org/llama.cpp#24096; llama-server recordings (D3)" },

  /* ---- errors ---------------------------------------------------------------------- */
  { "ERROR-SHAPE", "ERROR", "http", E,
    "A 4xx/5xx body is an OpenAI error object {\"error\": {message, type, param, code}}.",
    "openai-node reads only body.error ('400 status code (no body)' otherwise); clients "
    "string-match message and code to decide what to do.",
    "OpenAI ErrorResponse; F35: openai/openai-node#1734, BerriAI/litellm#4970" },
  { "ERROR-STATUS", "ERROR", "http", E,
    "A malformed or impossible request gets a 4xx, not a 200 and not a 5xx.",
    "A 5xx makes SDKs retry a hopeless request; a 200 accepts input that was silently "
    "dropped or misread.",
    "F04, F05: ggml-org/llama.cpp#19774, #10920; llama-server recordings (D1, D2); an error "
    "body under HTTP 200: LM Studio recordings (L1)" },

  /* ---- context window ------------------------------------------------------------------- */
  { "CTX-OVERFLOW-STATUS", "CTX", "semantics", E,
    "A prompt over the context window gets a 4xx JSON error before any stream byte.",
    "Clients recover from overflow by trimming history, which they can only do when the "
    "error is recognisable up front.",
    "F01, F36, F37: ggml-org/llama.cpp#14566, #19774, #17284" },
  { "CTX-OVERFLOW-SHAPE", "CTX", "semantics", E,
    "The overflow error has the profile's signature (OpenAI: invalid_request_error with code "
    "context_length_exceeded; llama-server: exceed_context_size_error with n_prompt_tokens "
    "and n_ctx).",
    "Agents detect overflow by matching type, code or message; an unknown signature is "
    "treated as a fatal error instead of a trim-and-retry.",
    "F36: janhq/jan PR #8655; llama.cpp server-common.cpp (PR #15780)" },
  { "CTX-UNDER-LIMIT", "CTX", "semantics", E,
    "A prompt just under the context window is answered.",
    "Clients size prompts to the advertised window; failing below it means the advertised "
    "limit is wrong (per-slot context on llama-server).",
    "F37: earendil-works/pi#6751" },
  { "CTX-RECOVERY", "CTX", "semantics", E,
    "After an overflow, the same conversation with the oldest turns dropped (system prompt and "
    "recent turns kept) is answered.",
    "This is the recovery the llama.cpp maintainers recommend to clients; if it fails, "
    "clients have no way forward.",
    "ggml-org/llama.cpp#17284" },

  /* ---- models ------------------------------------------------------------------------- */
  { "MODELS-LIST", "MODELS", "semantics", E,
    "GET /v1/models returns {object: \"list\", data: [...]} with at least one model id.",
    "Clients and UIs discover the model name there; oacheck uses the first id as ${MODEL}.",
    "OpenAI ListModelsResponse" },

  /* ---- chat templates --------------------------------------------------------------- */
  { "TEMPLATE-SYSTEM-KEPT", "TEMPLATE", "semantics", E,
    "The rendered prompt contains the system message.",
    "A template that drops the system prompt changes the model's behaviour without any error.",
    "llama-server recordings (Mistral Nemo template drops or moves the system prompt)" },
  { "TEMPLATE-UNKNOWN-ROLE", "TEMPLATE", "semantics", W,
    "A message with an unknown role is rejected, not silently dropped from the prompt.",
    "A dropped message means the model never saw it while the client believes it did.",
    "llama-server recordings (D2: role 'wizard' dropped)" },

  { "TEMPLATE-SYSTEM-MOVED", "TEMPLATE", "semantics", W,
    "The system prompt stays ahead of the conversation, not moved into a later turn.",
    "A system prompt moved into the last user turn changes its weight and position; the model "
    "behaves differently from what the client asked for.",
    "llama-server recordings (Mistral Nemo template moves the system prompt to the last user turn)" },
  { "TEMPLATE-TOOL-ID", "TEMPLATE", "semantics", E,
    "The template renders a tool-call conversation with the ids clients send (OpenAI's "
    "call_… form included).",
    "The next request after a tool call carries the call's id; a template that refuses it "
    "makes every tool round trip fail with a 400.",
    "llama-server recordings (Mistral Nemo: \"Tool call IDs should be alphanumeric strings with "
    "length 9\"); lmstudio-ai/lmstudio-bug-tracker#830" },
  { "TEMPLATE-RENDER", "TEMPLATE", "semantics", E,
    "A well-formed conversation renders, with every user message in the prompt.",
    "A render failure is a request failure; a dropped user message is an answer to a question "
    "the model never saw.",
    "llama-server /apply-template" },
  { "TEMPLATE-SERVER-DATE", "TEMPLATE", "semantics", I,
    "The rendered prompt does not depend on the server's clock.",
    "A template that stamps today's date renders the same conversation differently every day: "
    "pinned evaluations drift and the prompt cache misses.",
    "llama-server recordings (the Llama 3.1 template's 'Today Date:')" },

  /* ---- pinned deployments --------------------------------------------------------------- */
  { "PIN-MODEL", "PIN", "semantics", E,
    "The target serves the model (id, list, file) that was pinned.",
    "Automation validated against one model silently runs on another.",
    "oacheck pin" },
  { "PIN-TEMPLATE", "PIN", "semantics", E,
    "The target's chat template is the one that was pinned (SHA-256).",
    "A changed template changes every prompt the model sees, and with it tool calls and output "
    "formats.",
    "oacheck pin; llama-server /props chat_template" },
  { "PIN-CONTEXT", "PIN", "semantics", E,
    "The context per request and the number of slots are as pinned.",
    "Clients size prompts and history to the window; a smaller one turns working requests "
    "into overflows.",
    "oacheck pin; llama-server /props (n_ctx per slot, total_slots)" },
  { "PIN-BUILD", "PIN", "semantics", W,
    "The server build is the one that was pinned.",
    "A new build may change parsing, templates and defaults; worth knowing before the "
    "failures say so.",
    "oacheck pin; llama-server /props build_info" },

  /* ---- case expectations -------------------------------------------------------------- */
  { "CASE-ASSERT", "CASE", "case", E,
    "A value the case asserts (JSON pointer with equals, regex, type, contains or schema) "
    "holds.",
    "The suite author's own contract for this case.",
    "the suite file" },
  { "CASE-TIMING", "CASE", "case", E,
    "The case's timing budget (ttft_ms, total_ms) is met.",
    "Interactive clients time out; a budget documents what users will tolerate.",
    "the suite file" },

  /* ---- client emulation ------------------------------------------------------------- */
  { "CLIENT-PY-INDEX", "CLIENT", "client", E,
    "openai-python's stream helper can accumulate every tool-call fragment (each has an "
    "integer index).",
    "openai-python would raise RuntimeError/TypeError in accumulate_delta and abort the stream.",
    "openai-python lib/streaming/_deltas.py; openai/openai-python#2806" },
  { "CLIENT-PY-CONCAT", "CLIENT", "client", E,
    "openai-python's stream helper rebuilds the same id, name and role as the stream means.",
    "openai-python concatenates every repeated string: it would build "
    "'get_weatherget_weather' or a doubled id.",
    "openai-python lib/streaming/_deltas.py; F28" },
  { "CLIENT-PY-DROPPED-CHUNK", "CLIENT", "client", E,
    "openai-python's stream helper keeps every chunk (object is \"chat.completion.chunk\").",
    "openai-python's helper silently skips chunks with another object value, losing their "
    "content.",
    "openai-python _completions.py _is_valid_chat_completion_chunk_weak; F18" },
  { "CLIENT-PY-ERROR", "CLIENT", "client", I,
    "openai-python reads the stream without raising.",
    "openai-python raises APIError on any event whose JSON has an 'error' key.",
    "openai-python _streaming.py" },
  { "CLIENT-PY-EMPTY-EVENT", "CLIENT", "client", W,
    "openai-python's SSE decoder never yields an empty event.",
    "After an id: field, a comment followed by a blank line makes openai-python dispatch an "
    "event with empty data and fail with JSONDecodeError.",
    "F09: openai/openai-python#2722" },
  { "CLIENT-NODE-JSON", "CLIENT", "client", E,
    "openai-node can parse every event.",
    "openai-node throws 'Could not parse message into JSON' (v5) / 'malformed server-sent "
    "event JSON' on the first non-JSON data line.",
    "openai-node src/core/streaming.ts" },
  { "CLIENT-NODE-FINALIZE", "CLIENT", "client", E,
    "openai-node's ChatCompletionStream finaliser accepts the stream.",
    "openai-node throws on a missing finish_reason, role, tool-call id, type, name or "
    "arguments when the stream ends.",
    "openai-node src/lib/ChatCompletionStream.ts finalizeChatCompletion" },
  { "CLIENT-NODE-NAME", "CLIENT", "client", W,
    "openai-node rebuilds the full tool name (the name is not fragmented).",
    "openai-node assigns id, type and name instead of appending: a name split across "
    "fragments ends up as its last piece.",
    "openai-node ChatCompletionStream; continuedev/continue PR #5849" },
  { NULL, NULL, NULL, I, NULL, NULL, NULL },
};

#undef E
#undef W
#undef I

size_t oc_rules_count(void)
{
  size_t n = 0;
  while(oc_rules[n].id)
    n++;
  return n;
}

const struct oc_rule *oc_rule_find(const char *id)
{
  for(const struct oc_rule *r = oc_rules; r->id; r++)
    if(strcmp(r->id, id) == 0)
      return r;
  return NULL;
}

/* ---- profiles ------------------------------------------------------------ */

/* What llama-server does by design, per its recordings' README (Dn) and
 * source: an error envelope with an integer code and no param, its own
 * context-overflow type, content "" beside tool calls. */
static const struct oc_profile_override llama_server_overrides[] = {
  { "ERROR-SHAPE", OC_SEV_WARNING, "llama-server's error envelope has an integer code and no param (D14)" },
  { "USAGE-UNREQUESTED", OC_SEV_INFO, "llama-server's legacy completions stream always ends with usage (D12)" },
  { "HTTP-CORS-ORIGIN", OC_SEV_INFO, "llama-server sends an empty Access-Control-Allow-Origin (D16)" },
  { NULL, OC_SEV_INFO, NULL },
};

/* vLLM's streams per its recordings (V1-V6). */
static const struct oc_profile_override vllm_overrides[] = {
  { "ERROR-SHAPE", OC_SEV_WARNING, "vLLM's errors use an exception class as type and an integer code (V6)" },
  { "TOOL-NAME-ONCE", OC_SEV_WARNING, "vLLM repeats the name for a named tool_choice (V3)" },
  { "TOOL-DELTA-HEAD", OC_SEV_WARNING, "vLLM sends no id for a named tool_choice (V3)" },
  { "CLIENT-PY-CONCAT", OC_SEV_WARNING, "vLLM repeats the name for a named tool_choice (V3)" },
  { NULL, OC_SEV_INFO, NULL },
};

/* Ollama's OpenAI layer per its recordings (OL1-OL8). */
static const struct oc_profile_override ollama_overrides[] = {
  { "STREAM-ROLE-ONCE", OC_SEV_INFO, "Ollama repeats role on every delta (OL1)" },
  { "CLIENT-PY-CONCAT", OC_SEV_WARNING, "Ollama repeats role on every delta (OL1)" },
  { "ERROR-SHAPE", OC_SEV_WARNING, "Ollama's error type does not follow the status (OL6)" },
  { NULL, OC_SEV_INFO, NULL },
};

static const struct oc_profile_override no_overrides[] = {
  { NULL, OC_SEV_INFO, NULL },
};

const struct oc_profile oc_profiles[] = {
  { "openai", "the OpenAI API as specified, strictly", OC_SEV_ERROR, no_overrides },
  { "llama-server", "llama.cpp's llama-server: its documented envelope and extras accepted",
    OC_SEV_WARNING, llama_server_overrides },
  { "vllm", "vLLM's OpenAI-compatible server", OC_SEV_WARNING, vllm_overrides },
  { "ollama", "Ollama's /v1 OpenAI compatibility layer", OC_SEV_WARNING, ollama_overrides },
  { NULL, NULL, OC_SEV_ERROR, NULL },
};

const struct oc_profile *oc_profile_find(const char *name)
{
  for(const struct oc_profile *p = oc_profiles; p->name; p++)
    if(strcmp(p->name, name) == 0)
      return p;
  return NULL;
}

const struct oc_profile *oc_profile_default(void)
{
  return &oc_profiles[0];
}

/* ---- reporting ----------------------------------------------------------- */

void oc_check_init(struct oc_check *c, struct oc_findings *out, const struct oc_profile *profile)
{
  memset(c, 0, sizeof(*c));
  c->out = out;
  c->profile = profile ? profile : oc_profile_default();
}

enum oc_severity oc_check_severity(const struct oc_check *c, const char *id)
{
  const struct oc_rule *r = oc_rule_find(id);
  enum oc_severity sev = r ? r->severity : OC_SEV_ERROR;
  if(c->profile && c->profile->overrides)
    for(const struct oc_profile_override *o = c->profile->overrides; o->rule; o++)
      if(strcmp(o->rule, id) == 0)
        sev = o->severity;
  return sev;
}

int oc_check_allowed(const struct oc_check *c, const char *id)
{
  for(size_t i = 0; i < c->nallow; i++) {
    const char *a = c->allow[i];
    size_t n = strlen(a);
    if(strcmp(a, id) == 0)
      return 1;
    /* "TOOL-*" allows a whole family */
    if(n >= 2 && a[n - 1] == '*' && strncmp(a, id, n - 1) == 0)
      return 1;
  }
  return 0;
}

void oc_check_emit(struct oc_check *c, const char *id, int sev, long chunk, int64_t byte,
                   const char *path, const char *expected, const char *actual,
                   const char *excerpt, const char *fmt, ...)
{
  const struct oc_rule *r = oc_rule_find(id);
  /* An unknown ID is a programming error; report it under its own name
   * rather than lose the finding. */
  const char *rid = r ? r->id : id;
  enum oc_severity s = sev >= 0 ? (enum oc_severity)sev : oc_check_severity(c, rid);
  int allowed = 0;
  if(oc_check_allowed(c, rid) && s > OC_SEV_WARNING) {
    s = OC_SEV_WARNING;
    allowed = 1;
  }
  char msg[OC_CAP_MESSAGE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if(oc_findings_add(c->out, rid, s, allowed, chunk, byte, path, msg, expected, actual, excerpt))
    c->oom = 1;
}
