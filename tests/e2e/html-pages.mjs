// html-pages.mjs — what a long run's HTML report shows in headless
// Chromium (through puppeteer-core), for report-html-pages.sh: the page
// opened from disk with scripts on, then paged with "next", then with
// "failures only" ticked; opened at a link to one case (#ID); and opened
// with scripts off.  It only reads the page and clicks its buttons; the
// shell test judges.
// Usage: node html-pages.mjs NODE_DIR CHROMIUM PROFILE PAGE.html ID [BLOCKED.html]
// (BLOCKED.html: a copy whose policy keeps its script from running while
// scripting stays on, viewed as "blocked")
// Prints one line per view: "VIEW key=value ..." with
//   in_dom   details.case elements in the DOM
//   shown    of those, laid out (not hidden, not display:none)
//   brief    shown cases in the brief form (a p.brief or "No findings."
//            and no Request heading)
//   first    data-status of the first shown case, last_name the name of
//            the last shown case
//   page     the pager's text ('' when hidden); blocks: noscript.page
//            elements left; count: the "N of M cases shown" text
//   open     the id of the open case the view scrolled to (link view)
//   note     1 when #paged-note (the script did not run) is laid out
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';

const [nodeDir, chromium, profile, file, id, blocked] = process.argv.slice(2);
if (!nodeDir || !chromium || !profile || !file || !id) {
  console.error('usage: node html-pages.mjs NODE_DIR CHROMIUM PROFILE PAGE.html ID');
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

// runs in the page: the facts above
function facts() {
  const all = [...document.querySelectorAll('details.case')];
  const laid = all.filter((c) => c.getClientRects().length > 0);
  const brief = laid.filter((c) => !/<h4>Request<\/h4>/.test(c.innerHTML) &&
    (c.querySelector('p.brief') || /No findings\./.test(c.textContent)));
  const name = (c) => (c ? (c.querySelector('.cname') || {}).textContent || '' : '');
  const open = laid.filter((c) => c.open && c.id === location.hash.slice(1));
  return {
    in_dom: all.length, shown: laid.length, brief: brief.length,
    first: laid.length ? laid[0].getAttribute('data-status') : '',
    first_name: name(laid[0]), last_name: name(laid[laid.length - 1]),
    page: document.getElementById('pager') && !document.getElementById('pager').hidden
      ? document.getElementById('page').textContent.replace(/\s+/g, '_') : '',
    count: ((document.getElementById('shown') || {}).textContent || '').replace(/\s+/g, '_'),
    blocks: document.querySelectorAll('noscript.page').length,
    open: open.length ? open[0].id : '',
    note: (document.getElementById('paged-note') || { getClientRects: () => [] }).getClientRects().length ? 1 : 0,
  };
}
const line = (view, f) => console.log(view + ' ' + Object.entries(f).map(([k, v]) => `${k}=${v}`).join(' '));
const url = pathToFileURL(file).href;
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

let status = 0;
try {
  let page = await browser.newPage();
  await page.goto(url, { waitUntil: 'load', timeout: 120000 });
  line('load', await page.evaluate(facts));
  await page.click('#page-next');
  await settle(page);
  line('next', await page.evaluate(facts));
  await page.click('#only-failures');
  await settle(page);
  line('failures', await page.evaluate(facts));
  await page.close();

  page = await browser.newPage();
  await page.goto(url + '#' + id, { waitUntil: 'load', timeout: 120000 });
  await settle(page);
  line('link', await page.evaluate(facts));
  await page.close();

  page = await browser.newPage();
  await page.setJavaScriptEnabled(false);
  await page.goto(url, { waitUntil: 'load', timeout: 120000 });
  line('noscript', await page.evaluate(facts));
  await page.close();

  if (blocked) {
    page = await browser.newPage();
    await page.goto(pathToFileURL(blocked).href, { waitUntil: 'load', timeout: 120000 });
    line('blocked', await page.evaluate(facts));
    await page.close();
  }
} catch (e) {
  console.error(String(e && e.stack || e));
  status = 1;
} finally {
  await browser.close();
}
process.exit(status);
