#!/usr/bin/env python3
"""make.py: writes the crafted Responses API exchanges of this folder.

Each is OpenAI's event sequence (sequence_number, output_index,
content_index, a full Response in response.created) broken in exactly one
place, or the shape a server was reported to send.  The client oracle
(tests/e2e/client-oracle-responses.sh) replays them to the real client
libraries; oracle-expect.json says what each library does with each.
Run from anywhere: python3 make.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RESP_ID = "resp_crafted0001"
MSG_ID = "msg_crafted0001"
FC_ID = "fc_crafted0001"
CALL_ID = "call_crafted0001"
RS_ID = "rs_crafted0001"
CREATED = 1767225600
MODEL = "crafted-model"
USAGE = {"input_tokens": 20, "input_tokens_details": {"cached_tokens": 0},
         "output_tokens": 8, "output_tokens_details": {"reasoning_tokens": 0},
         "total_tokens": 28}
WEATHER_TOOL = {"type": "function", "name": "get_weather",
                "description": "Get the current weather for a location.",
                "parameters": {"type": "object",
                               "properties": {"location": {"type": "string"}},
                               "required": ["location"]}}


def response(status, output, **extra):
    r = {"id": RESP_ID, "object": "response", "created_at": CREATED, "status": status,
         "error": None, "incomplete_details": None, "instructions": None,
         "max_output_tokens": None, "model": MODEL, "output": output,
         "parallel_tool_calls": True, "previous_response_id": None,
         "reasoning": {"effort": None, "summary": None}, "store": False,
         "temperature": 1.0, "text": {"format": {"type": "text"}},
         "tool_choice": "auto", "tools": [], "top_p": 1.0, "truncation": "disabled",
         "usage": USAGE if status != "in_progress" else None, "metadata": {}}
    r.update(extra)
    return r


def text_part(text):
    return {"type": "output_text", "annotations": [], "logprobs": [], "text": text}


def message(text, status="completed"):
    return {"type": "message", "id": MSG_ID, "status": status, "role": "assistant",
            "content": [text_part(text)] if status == "completed" else []}


def call(args, status="completed"):
    return {"type": "function_call", "id": FC_ID, "call_id": CALL_ID, "name": "get_weather",
            "arguments": args if status == "completed" else "", "status": status}


def reasoning(summary, status="completed"):
    return {"type": "reasoning", "id": RS_ID,
            "summary": [{"type": "summary_text", "text": summary}] if status == "completed" else []}


class Stream:
    """OpenAI's stream: every event numbered, indices given."""

    def __init__(self, seq=True, index=True, named=True, index_base=0):
        self.events = []
        self.seq = seq
        self.index = index
        self.named = named
        self.base = index_base

    def ev(self, type_, data, output_index=None, content_index=None, raw=None):
        if raw is not None:
            self.events.append((None, raw))
            return
        d = {"type": type_}
        if self.seq:
            d["sequence_number"] = len(self.events)
        if self.index and output_index is not None:
            d["output_index"] = output_index + self.base
        if self.index and content_index is not None:
            d["content_index"] = content_index
        d.update(data)
        self.events.append((type_ if self.named else None, json.dumps(d, separators=(",", ":"))))

    def start(self, created=None):
        r = created if created is not None else response("in_progress", [])
        self.ev("response.created", {"response": r})
        self.ev("response.in_progress", {"response": r})

    def text_item(self, oi, deltas, done_text=None, item_done=True):
        done_text = "".join(deltas) if done_text is None else done_text
        self.ev("response.output_item.added", {"item": message("", "in_progress")}, oi)
        self.ev("response.content_part.added", {"item_id": MSG_ID, "part": text_part("")}, oi, 0)
        for d in deltas:
            self.ev("response.output_text.delta", {"item_id": MSG_ID, "delta": d, "logprobs": []}, oi, 0)
        if item_done:
            self.ev("response.output_text.done", {"item_id": MSG_ID, "text": done_text, "logprobs": []}, oi, 0)
            self.ev("response.content_part.done", {"item_id": MSG_ID, "part": text_part(done_text)}, oi, 0)
            self.ev("response.output_item.done", {"item": message(done_text)}, oi)
        return message(done_text)

    def call_item(self, oi, deltas, item_done=True):
        args = "".join(deltas)
        self.ev("response.output_item.added", {"item": call("", "in_progress")}, oi)
        for d in deltas:
            self.ev("response.function_call_arguments.delta", {"item_id": FC_ID, "delta": d}, oi)
        if item_done:
            self.ev("response.function_call_arguments.done", {"item_id": FC_ID, "name": "get_weather", "arguments": args}, oi)
            self.ev("response.output_item.done", {"item": call(args)}, oi)
        return call(args)

    def reasoning_item(self, oi, deltas):
        text = "".join(deltas)
        self.ev("response.output_item.added", {"item": reasoning("", "in_progress")}, oi)
        self.ev("response.reasoning_summary_part.added", {"item_id": RS_ID, "summary_index": 0, "part": {"type": "summary_text", "text": ""}}, oi)
        for d in deltas:
            self.ev("response.reasoning_summary_text.delta", {"item_id": RS_ID, "summary_index": 0, "delta": d}, oi)
        self.ev("response.reasoning_summary_text.done", {"item_id": RS_ID, "summary_index": 0, "text": text}, oi)
        self.ev("response.reasoning_summary_part.done", {"item_id": RS_ID, "summary_index": 0, "part": {"type": "summary_text", "text": text}}, oi)
        self.ev("response.output_item.done", {"item": reasoning(text)}, oi)
        return reasoning(text)

    def completed(self, output, status="completed", **extra):
        kind = {"completed": "response.completed", "incomplete": "response.incomplete",
                "failed": "response.failed"}[status]
        self.ev(kind, {"response": response(status, output, **extra)})

    def http(self):
        out = ["HTTP/1.1 200 OK", "Content-Type: text/event-stream", "Cache-Control: no-cache", "", ""]
        body = ""
        for name, data in self.events:
            if name:
                body += "event: %s\n" % name
            body += "data: %s\n\n" % data
        return "\r\n".join(out[:3]) + "\r\n\r\n" + body


