// first_event.mjs — the client's side of bench/section-80-proxy.sh: POST
// a recorded request N times, one after another, and for each answer time
// from the request's start to the first SSE event's bytes ("data:") and
// to the end of the body.  Node's own `http` module, no SDK: what is timed
// is the bytes reaching a client, not a library's parsing.
//
//   node first_event.mjs URL BODY N
//
// prints one line: first_ms=… (median) first_p90_ms=… end_ms=… (median)
// bytes=… (of the last answer) n=N
import http from 'node:http';
import { readFileSync } from 'node:fs';

const [url, bodyFile, nArg] = process.argv.slice(2);
if (!url || !bodyFile) {
  console.error('usage: node first_event.mjs URL BODY N');
  process.exit(2);
}
const body = readFileSync(bodyFile);
const n = Number(nArg || 50);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function once() {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    let first = null;
    let seen = '';
    let bytes = 0;
    const req = http.request(url, {
      method: 'POST',
      agent,
      headers: { 'Content-Type': 'application/json', 'Content-Length': body.length },
    }, (res) => {
      res.on('data', (chunk) => {
        bytes += chunk.length;
        if (first === null) {
          // "data:" may be cut across two chunks: the last bytes of the
          // previous one go in front
          const text = seen + chunk.toString('latin1');
          if (text.includes('data:'))
            first = process.hrtime.bigint();
          seen = text.slice(-4);
        }
      });
      res.on('end', () => {
        const end = process.hrtime.bigint();
        if (res.statusCode !== 200 || first === null)
          reject(new Error(`status ${res.statusCode}, ${bytes} bytes, no event`));
        else
          resolve({ first: Number(first - t0) / 1e6, end: Number(end - t0) / 1e6, bytes });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const firsts = [];
const ends = [];
let bytes = 0;
for (let i = 0; i < n; i++) {
  const r = await once();
  firsts.push(r.first);
  ends.push(r.end);
  bytes = r.bytes;
}
const q = (a, p) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
console.log(`first_ms=${median(firsts).toFixed(3)} first_p90_ms=${q(firsts, 0.9).toFixed(3)} ` +
            `end_ms=${median(ends).toFixed(3)} bytes=${bytes} n=${n}`);
agent.destroy();
