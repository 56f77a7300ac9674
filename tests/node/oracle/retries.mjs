// retries.mjs — LangChain's ChatOpenAI with its default retries (no
// maxRetries given) invoked once per recording NAME against `oacheck serve`
// at BASE_URL.  The attempts are counted by the caller from the server's
// request log; this prints, per NAME, one JSON line with the error the
// application finally got and the backoff delays LangChain asked for.
// Usage: node oracle/retries.mjs BASE_URL NAME...
//
// The delays are real (p-retry's exponential backoff, about a minute in
// all for six retries) but nothing here depends on their length: the
// number of attempts is decided by the retry count and by which errors
// LangChain retries.  So the timers set by the retry library are shortened
// a thousandfold and the asked-for delays are reported instead.
import { langchainModel } from './clients.mjs';

const realSetTimeout = globalThis.setTimeout;
let delays = [];
globalThis.setTimeout = function shortened(fn, ms, ...rest) {
  if (typeof ms === 'number' && ms >= 100 && /[\\/]retry[\\/]lib[\\/]retry_operation\.js/.test(new Error().stack ?? '')) {
    delays.push(ms);
    ms = Math.ceil(ms / 1000);
  }
  return realSetTimeout(fn, ms, ...rest);
};

const [url, ...names] = process.argv.slice(2);
if (!url || names.length === 0) {
  process.stderr.write('usage: node oracle/retries.mjs BASE_URL NAME...\n');
  process.exit(2);
}
for (const name of names) {
  delays = [];
  const { model, messages } = langchainModel({ url, name, body: null, defaultRetries: true });
  let error = null;
  try {
    await model.invoke(messages);
  } catch (e) {
    error = `${e?.constructor?.name}: ${String(e?.message).split('\n')[0]}`;
  }
  process.stdout.write(`${JSON.stringify({ name, error, backoff_ms: delays })}\n`);
}
