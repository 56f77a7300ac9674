// html_load.mjs — how an oacheck HTML report opens in headless Chromium,
// for the reports bench: the page loaded from disk RUNS times (a fresh
// page each), the time from navigation to the load event (the report's
// script has run: the page is laid out and paginated), then one click on
// "next" to the time the second page is shown, and what the page shows
// first.  Usage: node html_load.mjs NODE_DIR CHROMIUM PROFILE PAGE.html RUNS
// (NODE_DIR holds node_modules/puppeteer-core; nothing is downloaded).
// Prints one "load_ms=… next_ms=… cases=… in_dom=… shown=… first=…
// dom_nodes=…" line: cases is the run's (a long run's later pages wait
// outside the DOM until paged to), in_dom the case elements at load.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';

const [nodeDir, chromium, profile, file, runsArg] = process.argv.slice(2);
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
const median = (v) => { const s = [...v].sort((a, b) => a - b); const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const loads = [], nexts = [];
let facts = {};
try {
  for (let i = 0; i < Number(runsArg || 3); i++) {
    const page = await browser.newPage();
    const t0 = Date.now();
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 120000 });
    loads.push(Date.now() - t0);
    facts = await page.evaluate(() => {
      const cases = document.querySelectorAll('details.case');
      let shown = 0;
      for (const c of cases) if (!c.hidden) shown++;
      const first = cases.length ? cases[0].getAttribute('data-status') : '';
      const note = document.getElementById('brief-note');
      const total = note ? Number(note.getAttribute('data-cases')) : cases.length;
      return { cases: total, in_dom: cases.length, shown, first, nodes: document.getElementsByTagName('*').length,
        page: (document.getElementById('page') || {}).textContent || '' };
    });
    const t1 = Date.now();
    const moved = await page.evaluate(() => {
      const next = document.getElementById('page-next');
      if (!next || next.disabled) return false;
      next.click();
      return true;
    });
    if (moved) {
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      nexts.push(Date.now() - t1);
    }
    await page.close();
  }
} finally {
  await browser.close();
}
console.log(`load_ms=${median(loads)} next_ms=${nexts.length ? median(nexts) : ''} ` +
  `cases=${facts.cases} in_dom=${facts.in_dom} shown=${facts.shown} first=${facts.first} dom_nodes=${facts.nodes} ` +
  `loads=${loads.join(',')}`);
