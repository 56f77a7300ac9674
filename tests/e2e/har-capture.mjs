// har-capture.mjs — headless Chromium (through puppeteer-core and the
// DevTools protocol) fetches chat completions from `oacheck serve`, and a
// HAR 1.2 file is written from the Network events it reports
// (requestWillBeSent, responseReceived, loadingFinished, then
// getResponseBody), as devtools' own export builds it.  The page is one of
// serve's own URLs, so the fetches are same-origin and CORS does not come
// into it.  Usage:
//   node har-capture.mjs NODE_DIR CHROMIUM PROFILE_DIR BASE_URL OUT.har REQUEST.json...
// NODE_DIR holds node_modules/puppeteer-core; nothing is downloaded.
// Exits 1 with a message when a fetch fails or an event is missing.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';

const [nodeDir, chromium, profile, base, out, ...requests] = process.argv.slice(2);
if (!nodeDir || !chromium || !profile || !base || !out || requests.length === 0) {
  console.error('usage: node har-capture.mjs NODE_DIR CHROMIUM PROFILE_DIR BASE_URL OUT.har REQUEST.json...');
  process.exit(2);
}
const pkg = join(nodeDir, 'node_modules', 'puppeteer-core');
const main = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).exports['.'].import;
const { default: puppeteer } = await import(pathToFileURL(join(pkg, main)).href);

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  userDataDir: profile,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let status = 0;
try {
  const page = await browser.newPage();
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');

  // requestId -> what the protocol said about it
  const seen = new Map();
  const finished = [];
  const entry = (id) => {
    if (!seen.has(id)) seen.set(id, {});
    return seen.get(id);
  };
  cdp.on('Network.requestWillBeSent', (e) => {
    const x = entry(e.requestId);
    x.request = e.request;
    x.wallTime = e.wallTime;
  });
  cdp.on('Network.responseReceived', (e) => { entry(e.requestId).response = e.response; });
  cdp.on('Network.loadingFinished', (e) => {
    const x = entry(e.requestId);
    finished.push((async () => {
      const b = await cdp.send('Network.getResponseBody', { requestId: e.requestId });
      x.body = b.body;
      x.base64 = b.base64Encoded;
      if (x.request && x.request.hasPostData && x.request.postData === undefined) {
        x.request.postData = (await cdp.send('Network.getRequestPostData', { requestId: e.requestId })).postData;
      }
    })());
  });

  await page.goto(`${base}/health`);
  for (const file of requests) {
    const body = readFileSync(file, 'utf8');
    const got = await page.evaluate(async (b) => {
      const r = await fetch('/v1/chat/completions', {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: b,
      });
      return { status: r.status, bytes: (await r.text()).length, unmatched: r.headers.get('X-Oacheck-Unmatched') };
    }, body);
    if (got.unmatched) throw new Error(`${file}: oacheck serve has no recording of this request`);
    console.log(`fetched ${file}: HTTP ${got.status}, ${got.bytes} characters`);
  }
  // every loadingFinished has been seen once the fetches resolved; wait for
  // the bodies asked for after it
  await new Promise((r) => setTimeout(r, 200));
  await Promise.all(finished);

  const headers = (obj) => Object.entries(obj || {}).flatMap(([name, v]) =>
    String(v).split('\n').map((value) => ({ name, value })));
  const version = (p) => (p ? p.toUpperCase().replace(/^H2$/, 'HTTP/2') : 'HTTP/1.1');
  const entries = [];
  for (const x of seen.values()) {
    if (!x.request || !x.response || x.body === undefined) continue;
    const content = { size: x.body.length, mimeType: x.response.mimeType, text: x.body };
    if (x.base64) content.encoding = 'base64';
    const req = {
      method: x.request.method, url: x.request.url, httpVersion: version(x.response.protocol),
      headers: headers(x.request.headers), queryString: [], cookies: [], headersSize: -1,
      bodySize: x.request.postData ? Buffer.byteLength(x.request.postData) : 0,
    };
    if (x.request.postData !== undefined) {
      req.postData = { mimeType: x.request.headers['Content-Type'] || '', text: x.request.postData };
    }
    entries.push({
      startedDateTime: new Date((x.wallTime || 0) * 1000).toISOString(),
      time: 0,
      request: req,
      response: {
        status: x.response.status, statusText: x.response.statusText,
        httpVersion: version(x.response.protocol), headers: headers(x.response.headers), cookies: [],
        content, redirectURL: '', headersSize: -1, bodySize: -1,
      },
      cache: {},
      // the protocol gives no time per piece: a HAR cannot hold one
      timings: { send: 0, wait: 0, receive: 0 },
    });
  }
  const har = { log: { version: '1.2', creator: { name: 'oacheck har-capture.mjs', version: '1' }, pages: [], entries } };
  writeFileSync(out, JSON.stringify(har, null, 2));
  console.log(`wrote ${out}: ${entries.length} entries`);
} catch (e) {
  console.error(`har-capture: ${e.stack || e}`);
  status = 1;
} finally {
  await browser.close();
}
process.exit(status);
