#!/usr/bin/env python3
"""make-codex.py — writes the CRAFTED Responses exchanges under codex/ that
tests/e2e/agent-codex.sh serves to Codex CLI (`oacheck serve`, selected by
the X-Oacheck-Case header Codex sends from its provider's http_headers).
Nothing here was recorded: each stream is the official event sequence
(created, in_progress, output_item.added, content_part.added, deltas,
output_text.done, content_part.done, output_item.done, completed, with
sequence_number, output_index and content_index), broken in exactly one
place, or copies the shape of llama-server's real stream
(suites/recordings/llama-server-responses).  codex/expect.json says
what Codex does with each one; the requests are short stand-ins for
Codex's own (~40 KB, different on every run, so never matched by key).

Run it from the source tree after changing a stream:
    python3 tests/data/crafted/agents/make-codex.py
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'codex')
MODEL = 'crafted-model'
RESP = 'resp_crafted0001'
MSG = 'msg_crafted0001'
FC = 'fc_crafted0001'
CALL = 'call_oacheck_echo_1'
TOOL_WORD = 'oacheck-tool-ran'
ERROR_TEXT = 'slot 0: the KV cache is full (crafted mid-stream error)'
USAGE = {'input_tokens': 120, 'output_tokens': 8, 'total_tokens': 128}


def response(status, output, usage=True):
    r = {'id': RESP, 'object': 'response', 'created_at': 1767225600, 'status': status,
         'model': MODEL, 'output': output}
    if usage:
        r['usage'] = USAGE
    return r


def message(text, status='completed'):
    return {'id': MSG, 'type': 'message', 'role': 'assistant', 'status': status,
            'content': [] if text is None else
            [{'type': 'output_text', 'text': text, 'annotations': []}]}


class Stream:
    """Events with sequence numbers, as OpenAI sends them."""
    def __init__(self, official=True):
        self.events = []
        self.official = official

    def add(self, type_, data, event=True):
        d = {'type': type_}
        if self.official:
            d['sequence_number'] = len(self.events)
        d.update(data)
        self.events.append((type_ if event else None, d))

    def raw(self, text):
        self.events.append((None, text))

    def body(self):
        out = ''
        for name, d in self.events:
            if name:
                out += 'event: %s\n' % name
            out += 'data: %s\n\n' % (d if isinstance(d, str) else
                                     json.dumps(d, separators=(',', ':')))
        return out


def text_stream(deltas, done_text=None, drop=(), error_after=None):
    """An official text answer; drop names events left out ('item_done',
    'text_done', 'part_done', 'completed'); error_after=N puts an untyped
    data: {"error":...} after the Nth delta and ends the stream there."""
    s = Stream()
    done_text = ''.join(deltas) if done_text is None else done_text
    s.add('response.created', {'response': response('in_progress', [], usage=False)})
    s.add('response.in_progress', {'response': response('in_progress', [], usage=False)})
    s.add('response.output_item.added', {'output_index': 0, 'item': message(None, 'in_progress')})
    s.add('response.content_part.added', {'item_id': MSG, 'output_index': 0, 'content_index': 0,
                                          'part': {'type': 'output_text', 'text': '',
                                                   'annotations': []}})
    for i, d in enumerate(deltas):
        s.add('response.output_text.delta', {'item_id': MSG, 'output_index': 0,
                                             'content_index': 0, 'delta': d, 'logprobs': []})
        if error_after is not None and i + 1 == error_after:
            s.raw(json.dumps({'error': {'code': 500, 'message': ERROR_TEXT,
                                        'type': 'server_error'}}, separators=(',', ':')))
            return s.body()
    if 'text_done' not in drop:
        s.add('response.output_text.done', {'item_id': MSG, 'output_index': 0, 'content_index': 0,
                                            'text': done_text, 'logprobs': []})
    if 'part_done' not in drop:
        s.add('response.content_part.done', {'item_id': MSG, 'output_index': 0, 'content_index': 0,
                                             'part': {'type': 'output_text', 'text': done_text,
                                                      'annotations': []}})
    if 'item_done' not in drop:
        s.add('response.output_item.done', {'output_index': 0, 'item': message(done_text)})
    if 'completed' not in drop:
        s.add('response.completed', {'response': response('completed', [message(done_text)])})
    return s.body()


def llama_server_stream(text):
    """llama-server's shape (its real /v1/responses stream): no
    sequence_number, output_index or content_index; response.created with
    no output, created_at or model; the deltas, then every .done event in
    one batch at the end; response.completed with the whole answer."""
    s = Stream(official=False)
    head = {'id': RESP, 'object': 'response', 'status': 'in_progress'}
    s.add('response.created', {'response': head})
    s.add('response.in_progress', {'response': head})
    s.add('response.output_item.added', {'item': {'content': [], 'id': MSG, 'role': 'assistant',
                                                  'status': 'in_progress', 'type': 'message'}})
    s.add('response.content_part.added', {'item_id': MSG, 'part': {'type': 'output_text',
                                                                   'text': ''}})
    words = text.split(' ')
    for i, w in enumerate(words):
        s.add('response.output_text.delta', {'delta': w if i == 0 else ' ' + w, 'item_id': MSG})
    part = {'type': 'output_text', 'annotations': [], 'logprobs': [], 'text': text}
    s.add('response.output_text.done', {'item_id': MSG, 'text': text})
    s.add('response.content_part.done', {'item_id': MSG, 'part': part})
    item = {'type': 'message', 'status': 'completed', 'id': MSG, 'content': [part],
            'role': 'assistant'}
    s.add('response.output_item.done', {'item': item})
    r = {'id': RESP, 'object': 'response', 'created_at': 1767225600, 'status': 'completed',
         'model': MODEL, 'output': [item], 'usage': USAGE}
    s.add('response.completed', {'response': r})
    return s.body()


def tool_call_stream():
    """A streamed function call to Codex 0.171's exec_command tool (its
    shell: parameters cmd, workdir, ...), arguments in three deltas."""
    args = json.dumps({'cmd': 'echo ' + TOOL_WORD}, separators=(',', ':'))
    parts = [args[:8], args[8:20], args[20:]]
    s = Stream()
    s.add('response.created', {'response': response('in_progress', [], usage=False)})
    s.add('response.in_progress', {'response': response('in_progress', [], usage=False)})
    s.add('response.output_item.added', {'output_index': 0, 'item': {
        'id': FC, 'type': 'function_call', 'status': 'in_progress', 'arguments': '',
        'call_id': CALL, 'name': 'exec_command'}})
    for p in parts:
        s.add('response.function_call_arguments.delta', {'item_id': FC, 'output_index': 0,
                                                         'delta': p})
    s.add('response.function_call_arguments.done', {'item_id': FC, 'output_index': 0,
                                                    'arguments': args})
    item = {'id': FC, 'type': 'function_call', 'status': 'completed', 'arguments': args,
            'call_id': CALL, 'name': 'exec_command'}
    s.add('response.output_item.done', {'output_index': 0, 'item': item})
    s.add('response.completed', {'response': response('completed', [item])})
    return s.body()


PROMPT = {'type': 'message', 'role': 'user',
          'content': [{'type': 'input_text', 'text': 'Say hello.'}]}


def request(extra_input=()):
    """A stand-in for Codex's request: its top-level members, one tool."""
    return {'model': MODEL, 'stream': True,
            'input': [PROMPT] + list(extra_input),
            'tools': [{'type': 'function', 'name': 'exec_command', 'strict': False,
                       'description': 'Runs a command in a PTY.',
                       'parameters': {'type': 'object', 'required': ['cmd'],
                                      'properties': {'cmd': {'type': 'string'}},
                                      'additionalProperties': False}}],
            'tool_choice': 'auto', 'parallel_tool_calls': True,
            'reasoning': {'summary': 'auto'}, 'store': False,
            'include': ['reasoning.encrypted_content']}


