// peer_serve.mjs — the Node peer for the serve bench: a plain `http`
// server that answers every request with one cassette's recorded status,
// headers and body, one write per recorded piece (as oacheck serve does),
// after reading the request body.  No matching, no faults: the floor a
// replay server written the obvious way in Node reaches.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const raw = gunzipSync(readFileSync(process.argv[2]));
const nl = raw.indexOf(10);
const meta = JSON.parse(raw.subarray(0, nl).toString());
const body = raw.subarray(nl + 1 + (meta.request.body_bytes || 0));
const hop = /^(transfer-encoding|content-length|connection|keep-alive|te|trailer|upgrade)$/i;
const headers = meta.response.headers.filter(([n]) => !hop.test(n)).flat();
const ends = meta.timing.piece_ends || [body.length];
const pieces = ends.map((e, i) => body.subarray(i ? ends[i - 1] : 0, e));
const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(meta.response.status, headers);
    for (const p of pieces) res.write(p);
    res.end();
  });
});
server.listen(Number(process.argv[3] || 0), '127.0.0.1', () =>
  console.log(`listening on http://127.0.0.1:${server.address().port}`));
