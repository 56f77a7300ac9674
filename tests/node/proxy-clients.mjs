// proxy-clients.mjs — the real clients through `oacheck proxy` get exactly
// what they get going direct: for every chat exchange of a recordings
// directory and every client (openai-node both ways, the ai SDK,
// LangChain), the bytes the client's fetch received and what the
// application ends up holding must be identical through DIRECT and PROXY.
// The clients are the oracle's drivers (oracle/clients.mjs), with a fetch
// that keeps a copy of every body they read.
//
// Usage: node proxy-clients.mjs DIRECT_URL PROXY_URL DIR [DIR...]
// Prints one line per (exchange, client); exits 1 on the first difference
// listed at the end, 2 on a usage error.
import { isDeepStrictEqual } from 'node:util';
import { DRIVERS, useFetch } from './oracle/clients.mjs';
import { loadChatExchanges, requestJson } from './oracle/recordings.mjs';

const [direct, proxied, ...dirs] = process.argv.slice(2);
if (!direct || !proxied || !dirs.length) {
  console.error('usage: node proxy-clients.mjs DIRECT_URL PROXY_URL DIR...');
  process.exit(2);
}

// A fetch that hands the client its response untouched and reads a clone
// of the same bytes on the side.
function teeing(copies) {
  return async (input, init) => {
    const res = await fetch(input, init);
    copies.push(res.clone().arrayBuffer().then((b) => Buffer.from(b), () => Buffer.alloc(0)));
    return res;
  };
}

async function through(base, client, ex) {
  const copies = [];
  useFetch(teeing(copies));
  let got;
  try {
    got = await DRIVERS[client]({ url: base, name: ex.name, body: requestJson(ex) });
  } catch (e) {
    got = { kind: 'threw', message: String(e?.message ?? e) };
  }
  const bytes = Buffer.concat(await Promise.all(copies));
  return { got, bytes };
}

// What may vary between two calls that got the same bytes: ids a client
// invents (openai-node's call_<uuid> for a call without one, the ai SDK's
// own), which are the ids that appear nowhere in those bytes.
function comparable(got, bytes) {
  const text = bytes.toString('latin1');
  return JSON.parse(JSON.stringify(got, (k, v) => {
    if ((k === 'id' || k === 'toolCallId') && typeof v === 'string' && !text.includes(v)) return '<invented>';
    return v;
  }));
}

let n = 0;
const bad = [];
for (const dir of dirs) {
  for (const ex of loadChatExchanges(dir)) {
    for (const client of Object.keys(DRIVERS)) {
      const body = requestJson(ex);
      if (client === 'openai-node-stream' && body?.stream !== true) continue;
      const a = await through(direct, client, ex);
      const b = await through(proxied, client, ex);
      n++;
      const sameBytes = a.bytes.equals(b.bytes);
      const sameView = isDeepStrictEqual(comparable(a.got, a.bytes), comparable(b.got, b.bytes));
      const what = `${ex.name} ${client}`;
      if (sameBytes && sameView) {
        console.log(`ok - ${what}: ${a.bytes.length} bytes, ${a.got.kind}`);
        continue;
      }
      const why = !sameBytes ? `bytes differ (${a.bytes.length} direct, ${b.bytes.length} proxied)`
        : `the application sees ${JSON.stringify(comparable(b.got, b.bytes)).slice(0, 300)} instead of `
          + `${JSON.stringify(comparable(a.got, a.bytes)).slice(0, 300)}`;
      console.log(`not ok - ${what}: ${why}`);
      bad.push(`${what}: ${why}`);
    }
  }
}
console.log(`${n} client calls compared, ${bad.length} differ`);
if (!n) {
  console.error('no chat exchange found');
  process.exit(2);
}
if (bad.length) {
  for (const b of bad) console.error(`FAIL: ${b}`);
  process.exit(1);
}