CASES = {
    'codex.text': (request(), text_stream(['Hello', ' from', ' oacheck.'])),
    'codex.llama-server-shape': (request(), llama_server_stream('Hello from llama-server.')),
    'codex.no-output-item-done': (request(), text_stream(['Hello', ' without', ' item', ' done.'],
                                                         drop=('text_done', 'part_done',
                                                               'item_done'))),
    'codex.no-completed': (request(), text_stream(['Hello', ' without', ' completed.'],
                                                  drop=('completed',))),
    'codex.untyped-error': (request(), text_stream(['Hello', ' and', ' then'], error_after=2)),
    'codex.deltas-differ': (request(), text_stream(['Delta', ' text.'],
                                                   done_text='Done text.')),
    'codex.tool-call': (request(), tool_call_stream()),
    'codex.tool-result-answer': (
        request([{'type': 'function_call', 'call_id': CALL, 'name': 'exec_command',
                  'arguments': json.dumps({'cmd': 'echo ' + TOOL_WORD})},
                 {'type': 'function_call_output', 'call_id': CALL, 'output': TOOL_WORD + '\n'}]),
        text_stream(['The', ' command', ' printed ' + TOOL_WORD + '.'])),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    index = {}
    for name, (req, body) in sorted(CASES.items()):
        with open(os.path.join(OUT, name + '.request.json'), 'w') as f:
            json.dump(req, f, indent=1)
            f.write('\n')
        with open(os.path.join(OUT, name + '.response.http'), 'w') as f:
            f.write('HTTP/1.1 200 OK\nContent-Type: text/event-stream\nCache-Control: no-cache\n\n')
            f.write(body)
        index[name] = {'method': 'POST', 'path': '/v1/responses', 'request_body': True}
    with open(os.path.join(OUT, 'index.json'), 'w') as f:
        json.dump(index, f, indent=1)
        f.write('\n')


if __name__ == '__main__':
    main()
