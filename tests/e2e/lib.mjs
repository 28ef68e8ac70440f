// Shared helpers for the end-to-end tests and the benchmark: serve dist/ on
// loopback, launch Debian's Chromium through playwright-core, and watch every
// page for console errors, panics and requests to other origins.
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './serve.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST = process.env.RIDGELINE_DIST || path.join(ROOT, 'dist');

const ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

// Debian's Chromium, headless, kept off the network.
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ARGS,
    headless: true,
  });
}

export async function start() {
  const server = await serve(DIST, 0);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await launch();
  return {
    base,
    browser,
    async close() {
      await browser.close();
      await new Promise((r) => server.close(r));
    },
  };
}

// Opens a page that records problems: console errors, uncaught exceptions,
// Rust panics, and any request that leaves the page's origin.
export async function watchedPage(browser, base, options = {}) {
  const context = await browser.newContext({ serviceWorkers: 'block', ...options });
  const page = await context.newPage();
  const origin = new URL(base).origin;
  const problems = [];
  // A static host answers an unknown path with 404.html and status 404, which
  // Chromium logs as a console error: that one is expected, and only for the
  // document itself; any other failed response is a problem.
  let documentStatus = 200;
  page.on('response', (res) => {
    if (res.request().resourceType() === 'document' && res.frame() === page.mainFrame()) {
      documentStatus = res.status();
    } else if (res.status() >= 400) {
      problems.push(`failed request: ${res.status()} ${res.url()}`);
    }
  });
  page.on('console', (msg) => {
    const expected404 = documentStatus === 404 && /status of 404/.test(msg.text());
    if (msg.type() === 'error' && !expected404) problems.push(`console error: ${msg.text()}`);
    if (msg.text().includes('panicked at')) problems.push(`panic: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin) {
      problems.push(`request to another origin: ${url}`);
    }
  });
  return { page, context, problems };
}

// Waits until the static page is there and its bundle has made every island
// live (the root gets data-islands="live").
export async function ready(page) {
  await page.waitForSelector('main [data-page]', { timeout: 15000 });
  await page.waitForSelector(':root[data-islands="live"]', { timeout: 15000 });
}

// The exercise checker is a bundle of its own, which the page starts when the
// reader nears a problem: scroll to `target` (the first problem by default),
// as a reader would, and wait until the checker has made the problems live.
export async function readyExercises(page, target = '[data-exercise]') {
  const problem = page.locator(target).first();
  if (!(await page.locator(':root[data-exercises="live"]').count())) {
    // The static problem may be replaced while Playwright scrolls to it (the
    // checker was already on its way): then the scroll has done its job.
    await problem.scrollIntoViewIfNeeded().catch(() => {});
    await page.waitForSelector(':root[data-exercises="live"]', { timeout: 20000 });
  }
  await problem.scrollIntoViewIfNeeded();
}

// The reader's library (the own-model and own-chip forms) is a bundle of its
// own too, started when the reader nears a form: scroll to `target` and wait
// until the library bundle has made the forms live.
// The islands the library bundle carries (`Library` in content/src/widgets.rs),
// started when the reader nears one of them: read from the built site's start
// script, whose `lazy('ridgeline-library', SELECTORS, …)` call the site writer
// generates from the widget table, so this list cannot fall behind it (read
// once per test process).
let islands = null;
export function libraryIslands() {
  if (islands) return islands;
  const start = fs.readdirSync(DIST).find((f) => /^start-[0-9a-f]+\.js$/.test(f));
  if (!start) throw new Error(`no start script in ${DIST}: build the site first`);
  const m = fs.readFileSync(path.join(DIST, start), 'utf8').match(/lazy\('ridgeline-library', '([^']+)'/);
  if (!m) throw new Error(`${start} starts no library bundle`);
  islands = m[1].split(',').map((s) => s.trim()).join(', ');
  return islands;
}
export async function readyLibrary(page, target = '[data-widget="own-model"]') {
  const form = page.locator(target).first();
  if (!(await page.locator(':root[data-library="live"]').count())) {
    await form.scrollIntoViewIfNeeded().catch(() => {});
    await page.waitForSelector(':root[data-library="live"]', { timeout: 20000 });
  }
  await page.locator(target).first().scrollIntoViewIfNeeded();
}

// Offers `value` in the picker `select` (as a stale link or a removed entry
// would) and chooses it, for tests of how a widget refuses what it cannot take.
export async function offerAndChoose(select, value) {
  await select.evaluate((s, v) => {
    const o = document.createElement('option');
    o.value = v;
    s.append(o);
  }, value);
  await select.selectOption(value);
}

export async function verdictOf(page, widget) {
  return (await page.locator(`[data-widget="${widget}"] [data-verdict]`).first().textContent()).trim();
}

// Every page of the site: the home page, progress, numbers, the measured
// systems and each part the
// home page links to (as paths relative to the base, '' for the home page).
export async function pageSlugs(env) {
  const { page, context } = await watchedPage(env.browser, env.base);
  await page.goto(env.base);
  await ready(page);
  const parts = await page.locator('.parts a.part-title').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  await context.close();
  return ['', 'progress', 'numbers', 'measured', ...parts];
}

// For a test file that visits every page, given node:test's `before` and
// `after` (passed in so that the benchmark, which imports this file, does not
// load the test runner): starts the site (and lists its
// pages) before the file's tests and closes it after. The returned object's
// `env` and `slugs` are set once started.
export function everyPage(before, after) {
  const site = {};
  before(async () => {
    site.env = await start();
    site.slugs = await pageSlugs(site.env);
  });
  after(async () => { await site.env.close(); });
  return site;
}

// LLaMA 3 8B's published config.json, as a reader would paste it.
export const LLAMA3_8B = JSON.stringify({
  architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096,
  intermediate_size: 14336, max_position_embeddings: 8192, num_attention_heads: 32,
  num_hidden_layers: 32, num_key_value_heads: 8, hidden_act: 'silu', rms_norm_eps: 1e-5,
  rope_theta: 500000.0, tie_word_embeddings: false, vocab_size: 128256,
});

// Opens `link` in a fresh browser context (empty storage, as on another
// machine), ready, and checks that it holds no library index: what the page
// shows then comes from the link alone. Close `context` when done.
export async function openFresh(env, link) {
  const fresh = await watchedPage(env.browser, env.base);
  await fresh.page.goto(link);
  await ready(fresh.page);
  const index = await fresh.page.evaluate(() => localStorage.getItem('ridgeline.library.index'));
  if (index !== null) throw new Error(`a fresh browser holds a library index: ${index}`);
  return fresh;
}

// On an open page holding own-model (and its library bundle live), pastes
// `text` and saves it as `name`.
export async function saveModel(page, text, name) {
  const own = page.locator('[data-widget="own-model"]');
  await own.locator('textarea').fill(text);
  await own.locator('[data-save-name]').fill(name);
  await own.locator('[data-save]').click();
  assert.match(await own.locator('[data-saved]').textContent(), new RegExp(`Saved “${name}”`));
}

// On an open page holding own-chip (and its library bundle live), starts
// from registry chip `start`, changes each field of `edits` ({ field: [the
// value shown first, the new value] }) and saves the chip as `name`.
export async function saveChip(page, start, edits, name) {
  const form = page.locator('[data-widget="own-chip"]');
  await form.locator('select').selectOption(start);
  for (const [field, [was, now]] of Object.entries(edits)) {
    const input = form.locator(`input[data-field="${field}"]`);
    assert.equal(await input.inputValue(), was, field);
    await input.fill(now);
  }
  await form.locator('[data-save-name]').fill(name);
  await form.locator('[data-save]').click();
  assert.match(await form.locator('[data-saved]').textContent(), new RegExp(`Saved “${name}”`));
}

// A number the widgets print with `sci` (`1.924e12`, `27.3`), as a float.
export function num(text) {
  return parseFloat(text.replace(/,/g, ''));
}

// Asserts that `actual` is `expected` within 0.2 %, naming `what` if not.
export function near(actual, expected, what) {
  assert.ok(Math.abs(actual / expected - 1) < 2e-3, `${what}: ${actual} is not ${expected}`);
}

// A trace of the shape `jax.profiler.trace(…, create_perfetto_trace=True)`
// writes (the events of tests/data/traces/jax-sharded-matmul-8cpu.json.gz:
// a host process with its python thread and XLA client threads, every op an
// `X` event whose `args` name its `hlo_op`, `hlo_module` and
// `device_ordinal`, steps as `train` events with a `step_num`), repeated
// until the JSON is about `bytes` long. Deterministic: the same size gives
// the same file. For timing the trace viewer on large files.
export function jaxTrace(bytes) {
  const devices = 8;
  const ops = ['ynn_fusion', 'ynn_fusion.1', 'wrapped_tanh', 'copy.3', 'add.7', 'all-reduce.2'];
  const threads = Array.from({ length: devices }, (_, d) => 1000 + d);
  const head = [
    '{"ph": "M", "pid": 701, "name": "process_name", "args": {"name": "/host:CPU"}}',
    '{"ph": "M", "pid": 701, "tid": 1917896404, "name": "thread_name", "args": {"name": "python"}}',
    ...threads.map((t, d) => `{"ph": "M", "pid": 701, "tid": ${t}, "name": "thread_name", "args": {"name": "tf_XLAPjRtCpuClient/${d}"}}`),
  ];
  const parts = [`{"displayTimeUnit": "ns", "traceEvents": [${head.join(', ')}`];
  let size = parts[0].length;
  let ts = 12.028;
  for (let step = 0; size < bytes - 2; step++) {
    const start = ts;
    const events = [];
    for (let d = 0; d < devices; d++) {
      let t = start + 3.5 + d * 0.25;
      for (let i = 0; i < 24; i++) {
        const op = ops[(i * 7 + d + step) % ops.length];
        const dur = (37 + ((i * 131 + d * 17 + step * 29) % 900)) / 10;
        events.push(`{"ph": "X", "pid": 701, "tid": ${threads[d]}, "ts": ${t.toFixed(3)}, "dur": ${dur.toFixed(3)}, "name": "${op}", "args": {"_src": "external/xla/xla/backends/cpu/runtime/thunk_executor.cc", "device_ordinal": "${d}", "hlo_module": "jit_step", "hlo_op": "${op}", "run_id": "-874723040"}}`);
        t += dur + 0.5;
      }
      ts = Math.max(ts, t);
    }
    ts += 20;
    events.unshift(`{"ph": "X", "pid": 701, "tid": 1917896404, "ts": ${start.toFixed(3)}, "dur": ${(ts - start).toFixed(3)}, "name": "train", "args": {"step_num": "${step}"}}`);
    const chunk = `, ${events.join(', ')}`;
    parts.push(chunk);
    size += chunk.length;
  }
  parts.push(']}');
  return Buffer.from(parts.join(''));
}

// Chooses the trace file at path `file` in the trace viewer of `page`
// (/profiling, its library bundle live) and times it in the page: from the
// file input's change event until the viewer shows the file (or refuses it)
// and two frames later, with the longest gap of a 10 ms heartbeat
// meanwhile, i.e. the longest the page's thread was kept busy. Resolves to
// `{ ms, stall, shown }` (`shown` false for a refusal; `said` the notice).
export async function openTraceTimed(page, file) {
  const name = path.basename(file);
  await page.evaluate((n) => { window.traceTimed = new Promise((resolve) => {
    const viewer = document.querySelector('[data-live] > [data-widget="trace-viewer"]');
    document.addEventListener('change', () => {
      const t0 = performance.now();
      let last = t0;
      let stall = 0;
      const beat = setInterval(() => {
        const t = performance.now();
        stall = Math.max(stall, t - last);
        last = t;
      }, 10);
      const done = (shown) => requestAnimationFrame(() => requestAnimationFrame(() => {
        const t = performance.now();
        clearInterval(beat);
        const said = viewer.querySelector('[data-trace-error]')?.textContent ?? '';
        resolve({ ms: t - t0, stall: Math.max(stall, t - last), shown, said });
      }));
      const o = new MutationObserver(() => {
        const showing = viewer.querySelector('[data-trace-showing]')?.textContent ?? '';
        const said = viewer.querySelector('[data-trace-error]')?.textContent ?? '';
        if (showing.includes(`your file ${n}`)) {
          o.disconnect();
          done(true);
        } else if (said.includes(`${n} was not opened`) || said.includes(`${n} could not be read`)) {
          o.disconnect();
          done(false);
        }
      });
      o.observe(viewer, { childList: true, subtree: true, characterData: true });
    }, { capture: true, once: true });
  }); }, name);
  await page.locator('[data-live] > [data-widget="trace-viewer"] input[type="file"][data-trace-file]').setInputFiles(file);
  return page.evaluate(() => window.traceTimed);
}
