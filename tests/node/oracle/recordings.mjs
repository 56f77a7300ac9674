// recordings.mjs — reads recorded exchanges the way docs/cassette.md and
// src/exchange.c define them, without oacheck's code: cassettes
// (NAME.cassette.gz) and raw exchange folders (index.json +
// NAME.request.json + NAME.response.http, and NAME.wire.http as NAME.wire).
// Only chat-completion exchanges are returned: the oracle drives chat
// clients, and every other endpoint is somebody else's business.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';

const CHAT_PATH = /^(\/v1)?\/chat\/completions$/;

// A cassette: gzip of one JSON metadata line, then request.body_bytes of
// request body, then response.body_bytes of response body (both
// byte-exact, so they are kept as Buffers).
function readCassette(file) {
  const raw = gunzipSync(readFileSync(file));
  const nl = raw.indexOf(10);
  if (nl < 0) throw new Error(`${file}: no metadata line`);
  const meta = JSON.parse(raw.subarray(0, nl).toString('utf8'));
  const reqLen = meta.request.body_bytes ?? 0;
  const respLen = meta.response.body_bytes;
  const request = raw.subarray(nl + 1, nl + 1 + reqLen);
  const body = raw.subarray(nl + 1 + reqLen, nl + 1 + reqLen + respLen);
  if (body.length !== respLen) throw new Error(`${file}: response body shorter than body_bytes`);
  return {
    method: meta.request.method,
    path: meta.request.path,
    request: meta.request.body_bytes == null ? null : request,
    status: meta.response.status,
    headers: meta.response.headers ?? [],
    body,
    complete: meta.response.complete !== false,
  };
}

// The next line of buf from p: [end of content, start of next line], LF or
// CRLF, or null when no line terminator is left.
function nextLine(buf, p) {
  const nl = buf.indexOf(10, p);
  if (nl < 0) return null;
  const end = nl > p && buf[nl - 1] === 13 ? nl - 1 : nl;
  return [end, nl + 1];
}

// HTTP chunked framing (a .wire.http file keeps it): the body without it.
function dechunk(buf, p) {
  const parts = [];
  for (;;) {
    const line = nextLine(buf, p);
    if (!line) throw new Error(`byte ${p}: chunk size line not terminated`);
    const size = parseInt(buf.subarray(p, line[0]).toString('latin1'), 16);
    if (Number.isNaN(size)) throw new Error(`byte ${p}: expected a hexadecimal chunk size`);
    p = line[1];
    if (size === 0) break;
    parts.push(buf.subarray(p, p + size));
    p += size;
    if (buf[p] === 13 && buf[p + 1] === 10) p += 2;
    else if (buf[p] === 10) p += 1;
    else throw new Error(`byte ${p}: chunk data not followed by CRLF`);
  }
  return Buffer.concat(parts);
}

// A raw response file: status line, header lines, blank line, body.
export function parseResponseHttp(buf, wire) {
  let line = nextLine(buf, 0);
  const status = line && /^HTTP\/\S+ (\d{3})/.exec(buf.subarray(0, line[0]).toString('latin1'));
  if (!status) throw new Error('byte 0: expected a status line such as \'HTTP/1.1 200 OK\'');
  const headers = [];
  let p = line[1];
  for (;;) {
    line = nextLine(buf, p);
    if (!line) throw new Error(`byte ${p}: headers not terminated by a blank line`);
    if (line[0] === p) break;
    const text = buf.subarray(p, line[0]).toString('latin1');
    const colon = text.indexOf(':');
    if (colon < 0) throw new Error(`byte ${p}: header line without a colon`);
    headers.push([text.slice(0, colon).trim(), text.slice(colon + 1).trim()]);
    p = line[1];
  }
  p = line[1];
  const te = headers.find(([k]) => k.toLowerCase() === 'transfer-encoding')?.[1] ?? '';
  const body = wire && /chunked/i.test(te) ? dechunk(buf, p) : buf.subarray(p);
  return { status: Number(status[1]), headers, body };
}

function readRawDir(dir) {
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
  const out = [];
  for (const [name, entry] of Object.entries(index)) {
    const reqFile = join(dir, `${name}.request.json`);
    // request_body defaults to "the file exists", as src/exchange.c has it
    const hasBody = entry.request_body ?? existsSync(reqFile);
    const request = hasBody ? readFileSync(reqFile) : null;
    const variants = [[name, `${name}.response.http`, false], [`${name}.wire`, `${name}.wire.http`, true]];
    for (const [n, file, wire] of variants) {
      if (!existsSync(join(dir, file))) continue;
      const resp = parseResponseHttp(readFileSync(join(dir, file)), wire);
      out.push({ name: n, method: entry.method, path: entry.path, request, ...resp, complete: true });
    }
  }
  return out;
}

// Every chat-completion exchange of DIR (not its subdirectories), by name.
export function loadChatExchanges(dir) {
  const all = [];
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith('.cassette.gz')) continue;
    all.push({ name: f.slice(0, -'.cassette.gz'.length), ...readCassette(join(dir, f)) });
  }
  if (existsSync(join(dir, 'index.json'))) all.push(...readRawDir(dir));
  return all
    .filter((x) => x.method === 'POST' && CHAT_PATH.test(x.path.split('?')[0]))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function header(ex, name) {
  const h = ex.headers.find(([k]) => k.toLowerCase() === name.toLowerCase());
  return h ? h[1] : null;
}

// The recorded request body as JSON, or null when it is not (a deliberately
// invalid request, or none).
export function requestJson(ex) {
  if (!ex.request) return null;
  try {
    const v = JSON.parse(ex.request.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}
