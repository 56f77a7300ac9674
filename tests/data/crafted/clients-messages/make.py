#!/usr/bin/env python3
"""make.py — writes the crafted Messages exchanges of this folder (index.json,
NAME.request.json, NAME.response.http): Anthropic's documented event
sequence, or llama-server's, broken in one place each, for the Messages
clients' oracle (tests/node/oracle-messages.mjs) and their C models.
Made up, not recorded.  Run: python3 make.py (from anywhere)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = [{"name": "get_weather", "description": "Weather of a city",
          "input_schema": {"type": "object", "properties": {"location": {"type": "string"}},
                           "required": ["location"]}}]


def request(stream, tools=False, thinking=False):
    r = {"model": "crafted-model", "max_tokens": 256,
         "messages": [{"role": "user", "content": "What is the weather in Paris?"}]}
    if tools:
        r["tools"] = TOOLS
    if thinking:
        r["thinking"] = {"type": "enabled", "budget_tokens": 1024}
    if stream:
        r["stream"] = True
    return r


def ev(data, name=True):
    d = json.dumps(data, separators=(",", ":"))
    return (f"event: {data['type']}\n" if name else "") + f"data: {d}\n\n"


def start(usage=True, id_="msg_crafted"):
    m = {"id": id_, "type": "message", "role": "assistant", "content": [], "model": "crafted-model",
         "stop_reason": None, "stop_sequence": None}
    if usage:
        m["usage"] = {"input_tokens": 12, "output_tokens": 1}
    return {"type": "message_start", "message": m}


def bstart(i, block):
    return {"type": "content_block_start", "index": i, "content_block": block}


def delta(i, d):
    return {"type": "content_block_delta", "index": i, "delta": d}


def text(i, t):
    return delta(i, {"type": "text_delta", "text": t})


def js(i, t):
    return delta(i, {"type": "input_json_delta", "partial_json": t})


def bstop(i):
    return {"type": "content_block_stop", "index": i}


def mdelta(stop, usage=True):
    d = {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}}
    if usage:
        d["usage"] = {"output_tokens": 9}
    return d


STOP = {"type": "message_stop"}
PING = {"type": "ping"}
SSE = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"


def sse(events, name=True):
    return SSE + "".join(ev(e, name) for e in events)


def http(status, reason, body):
    b = json.dumps(body, separators=(",", ":"))
    return f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n\r\n{b}"


TEXT = [start(), PING, bstart(0, {"type": "text", "text": ""}), text(0, "It is sunny"),
        text(0, " in Paris."), bstop(0), mdelta("end_turn"), STOP]
TOOL = [start(), bstart(0, {"type": "text", "text": ""}), text(0, "Let me check."), bstop(0),
        bstart(1, {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}),
        js(1, ""), js(1, "{\"locat"), js(1, "ion\": \"Paris\"}"), bstop(1), mdelta("tool_use"), STOP]

EX = {}
EX["official-text-stream"] = (request(True), sse(TEXT))
EX["official-tool-use-stream"] = (request(True, tools=True), sse(TOOL))
EX["official-thinking-stream"] = (request(True, thinking=True), sse([
    start(), bstart(0, {"type": "thinking", "thinking": ""}),
    delta(0, {"type": "thinking_delta", "thinking": "The user asks"}),
    delta(0, {"type": "thinking_delta", "thinking": " about Paris."}),
    delta(0, {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pk"}),
    bstop(0), bstart(1, {"type": "text", "text": ""}), text(1, "Sunny."), bstop(1),
    mdelta("end_turn"), STOP]))
EX["official-text"] = (request(False), http(200, "OK", {
    "id": "msg_crafted", "type": "message", "role": "assistant", "model": "crafted-model",
    "content": [{"type": "text", "text": "It is sunny in Paris."}], "stop_reason": "end_turn",
    "stop_sequence": None, "usage": {"input_tokens": 12, "output_tokens": 7}}))
EX["official-tool-use"] = (request(False, tools=True), http(200, "OK", {
    "id": "msg_crafted", "type": "message", "role": "assistant", "model": "crafted-model",
    "content": [{"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"location": "Paris"}}],
    "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 12, "output_tokens": 7}}))
# llama-server: message id chatcmpl-, thinking open while the tool starts,
# tool_use without input, empty signature, every stop in one batch
LLAMA = [start(id_="chatcmpl-crafted"), bstart(0, {"type": "thinking", "thinking": ""}),
         delta(0, {"type": "thinking_delta", "thinking": "Weather tool."}),
         bstart(1, {"type": "tool_use", "id": "lUq3aZ", "name": "get_weather"}),
         js(1, "{\"location\":"), js(1, " \"Paris\"}"),
         delta(0, {"type": "signature_delta", "signature": ""}), bstop(0), bstop(1),
         mdelta("tool_use"), STOP]
EX["llama-server-tool-use-stream"] = (request(True, tools=True), sse(LLAMA))
EX["tool-use-no-input-stream"] = (request(True, tools=True), sse([
    start(), bstart(0, {"type": "tool_use", "id": "toolu_01", "name": "get_weather"}), bstop(0),
    mdelta("tool_use"), STOP]))
EX["skipped-index-stream"] = (request(True, tools=True), sse([
    start(), bstart(0, {"type": "text", "text": ""}), text(0, "Checking."), bstop(0),
    bstart(2, {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}),
    js(2, "{\"location\": \"Paris\"}"), bstop(2), mdelta("tool_use"), STOP]))
EX["delta-unstarted-stream"] = (request(True), sse([
    start(), bstart(0, {"type": "text", "text": ""}), text(0, "It is sunny"), text(1, " orphan"),
    bstop(0), mdelta("end_turn"), STOP]))
EX["no-usage-stream"] = (request(True), sse([
    start(usage=False), bstart(0, {"type": "text", "text": ""}), text(0, "It is sunny."), bstop(0),
    mdelta("end_turn", usage=False), STOP]))
EX["no-event-lines-stream"] = (request(True), sse(TEXT, name=False))
EX["truncated-tool-json-stream"] = (request(True, tools=True), sse([
    start(), bstart(0, {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}),
    js(0, "{\"location\": \"Par"), bstop(0), mdelta("tool_use"), STOP]))
EX["no-message-stop-stream"] = (request(True), sse(TEXT[:4]))
EX["openai-error-500"] = (request(False), http(500, "Internal Server Error", {
    "error": {"code": 500, "message": "crafted server failure", "type": "server_error"}}))
EX["openai-error-400-stream"] = (request(True), http(400, "Bad Request", {
    "error": {"code": 400, "message": "the request exceeds the available context size", "type": "invalid_request_error"}}))
EX["anthropic-error-529"] = (request(False), http(529, "Overloaded", {
    "type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
EX["overloaded-event-stream"] = (request(True), sse([
    start(), bstart(0, {"type": "text", "text": ""}), text(0, "It is"),
    {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}]))
# llama-server's stream error: event: error, OpenAI's inner object, no type
EX["openai-error-event-stream"] = (request(True), SSE + ev(start()) + ev(bstart(0, {"type": "text", "text": ""}))
    + "event: error\ndata: " + json.dumps({"code": 500, "message": "crafted stream failure", "type": "server_error"})
    + "\n\n")

EX["delta-before-any-block-stream"] = (request(True), sse([
    start(), text(0, "Hello without a start."), bstop(0), mdelta("end_turn"), STOP]))
EX["tool-not-offered-stream"] = (request(True), sse([
    start(), bstart(0, {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}),
    js(0, "{\"location\": \"Paris\"}"), bstop(0), mdelta("tool_use"), STOP]))

index = {}
for name, (req, resp) in sorted(EX.items()):
    index[name] = {"method": "POST", "path": "/v1/messages", "request_body": True}
    with open(os.path.join(HERE, f"{name}.request.json"), "w") as f:
        json.dump(req, f, indent=1)
        f.write("\n")
    with open(os.path.join(HERE, f"{name}.response.http"), "w", newline="") as f:
        f.write(resp)
with open(os.path.join(HERE, "index.json"), "w") as f:
    json.dump(index, f, indent=1)
    f.write("\n")
