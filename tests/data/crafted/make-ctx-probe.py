#!/usr/bin/env python3
"""make-ctx-probe.py — writes the CRAFTED exchanges under ctx-probe/ and
ctx-probe-inband/: a pretend llama-server with a 128-token window, for the
context-overflow suite's token-count probes (N-1, N, N+1) and recovery
turn, which no real recording covers.  Nothing here was recorded from a
server: the template and tokenizer are a simple linear model (BOS, four
tokens per message, one per word, three for the generation prompt), and
the responses copy the shapes of the real llama-server recordings in
suites/recordings/llama-server/.

The requests are built from suites/context-overflow.json exactly as
oacheck builds them (variables substituted), plus the probe requests
oacheck's target identification sends (POST /apply-template, /tokenize).
ctx-probe/ behaves as llama-server does; ctx-probe-inband/ answers the
overflow with a 500 and the streamed overflow with a 200 stream carrying the
error in-band (the llama.cpp #19774 and #14566 behaviours).

Run it from the source tree after changing the suite:
    python3 tests/data/crafted/make-ctx-probe.py
"""
import json, os, re, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
N_CTX = 128
MODEL = 'crafted-tiny.gguf'
HEAD = ['Server: llama.cpp', 'Access-Control-Allow-Origin: ']

def count_prompt(messages, generation=True):
    n = 1
    for m in messages:
        n += 4 + len((m.get('content') or '').split())
    return n + (3 if generation else 0)

def template(messages):
    out = ''
    for m in messages:
        out += '<|im_start|>%s\n%s<|im_end|>\n' % (m['role'], m.get('content') or '')
    return out + '<|im_start|>assistant\n'

def tokens_of_prompt(prompt):
    # the inverse of template(): count messages and words the same way
    msgs = re.findall(r'<\|im_start\|>(\w+)\n(.*?)<\|im_end\|>', prompt, re.S)
    return count_prompt([{'role': r, 'content': c} for r, c in msgs])

def http(status, reason, ctype, body, extra=()):
    lines = ['HTTP/1.1 %d %s' % (status, reason)] + HEAD + ['Content-Type: ' + ctype]
    lines += list(extra) + ['Content-Length: %d' % len(body.encode())] + ['Keep-Alive: timeout=5, max=100' if status < 400 else 'Connection: close']
    return '\r\n'.join(lines) + '\r\n\r\n' + body

def compact(d):
    return json.dumps(d, separators=(',', ':'), ensure_ascii=False)

def overflow_error(n):
    return compact({"error": {"code": 400, "message": "request (%d tokens) exceeds the available context size (%d tokens), try increasing it" % (n, N_CTX), "type": "exceed_context_size_error", "n_prompt_tokens": n, "n_ctx": N_CTX}})

def completion(n_prompt, max_tokens):
    k = max(1, min(max_tokens, 3))
    text = ' crafted' * k
    return compact({"choices": [{"finish_reason": "length", "index": 0, "message": {"role": "assistant", "content": text}}],
                    "created": 1796004200, "model": MODEL, "system_fingerprint": "b0-crafted", "object": "chat.completion",
                    "usage": {"completion_tokens": k, "prompt_tokens": n_prompt, "total_tokens": n_prompt + k},
                    "id": "chatcmpl-crafted0000000000000000000000000"})

def words(spec, env):
    n, w = spec.split(':', 1)
    n = int(n) if n.isdigit() else env[n]
    return ' '.join([w] * n)

def subst(v, env):
    if isinstance(v, str):
        m = re.fullmatch(r'\$\{([^}]*)\}', v)
        if m:
            name = m.group(1)
            return words(name[6:], env) if name.startswith('words:') else env[name]
        return re.sub(r'\$\{([^}]*)\}', lambda m: words(m.group(1)[6:], env) if m.group(1).startswith('words:') else str(env[m.group(1)]), v)
    if isinstance(v, list):
        return [subst(x, env) for x in v]
    if isinstance(v, dict):
        return {k: subst(x, env) for k, x in v.items()}
    return v