def request(stream, tools=False, text="Say hello.", **extra):
    r = {"model": MODEL, "input": text, "stream": stream}
    if tools:
        r["tools"] = [WEATHER_TOOL]
        r["input"] = "What is the weather in Oslo?"
    r.update(extra)
    return r


EX = {}


def add(name, req, http):
    EX[name] = (req, http)


HELLO = ["Hello", " from", " the", " server."]
ARGS = ['{"location"', ':"Oslo"}']

# 1. official shapes every client must read
s = Stream(); s.start(); m = s.text_item(0, HELLO); s.completed([m])
add("official-text-stream", request(True), s.http())
s = Stream(); s.start(); c = s.call_item(0, ARGS); s.completed([c])
add("official-tool-call-stream", request(True, tools=True), s.http())
s = Stream(); s.start(); r = s.reasoning_item(0, ["The user", " wants a greeting."]); m = s.text_item(1, HELLO); s.completed([r, m])
add("official-reasoning-stream", request(True, reasoning={"effort": "low", "summary": "auto"}), s.http())


def body_http(obj, status="200 OK"):
    return "HTTP/1.1 %s\r\nContent-Type: application/json\r\n\r\n%s" % (status, json.dumps(obj, separators=(",", ":")))


add("official-text", request(False), body_http(response("completed", [message("".join(HELLO))])))
add("official-tool-call", request(False, tools=True), body_http(response("completed", [call("".join(ARGS))])))

# 2. one field missing
s = Stream(index=False); s.start(); m = s.text_item(0, HELLO); s.completed([m])
add("no-output-index-stream", request(True), s.http())
bare = {"id": RESP_ID, "object": "response", "status": "in_progress"}
s = Stream(); s.start(created=bare); m = s.text_item(0, HELLO); s.completed([m])
add("created-bare-stream", request(True), s.http())
s = Stream(); s.start(); c = s.call_item(0, ARGS, item_done=False); s.completed([c])
add("no-output-item-done-tool-stream", request(True, tools=True), s.http())
s = Stream(); s.start(); m = s.text_item(0, HELLO, item_done=False); s.completed([m])
add("no-output-item-done-stream", request(True), s.http())
s = Stream(index_base=1); s.start(); m = s.text_item(0, HELLO); s.completed([m])
add("output-index-from-1-stream", request(True), s.http())

# 3. how a stream ends
s = Stream(); s.start(); m = s.text_item(0, HELLO)
add("no-terminal-stream", request(True), s.http())
s = Stream(); s.start(); s.text_item(0, HELLO[:2], item_done=False)
s.ev(None, None, raw=json.dumps({"error": {"code": 500, "message": "the model crashed mid-answer", "type": "server_error"}}))
add("untyped-error-stream", request(True), s.http())
s = Stream(); s.start(); s.text_item(0, HELLO[:2], item_done=False)
s.ev("error", {"code": "server_error", "message": "the model crashed mid-answer", "param": None})
add("error-event-stream", request(True), s.http())
s = Stream(); s.start(); m = s.text_item(0, ["Hello", " from"])
s.completed([m], "incomplete", incomplete_details={"reason": "max_output_tokens"})
add("incomplete-stream", request(True, max_output_tokens=16), s.http())
s = Stream(); s.start(); s.text_item(0, HELLO[:2], item_done=False)
s.completed([], "failed", error={"code": "server_error", "message": "the model crashed mid-answer"})
add("failed-stream", request(True), s.http())

# 4. contents that do not add up
s = Stream(); s.start(); m = s.text_item(0, ["Delta", " text."], done_text="Done text."); s.completed([m])
add("deltas-differ-stream", request(True), s.http())
s = Stream(); s.start(); c = s.call_item(0, ['{"location":', '"Oslo"']); s.completed([c])
add("invalid-args-stream", request(True, tools=True), s.http())
add("invalid-args", request(False, tools=True), body_http(response("completed", [call('{"location":"Oslo"')])))

# 5. errors before the stream
add("error-400", request(True), "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n\r\n" +
    json.dumps({"error": {"code": 400, "message": "'input' is required", "type": "invalid_request_error"}}))

index = {}
for name, (req, http) in sorted(EX.items()):
    with open(os.path.join(HERE, name + ".request.json"), "w") as f:
        f.write(json.dumps(req, indent=1) + "\n")
    with open(os.path.join(HERE, name + ".response.http"), "w", newline="") as f:
        f.write(http)
    index[name] = {"method": "POST", "path": "/v1/responses", "request_body": True}
with open(os.path.join(HERE, "index.json"), "w") as f:
    f.write(json.dumps(index, indent=1) + "\n")
