// peer_run.mjs — the openai-node peer for the end-to-end bench: the
// official SDK (v6) sending the same streamed chat request N times, J at
// a time, each stream reassembled by the SDK's own helper
// (chat.completions.stream → finalChatCompletion), the text checked
// against the first answer.  Usage: node peer_run.mjs BASE_URL BODY N J
// NODE_DIR.  Prints "impl=openai-node cases=N ok=K wall_s=… cpu_s=…".
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [base, bodyFile, nArg, jArg, nodeDir] = process.argv.slice(2);
const { default: OpenAI } = await import(
  pathToFileURL(join(nodeDir, 'node_modules', 'openai', 'index.mjs')).href);
const body = JSON.parse(readFileSync(bodyFile, 'utf8'));
const n = Number(nArg);
const jobs = Number(jArg);
const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'bench', maxRetries: 0 });

let next = 0;
let ok = 0;
let want = null;
async function worker() {
  while (next < n) {
    next++;
    const s = client.chat.completions.stream(body);
    const c = await s.finalChatCompletion();
    const text = c.choices[0].message.content;
    if (want === null) want = text;
    if (text === want && c.choices[0].finish_reason) ok++;
  }
}
const t0 = process.hrtime.bigint();
const u0 = process.cpuUsage();
await Promise.all(Array.from({ length: jobs }, worker));
const wall = Number(process.hrtime.bigint() - t0) / 1e9;
const u = process.cpuUsage(u0);
console.log(`impl=openai-node cases=${n} ok=${ok} wall_s=${wall.toFixed(4)} ` +
  `cpu_s=${((u.user + u.system) / 1e6).toFixed(4)} openai=${OpenAI.VERSION || ''}`);
if (ok !== n) process.exit(1);
