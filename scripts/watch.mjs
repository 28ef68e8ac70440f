// The live edit loop behind `scripts/serve.sh --watch`: serves dist/ (built
// once already) and rebuilds it when a watched file changes, then reloads every
// open page; a failed build's error is shown over the page, with the file and
// line, and the server keeps running.
//
// A chapter or stylesheet edit rebuilds only the pages: the bundles it does
// not touch are reused (scripts/build.sh keeps each bundle's build, keyed on
// what it compiles), and chapters are checked first (`ridgeline-site check`:
// every directive and formula renders, no number typed into prose). An edit to
// the Rust sources rebuilds what it changes, bundles included.
//
// Usage: node scripts/watch.mjs PORT (0 picks a free one); RIDGELINE_DIST and
// RIDGELINE_CHAPTERS move the site and the chapters, as for scripts/build.sh.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../tests/e2e/serve.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.argv[2] ?? 8080);
const target = process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target');
const site = path.join(target, 'debug', 'ridgeline-site');
const dist = path.resolve(process.env.RIDGELINE_DIST || path.join(ROOT, 'dist'));
const chapters = path.resolve(process.env.RIDGELINE_CHAPTERS || path.join(ROOT, 'chapters'));

// What is watched, and whether an edit there can change Rust code.
const WATCHED = [
  [chapters, false], ['public', false],
  ['app', true], ['core', true], ['content', true], ['site', true],
  ['Cargo.toml', true], ['Cargo.lock', true],
];

const live = { state: { kind: 'ok', build: 0, text: '' }, clients: new Set() };
function tell(state) {
  live.state = { build: live.state.build, ...state };
  for (const res of live.clients) res.write(`data: ${JSON.stringify(live.state)}\n\n`);
}

// Runs a command, echoing its output; resolves to [exit code, output].
function run(cmd, args) {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(cmd, args, { cwd: ROOT, env: process.env });
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (d) => { out += d; process.stdout.write(d); });
    }
    child.on('error', (e) => resolve([1, String(e)]));
    child.on('close', (code) => resolve([code, out]));
  });
}

// The lines of a failed build a reader needs: the site writer's sentence
// (which names the chapter and line), or the compiler's errors, or the tail.
function errorText(out) {
  const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
  const lines = plain.split('\n');
  const ours = lines.filter((l) => l.startsWith('ridgeline-site: ') || l.startsWith('chapters/'));
  if (ours.length) return ours.join('\n');
  const at = lines.findIndex((l) => /^error(\[|:)/.test(l));
  return (at >= 0 ? lines.slice(at, at + 40) : lines.slice(-40)).join('\n');
}

let building = false;
let pending = null; // null, or whether the pending edits touched Rust code
async function build() {
  if (building || pending === null) return;
  building = true;
  const rust = pending;
  pending = null;
  const started = Date.now();
  tell({ kind: 'building', text: '' });
  let [code, out] = [0, ''];
  if (!rust && fs.existsSync(site)) [code, out] = await run(site, ['check']);
  if (code === 0) [code, out] = await run('bash', [path.join(ROOT, 'scripts/build.sh'), '--no-compress']);
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (code === 0) {
    console.log(`==> rebuilt in ${secs} s; reloading ${live.clients.size} page(s)`);
    tell({ kind: 'ok', build: live.state.build + 1, text: `rebuilt in ${secs} s` });
  } else {
    console.log(`==> the build failed after ${secs} s; the pages show why`);
    tell({ kind: 'error', text: errorText(out) });
  }
  building = false;
  build();
}

let timer;
for (const [name, rust] of WATCHED) {
  const where = path.resolve(ROOT, name);
  if (!fs.existsSync(where)) continue;
  fs.watch(where, { recursive: fs.statSync(where).isDirectory() }, (_event, file) => {
    if (file && /(^|\/)(\.|#)|~$|\.swp$/.test(String(file))) return; // editors' own files
    pending = (pending ?? false) || rust;
    clearTimeout(timer);
    timer = setTimeout(build, 100);
  });
}

serve(dist, port, live).then((s) => {
  console.log(`==> serving on http://127.0.0.1:${s.address().port}/ and rebuilding on every edit (Ctrl-C to stop)`);
});
