// Performance figures for the built site (not a test: machines here are noisy).
// Prints the raw/gzip/brotli size of every file in dist/, the first-load bytes
// of every page, cold load-to-interactive time, and p50/p95 input-to-redraw
// time of every widget over many input events; compares each with its budget.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { start, watchedPage, ready, DIST } from './lib.mjs';

const BUDGET = { firstLoadGzip: 350 * 1024, p95: 4.0, interactive: 400 };
const EVENTS = Number(process.env.BENCH_EVENTS || 200);
const LOADS = Number(process.env.BENCH_LOADS || 7);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);

// Every file of the site, by path relative to dist/ (bundles live in _b/<name>/).
const files = fs.readdirSync(DIST, { recursive: true })
  .filter((f) => fs.statSync(path.join(DIST, f)).isFile())
  .map((f) => f.split(path.sep).join('/'))
  .sort();
const sizes = new Map();
for (const name of files) {
  const buf = fs.readFileSync(path.join(DIST, name));
  sizes.set(name, {
    raw: buf.length,
    gzip: zlib.gzipSync(buf, { level: 9 }).length,
    brotli: zlib.brotliCompressSync(buf, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  });
}
const kb = (n) => (n / 1024).toFixed(1).padStart(8);
console.log('\nFiles in dist/ (KiB)                              raw     gzip   brotli');
for (const [name, s] of sizes) console.log(`${name.padEnd(48).slice(0, 48)}${kb(s.raw)} ${kb(s.gzip)} ${kb(s.brotli)}`);
const total = [...sizes.values()].reduce((a, s) => ({ raw: a.raw + s.raw, gzip: a.gzip + s.gzip, brotli: a.brotli + s.brotli }), { raw: 0, gzip: 0, brotli: 0 });
console.log(`${'all files (what the service worker caches)'.padEnd(48)}${kb(total.raw)} ${kb(total.gzip)} ${kb(total.brotli)}`);

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

const env = await start();
let failures = 0;
const verdict = (ok) => (ok ? 'ok' : 'OVER BUDGET');
try {
  // Which pages exist: every part plus home.
  const { page: p0, context: c0 } = await watchedPage(env.browser, env.base);
  await p0.goto(env.base);
  await ready(p0);
  const slugs = await p0.locator('.parts .part-title').evaluateAll((as) => as.map((a) => new URL(a.href).pathname.slice(1)));
  await c0.close();

  console.log('\nFirst load per page (KiB, files fetched)   raw     gzip   brotli  budget');
  console.log('  page                  bundle');
  for (const slug of ['', ...slugs, 'progress', 'numbers']) {
    const { page, context, problems } = await watchedPage(env.browser, env.base);
    const fetched = new Set();
    page.on('response', (r) => fetched.add(new URL(r.url()).pathname.slice(1) || 'index.html'));
    await page.goto(env.base + slug);
    await ready(page);
    await page.waitForTimeout(100);
    let raw = 0, gzip = 0, brotli = 0;
    const wasm = [...fetched].filter((f) => f.endsWith('.wasm'));
    for (const f of fetched) {
      const s = sizes.get(f) || sizes.get('404.html');
      raw += s.raw; gzip += s.gzip; brotli += s.brotli;
    }
    const ok = gzip <= BUDGET.firstLoadGzip;
    failures += ok ? 0 : 1;
    const bundle = wasm.map((f) => f.split('/')[1]).join('+') || '?';
    console.log(`/${slug.padEnd(22).slice(0, 22)}${bundle.padEnd(16).slice(0, 16)}${kb(raw)} ${kb(gzip)} ${kb(brotli)}  ${verdict(ok)}`);
    if (wasm.length !== 1) { console.log(`  expected exactly one wasm bundle, fetched ${wasm.length}`); failures++; }
    if (problems.length) { console.log('  problems:', problems); failures++; }
    await context.close();
  }

  console.log(`\nCold load to interactive, /rooflines (${LOADS} loads, fresh context each)`);
  const loads = [];
  for (let i = 0; i < LOADS; i++) {
    const { page, context } = await watchedPage(env.browser, env.base);
    await page.goto(env.base + 'rooflines');
    await page.waitForSelector('[data-widget="roofline"] [data-verdict]');
    loads.push(await page.evaluate(() => performance.now()));
    await context.close();
  }
  const loadP50 = quantile(loads, 0.5);
  failures += loadP50 <= BUDGET.interactive ? 0 : 1;
  console.log(`  p50 ${loadP50.toFixed(0)} ms, max ${Math.max(...loads).toFixed(0)} ms   budget ${BUDGET.interactive} ms  ${verdict(loadP50 <= BUDGET.interactive)}`);

  console.log(`\nInput-to-redraw (ms; median of ${ROUNDS} rounds of ${EVENTS} input events)\n  widget                          p50     p95     max   p95 per round    budget p95`);
  const widgets = [
    { slug: 'rooflines', name: 'roofline' },
    { slug: 'rooflines', name: 'overlap' },
  ];
  for (const w of widgets) {
    const { page, context } = await watchedPage(env.browser, env.base);
    await page.goto(env.base + w.slug);
    await page.waitForSelector(`[data-widget="${w.name}"] [data-verdict]`);
    await page.locator(`[data-widget="${w.name}"]`).scrollIntoViewIfNeeded();
    const sweep = async (n, warm) => page.evaluate(async ({ name, n, warm }) => {
      const slider = document.querySelector(`[data-widget="${name}"] input[type="range"]`);
      const max = Number(slider.max);
      const macrotask = () => new Promise((resolve) => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => resolve();
        ch.port2.postMessage(null);
      });
      const out = [];
      for (let i = -warm; i < n; i++) {
        // Sweep back and forth across the whole range, three steps at a time.
        const pos = Math.round(Math.abs(((i * 3) % (2 * max)) - max));
        slider.value = String(pos);
        const t0 = performance.now();
        slider.dispatchEvent(new Event('input', { bubbles: true }));
        await macrotask();
        if (i >= 0) out.push(performance.now() - t0);
      }
      return out;
    }, { name: w.name, n, warm });
    // One unmeasured sweep warms the page up (the cold start is measured above);
    // then ROUNDS measured rounds, and the budget applies to the median round.
    await sweep(0, 300);
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      const times = await sweep(EVENTS, 0);
      rounds.push({ p50: quantile(times, 0.5), p95: quantile(times, 0.95), max: Math.max(...times) });
    }
    const p50 = quantile(rounds.map((r) => r.p50), 0.5);
    const p95 = quantile(rounds.map((r) => r.p95), 0.5);
    const max = Math.max(...rounds.map((r) => r.max));
    const ok = p95 <= BUDGET.p95;
    failures += ok ? 0 : 1;
    const each = rounds.map((r) => r.p95.toFixed(1)).join('/');
    console.log(`  ${(w.slug + ' ' + w.name).padEnd(30)}${p50.toFixed(2).padStart(6)} ${p95.toFixed(2).padStart(7)} ${max.toFixed(1).padStart(7)}   ${each.padEnd(16)} ${BUDGET.p95} ms  ${verdict(ok)}`);
    await context.close();
  }

  console.log('\nEmulator in wasm: 8×8 mesh, 256×256×256, plan + run + trace (median of 9; ms)   budget 20 ms');
  {
    const { page, context } = await watchedPage(env.browser, env.base);
    // The emulator ships in the sharding bundle.
    await page.goto(env.base + 'sharding');
    await ready(page);
    await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.bench_emulator);
    const specs = ['A[I_X, J_Y]·B[J_Y, K] → C[I_X, K_Y]', 'A[I_X, J]·B[J, K_Y] → C[I_X, K_Y]', 'A[I, J_X]·B[J_X, K_Y] → C[I, K_XY]', 'A[I_X, J]·B[J, K_Y] → C[I, K_XY]'];
    const n = await page.evaluate(() => window.wasmBindings.bench_emulator_cases());
    // One unmeasured run of every case first, so that all are timed after the
    // engine has compiled the hot code with its optimising tier.
    for (let i = 0; i < n; i++) await page.evaluate((i) => window.wasmBindings.bench_emulator(i, 1), i);
    for (let i = 0; i < n; i++) {
      const ms = await page.evaluate((i) => window.wasmBindings.bench_emulator(i, 9), i);
      const ok = ms >= 0 && ms <= 20;
      failures += ok ? 0 : 1;
      console.log(`  ${(specs[i] || String(i)).padEnd(44)}${ms.toFixed(1).padStart(7)}   ${verdict(ok)}`);
    }
    await context.close();
  }
} finally {
  await env.close();
}
console.log(failures ? `\n${failures} budget(s) missed` : '\nall budgets met');
process.exit(failures ? 1 : 0);