def probe_words(env):
    # oacheck's probe: count(1), count(65), then w = 1 + (want - c0) / per
    c0 = count_prompt([{'role': 'user', 'content': 'hello'}])
    c1 = count_prompt([{'role': 'user', 'content': ' '.join(['hello'] * 65)}])
    per = (c1 - c0) / 64
    sent = [1, 65]
    for var, d in (('CTX_WORDS_UNDER', -1), ('CTX_WORDS_AT', 0), ('CTX_WORDS_OVER', 1)):
        w = 1 + int((N_CTX + d - c0) / per + 0.5)
        assert count_prompt([{'role': 'user', 'content': ' '.join(['hello'] * w)}]) == N_CTX + d
        env[var] = w
        sent.append(w)
    return sent

def build(outdir, inband):
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    os.makedirs(outdir)
    index = {}
    def put(name, method, path, req, resp):
        index[name] = {"method": method, "path": path, "request_body": req is not None}
        if req is not None:
            with open(os.path.join(outdir, name + '.request.json'), 'w') as f:
                f.write(req)
        with open(os.path.join(outdir, name + '.response.http'), 'w', newline='') as f:
            f.write(resp)
    put('v1-models', 'GET', '/v1/models', None, http(200, 'OK', 'application/json; charset=utf-8',
        compact({"object": "list", "data": [{"id": MODEL, "object": "model", "created": 1796004200, "owned_by": "llamacpp"}]})))
    put('props', 'GET', '/props', None, http(200, 'OK', 'application/json; charset=utf-8',
        compact({"default_generation_settings": {"n_ctx": N_CTX, "params": {"n_predict": -1}}, "total_slots": 1,
                 "model_path": MODEL, "chat_template": "{# crafted: ChatML #}", "build_info": "b0-crafted"})))
    env = {'MODEL': MODEL, 'N_CTX': N_CTX, 'N_CTX_HALF': N_CTX // 2}
    for w in probe_words(env):
        msgs = [{"role": "user", "content": ' '.join(['hello'] * w)}]
        prompt = template(msgs)
        put('probe-template-%d' % w, 'POST', '/apply-template', compact({"messages": msgs}),
            http(200, 'OK', 'application/json; charset=utf-8', compact({"prompt": prompt})))
        put('probe-tokenize-%d' % w, 'POST', '/tokenize', compact({"content": prompt, "add_special": True, "parse_special": True}),
            http(200, 'OK', 'application/json; charset=utf-8', compact({"tokens": list(range(1, tokens_of_prompt(prompt) + 1))})))
    suite = json.load(open(os.path.join(SRC, 'suites', 'context-overflow.json')))
    for case in suite['cases']:
        rq = case['request']
        body = subst(rq['body'], env)
        n = count_prompt(body['messages'])
        stream = body.get('stream', False)
        name = 'case-' + case['name']
        if n >= N_CTX:
            if inband and stream:
                ev = 'data: ' + compact({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error"}}) + '\n\n'
                resp = '\r\n'.join(['HTTP/1.1 200 OK'] + HEAD + ['Content-Type: text/event-stream', 'Transfer-Encoding: chunked']) + '\r\n\r\n' + ev
            elif inband:
                resp = http(500, 'Internal Server Error', 'application/json; charset=utf-8',
                            compact({"error": {"code": 500, "message": "Context size has been exceeded.", "type": "server_error"}}))
            else:
                resp = http(400, 'Bad Request', 'application/json; charset=utf-8', overflow_error(n))
        else:
            resp = http(200, 'OK', 'application/json; charset=utf-8', completion(n, body.get('max_tokens', 8)))
        put(name, rq['method'], rq['path'], compact(body), resp)
    with open(os.path.join(outdir, 'index.json'), 'w') as f:
        json.dump(index, f, indent=1, sort_keys=True)
        f.write('\n')

build(os.path.join(HERE, 'ctx-probe'), False)
build(os.path.join(HERE, 'ctx-probe-inband'), True)
print('wrote', os.path.join(HERE, 'ctx-probe'), 'and ctx-probe-inband')
