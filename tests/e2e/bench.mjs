// Performance figures for the built site, each printed beside its budget
// (issue 12). Not a test: machines here are noisy, so every timed figure is a
// median of several cold loads. Run: RIDGELINE_DIST=dist node tests/e2e/bench.mjs
//
// What it measures, in order:
//   1. sizes of every file (raw, and the .gz/.br the build wrote);
//   2. per page: HTML + CSS gzip, and the first load (every file fetched:
//      HTML, CSS, JS, wasm) as the server sent it;
//   3. per page, on an emulated Fast 3G link with a cold cache: when the first
//      chapter paragraph is shown, when the last static figure is there, when
//      every island is live, and the layout shift until then (+500 ms);
//   4. the roofline widget's time to interactive on loopback, unthrottled
//      (on /rooflines and on home, whose figure it is);
//   5. what a first visit costs with the service worker enabled (10 s);
//   6. input-to-redraw of every widget with a slider or a numeric text box;
//   7. the sharded-matmul emulator in wasm;
//   8. the serving simulation in wasm;
//   9. the reader's library on /applied-training (issue 19): a config.json
//      import, a 5 MB paste refused (≤ 50 ms, our bound for "without
//      freezing": a longer task is what browsers call a long task), and
//      switching every model picker to a saved model;
//  10. a reader's trace on /profiling (issue 38): generated JAX traces of
//      20 and 50 MB chosen in the trace viewer, the time until each is shown
//      and the longest the page's thread was busy meanwhile
//      (BENCH_TRACE_HERE=1 also times the path without a worker).
// Exits non-zero if any budget is missed; ends with a summary table.
//
// The server answers every request gzip-compressed (it rewrites the request's
// Accept-Encoding), as the budgets say; BENCH_ENCODING=native leaves the
// browser's own header, so brotli is served where the build wrote it.
// Knobs: BENCH_LOADS (loopback loads, 7), BENCH_3G_LOADS (≥ 5), BENCH_EVENTS,
// BENCH_ROUNDS, BENCH_SW_MS (10000), BENCH_ONLY and BENCH_PAGES (see below);
// BENCH_FILES=1 lists every file of each first load with its size.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import os from 'node:os';
import { start, watchedPage, ready, readyLibrary, jaxTrace, openTraceTimed, DIST } from './lib.mjs';
import { serve } from './serve.mjs';

const KIB = 1024;
const BUDGET = {
  paragraphRooflines: 1000, // ms, Fast 3G
  paragraph: 1200, // ms, Fast 3G, every other page
  interactive3g: 3000, // ms, /rooflines, Fast 3G
  interactiveLoopback: 300, // ms, /rooflines, loopback
  htmlCssGzip: 60 * KIB,
  firstLoadGzip: 350 * KIB,
  cls: 0.02,
  p95Roofline: 4.0, // ms
  p95: 8.0, // ms, every other widget
  emulator: 10, // ms, each 8×8-mesh 256³ case, plan + run + trace (issue 15)
  serving10k: 50, // ms, a 10,000-request serving simulation in wasm (issue 17)
  libraryImport: 5, // ms, a pasted config.json imported and shown (issue 19)
  librarySwitch: 50, // ms, every model picker of a page switched to a saved model (issue 19)
  pasteRefused: 50, // ms, a 5 MB paste refused with its message (a long task starts at 50 ms)
  trace20: 2000, // ms, a 20 MB trace chosen until shown (issue 38)
  traceStall: 200, // ms, the longest the page's thread is busy while a 50 MB trace is read (issue 38)
};
const EVENTS = Number(process.env.BENCH_EVENTS || 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const LOADS = Number(process.env.BENCH_LOADS || 7);
const LOADS_3G = Math.max(5, Number(process.env.BENCH_3G_LOADS || 5));
const SW_WINDOW = Number(process.env.BENCH_SW_MS || 10000);
const ENCODING = process.env.BENCH_ENCODING || 'gzip';
// BENCH_ONLY=3g,sw runs only those parts (load, 3g, loopback, sw, redraw, redraw-phone, emulator, serving10k, library, trace).
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((x) => x.trim())) : null;
const section = (name) => !ONLY || ONLY.has(name);
// Chrome DevTools' "Fast 3G" as the issue states it.
const FAST_3G = { offline: false, latency: 150, downloadThroughput: 204800, uploadThroughput: 96000 };
const VIEWPORT = { width: 1280, height: 800 };
// A phone at device pixel ratio 3 (issue 13: the redraw budgets hold there too).
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };

// ---------------------------------------------------------------------------
// Results and the summary table.

const results = [];
/// Records a figure with its budget; `ok` says whether it is met.
function check(what, page, value, budget, ok) {
  results.push({ what, page, value, budget, ok });
  return ok;
}
const verdict = (ok) => (ok ? 'ok' : 'OVER BUDGET');
const ms = (x) => (x === null || x === undefined || Number.isNaN(x) ? '—' : `${Math.round(x)} ms`);
const kib = (n) => (n / KIB).toFixed(1).padStart(8);
const median = (xs) => quantile(xs, 0.5);
function quantile(xs, q) {
  const s = xs.filter((x) => x !== null && x !== undefined).sort((a, b) => a - b);
  if (!s.length) return null;
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
const route = (r) => `/${r}`;

// ---------------------------------------------------------------------------
// 1. Files and their compressed sizes (the build's own .gz/.br when present).

const files = fs.readdirSync(DIST, { recursive: true })
  .map((f) => f.split(path.sep).join('/'))
  .filter((f) => !f.startsWith('.') && !f.endsWith('.gz') && !f.endsWith('.br'))
  .filter((f) => fs.statSync(path.join(DIST, f)).isFile())
  .sort();
const sizes = new Map();
for (const name of files) {
  const full = path.join(DIST, name);
  const buf = fs.readFileSync(full);
  const pre = (ext) => (fs.existsSync(`${full}.${ext}`) ? fs.statSync(`${full}.${ext}`).size : null);
  const gz = pre('gz');
  const br = pre('br');
  sizes.set(name, {
    raw: buf.length,
    gzip: gz ?? zlib.gzipSync(buf, { level: 9 }).length,
    brotli: br ?? zlib.brotliCompressSync(buf, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    precompressed: gz !== null,
  });
}
const sizeOf = (rel) => sizes.get(rel) || { raw: 0, gzip: 0, brotli: 0 };
console.log('\nFiles in dist/ (KiB; * = no precompressed copy, sizes computed here)   raw     gzip   brotli');
for (const [name, s] of sizes) {
  console.log(`${(name + (s.precompressed ? '' : ' *')).padEnd(64).slice(0, 64)}${kib(s.raw)} ${kib(s.gzip)} ${kib(s.brotli)}`);
}
const sum = (names) => names.reduce((a, n) => {
  const s = sizeOf(n);
  return { raw: a.raw + s.raw, gzip: a.gzip + s.gzip, brotli: a.brotli + s.brotli };
}, { raw: 0, gzip: 0, brotli: 0 });
const allBundles = sum(files.filter((f) => f.startsWith('_b/')));
const total = sum(files);
console.log(`${'every bundle (_b/)'.padEnd(64)}${kib(allBundles.raw)} ${kib(allBundles.gzip)} ${kib(allBundles.brotli)}`);
// The exercise checker: not part of any first load (a page starts it when the
// reader reaches its problems), fetched once and then cached.
const checker = sum(files.filter((f) => f.startsWith('_b/exercises/')));
console.log(`${'the exercise checker (_b/exercises/, loaded on demand)'.padEnd(64)}${kib(checker.raw)} ${kib(checker.gzip)} ${kib(checker.brotli)}`);
// The reader's library (own-model, own-chip): likewise loaded on demand.
const libraryBundle = sum(files.filter((f) => f.startsWith('_b/library/')));
console.log(`${'the reader\'s library (_b/library/, loaded on demand)'.padEnd(64)}${kib(libraryBundle.raw)} ${kib(libraryBundle.gzip)} ${kib(libraryBundle.brotli)}`);
console.log(`${'all files'.padEnd(64)}${kib(total.raw)} ${kib(total.gzip)} ${kib(total.brotli)}`);

// Every page the build wrote: index.html → '', rooflines.html → 'rooflines'.
const ROUTES = fs.readdirSync(DIST)
  .filter((f) => f.endsWith('.html'))
  .map((f) => (f === 'index.html' ? '' : f.slice(0, -'.html'.length)))
  .sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)))
  // BENCH_PAGES=gpus,rooflines limits the per-page sections to those pages.
  .filter((r) => !process.env.BENCH_PAGES || process.env.BENCH_PAGES.split(',').includes(r));
const htmlOf = (r) => `${r || 'index'}.html`;
// A page's stylesheets (site-relative) and the name of its bundle, from its head.
function headOf(r) {
  const html = fs.readFileSync(path.join(DIST, htmlOf(r)), 'utf8');
  const rel = (href) => href.replace(/^(https?:\/\/[^/]+)?\//, '');
  const css = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => rel(m[1]));
  const boot = html.match(/<meta name="ridgeline-bundle" content="([^"]+)"/);
  return { css, bundle: boot ? rel(boot[1]).split('/')[1] : null };
}

// ---------------------------------------------------------------------------
// The server: lib.mjs's browser, and our own server of dist/ that logs every
// response (so that the service worker's fetches are counted too).

const env = await start();
const server = await serve(DIST, 0);
const base = `http://127.0.0.1:${server.address().port}/`;
let log = [];
server.prependListener('request', (req, res) => {
  if (ENCODING === 'gzip') req.headers['accept-encoding'] = 'gzip';
  const entry = {
    t: Date.now(),
    path: (() => {
      try {
        return decodeURIComponent(new URL(req.url, base).pathname).slice(1);
      } catch {
        return req.url;
      }
    })(),
    bytes: 0,
    encoding: 'identity',
    status: 0,
  };
  // Count the body bytes as they are written (the server pipes the file).
  const { writeHead, write, end } = res;
  res.writeHead = function (status, headers, ...rest) {
    entry.status = status;
    entry.encoding = (headers && headers['content-encoding']) || 'identity';
    return writeHead.call(this, status, headers, ...rest);
  };
  res.write = function (chunk, ...rest) {
    if (chunk) entry.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    return write.call(this, chunk, ...rest);
  };
  res.end = function (chunk, ...rest) {
    if (chunk && typeof chunk !== 'function') entry.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    return end.call(this, chunk, ...rest);
  };
  res.on('finish', () => log.push(entry));
});
const bundleOfPath = (p) => (p.startsWith('_b/') ? p.split('/')[1] : null);

// Records, from the document's creation on, the moments the bench needs, in
// the page's own clock (performance.now(), zero at navigation start).
function probe() {
  const m = { paraFrame: null, paraRule: null, svgs: 0, widgets: 0, svgAt: null, live: null, roofline: null, fcp: null, shifts: [] };
  window.__bench = m;
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) m.shifts.push({ t: e.startTime, v: e.value, input: e.hadRecentInput });
    }).observe({ type: 'layout-shift', buffered: true });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') m.fcp = e.startTime;
    }).observe({ type: 'paint', buffered: true });
  } catch {
    // An engine without these entry types leaves the fields empty.
  }
  const isLive = () => document.documentElement && document.documentElement.getAttribute('data-islands') === 'live';
  // The page's islands go live one task each; the roofline widget is
  // interactive once its own island is (the budgets of issue 12 are for it).
  const rooflineLive = () => document.querySelector('[data-island="roofline"][data-live]') !== null;
  new MutationObserver(() => {
    const now = performance.now();
    if (m.roofline === null && rooflineLive()) m.roofline = now;
    if (m.live === null && isLive()) m.live = now;
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-islands', 'data-live'] });
  // A frame callback runs just before the frame is painted, and none runs
  // while the stylesheet and the theme script still block rendering.
  const frame = () => {
    const now = performance.now();
    if (m.paraFrame === null) {
      for (const rule of ['main .prose p', 'main p']) {
        const p = document.querySelector(rule);
        const box = p && p.getBoundingClientRect();
        if (box && box.height > 0) {
          m.paraFrame = now;
          m.paraTop = Math.round(box.top + window.scrollY);
          m.paraRule = rule;
          break;
        }
      }
    }
    // Static figures, until the first island is replaced: the charts (svg)
    // and the widgets holding their figure (a chart, a table or a verdict).
    if (m.live === null && !document.querySelector('[data-live]')) {
      const svgs = document.querySelectorAll('[data-widget] svg').length;
      const widgets = [...document.querySelectorAll('[data-widget]')]
        .filter((w) => w.querySelector('svg, table, [data-verdict], dl, pre, ol, ul')).length;
      if (svgs > m.svgs || widgets > m.widgets) {
        m.svgs = Math.max(m.svgs, svgs);
        m.widgets = Math.max(m.widgets, widgets);
        m.svgAt = now;
      }
    }
    if (m.live === null && isLive()) m.live = now;
    if (m.live === null || now < m.live + 1000) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

/// One cold load of `r` in a fresh context; waits for the islands (if the
/// page has a bundle) and 500 ms more, and returns the probe's figures.
async function coldLoad(r, { throttle, hasBundle }) {
  const { page, context, problems } = await watchedPage(env.browser, base, { viewport: VIEWPORT });
  try {
    await context.addInitScript(probe);
    if (throttle) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', throttle);
    }
    await page.goto(base + r, { waitUntil: 'commit', timeout: 60000 });
    if (hasBundle) {
      await page.waitForFunction(() => window.__bench && window.__bench.live !== null, null, { timeout: 60000, polling: 50 });
      await page.waitForFunction(() => performance.now() > window.__bench.live + 500, null, { timeout: 10000, polling: 50 });
    } else {
      await page.waitForLoadState('load');
      await page.waitForTimeout(500);
    }
    const m = await page.evaluate(() => window.__bench);
    // The paragraph is on screen from the frame that first lays it out, and
    // not before the first contentful paint.
    m.para = m.paraFrame === null ? null : Math.max(m.paraFrame, m.fcp ?? 0);
    m.figures = m.svgAt === null ? null : Math.max(m.svgAt, m.fcp ?? 0);
    const until = m.live === null ? Infinity : m.live + 500;
    m.cls = m.shifts.filter((s) => !s.input && s.t <= until).reduce((a, s) => a + s.v, 0);
    m.problems = problems;
    return m;
  } finally {
    await context.close();
  }
}

let fatal = null;
try {
  // -------------------------------------------------------------------------
  // 2. HTML + CSS, and the first load of every page (loopback, cold).
  if (section('load')) {
    console.log(`\nFirst load per page (KiB; as fetched, served ${ENCODING === 'gzip' ? 'gzip' : 'as the browser asked'}; cold cache, service worker blocked)`);
    console.log(`  page                bundle      files  html+css gzip  budget        first load  (brotli)  budget`);
    for (const r of ROUTES) {
      const head = headOf(r);
      const htmlCss = sizeOf(htmlOf(r)).gzip + head.css.reduce((a, c) => a + sizeOf(c).gzip, 0);
      const okHtml = check('HTML + CSS gzip', route(r), `${(htmlCss / KIB).toFixed(1)} KiB`, `≤ ${BUDGET.htmlCssGzip / KIB} KiB`, htmlCss <= BUDGET.htmlCssGzip);
      const { page, context, problems } = await watchedPage(env.browser, base, { viewport: VIEWPORT });
      log = [];
      await page.goto(base + r);
      if (head.bundle) await ready(page);
      await page.waitForTimeout(200);
      const fetched = [...log];
      const bytes = fetched.reduce((a, e) => a + e.bytes, 0);
      // The same files as brotli, for comparison.
      const brotli = fetched.reduce((a, e) => {
        const f = sizes.has(e.path) ? e.path : (sizes.has(htmlOf(e.path)) ? htmlOf(e.path) : '404.html');
        return a + sizeOf(f).brotli;
      }, 0);
      const wasm = fetched.filter((e) => e.path.endsWith('.wasm'));
      if (process.env.BENCH_FILES) for (const e of fetched) console.log(`      ${e.path.padEnd(60)} ${(e.bytes / KIB).toFixed(1)} KiB`);
      const okLoad = check('first load (HTML, CSS, JS, wasm)', route(r), `${(bytes / KIB).toFixed(1)} KiB`, `≤ ${BUDGET.firstLoadGzip / KIB} KiB`, bytes <= BUDGET.firstLoadGzip);
      console.log(`  ${route(r).padEnd(20).slice(0, 20)}${String(head.bundle || '—').padEnd(12)}${String(fetched.length).padStart(5)}${kib(htmlCss).padStart(15)}  ${verdict(okHtml).padEnd(12)}${kib(bytes).padStart(12)} ${kib(brotli).padStart(9)}  ${verdict(okLoad)}`);
      const bundles = new Set(fetched.map((e) => bundleOfPath(e.path)).filter(Boolean));
      if (head.bundle && (wasm.length !== 1 || bundles.size !== 1 || !bundles.has(head.bundle))) {
        check('one bundle per page', route(r), `${wasm.length} wasm from ${[...bundles].join('+') || 'none'}`, `1 from ${head.bundle}`, false);
        console.log(`    expected one wasm, from bundle ${head.bundle}; fetched ${wasm.length} from ${[...bundles].join('+') || 'none'}`);
      }
      if (problems.length) {
        check('no console errors', route(r), problems.length, 0, false);
        console.log('    problems:', problems);
      }
      await context.close();
    }
  }

  // -------------------------------------------------------------------------
  // 3. Fast 3G, cold cache: text, figures, islands, layout shift.
  if (section('3g')) {
    console.log(`\nEmulated Fast 3G (${FAST_3G.downloadThroughput} B/s down, ${FAST_3G.uploadThroughput} B/s up, ${FAST_3G.latency} ms latency), cold cache, service worker blocked; medians of ${LOADS_3G} loads`);
    console.log('  "figures" = the moment every widget holds its static figure and the last [data-widget] svg is there');
    console.log('  (w/s = widgets with a figure / svg charts); "lag" = figures − paragraph; "live" = root data-islands="live"');
    console.log('  page                 FCP  paragraph  budget          figures(w/s)    lag     live  CLS med(max)    budget');
    for (const r of ROUTES) {
      const hasBundle = headOf(r).bundle !== null;
      const runs = [];
      for (let i = 0; i < LOADS_3G; i++) runs.push(await coldLoad(r, { throttle: FAST_3G, hasBundle }));
      const para = median(runs.map((m) => m.para));
      const fcp = median(runs.map((m) => m.fcp));
      const svgs = Math.max(...runs.map((m) => m.svgs));
      const widgets = Math.max(...runs.map((m) => m.widgets));
      const figures = widgets || svgs ? median(runs.map((m) => m.figures)) : null;
      const lag = figures !== null ? median(runs.map((m) => (m.svgAt ?? NaN) - (m.paraFrame ?? NaN)).filter((x) => !Number.isNaN(x))) : null;
      const live = hasBundle ? median(runs.map((m) => m.live)) : null;
      const cls = median(runs.map((m) => m.cls));
      const clsMax = Math.max(...runs.map((m) => m.cls));
      const textBudget = r === 'rooflines' ? BUDGET.paragraphRooflines : BUDGET.paragraph;
      const rule = runs.find((m) => m.paraRule)?.paraRule;
      const top = runs.find((m) => m.paraTop !== undefined)?.paraTop;
      const okPara = check(`first paragraph visible (${rule || 'none found'}), Fast 3G`, route(r), ms(para), `≤ ${textBudget} ms`, para !== null && para <= textBudget);
      // Figures must be there with the text: within the text's own budget.
      const okFig = figures === null || check(`every static figure present (${widgets} widgets, ${svgs} svg), Fast 3G; lag ${ms(lag)}`, route(r), ms(figures), `≤ ${textBudget} ms`, figures !== null && figures <= textBudget);
      const okCls = check('layout shift until live + 500 ms (median)', route(r), cls.toFixed(4), `≤ ${BUDGET.cls}`, cls <= BUDGET.cls);
      if (r === 'rooflines' || r === '') {
        const roof = median(runs.map((m) => m.roofline));
        check('roofline widget interactive, Fast 3G', route(r), ms(roof), `≤ ${BUDGET.interactive3g} ms`, roof !== null && roof <= BUDGET.interactive3g);
        console.log(`    the roofline widget live at ${ms(roof)}; every island at ${ms(live)}`);
      }
      const lagText = lag === null ? '—' : `${lag >= 0 ? '+' : ''}${Math.round(lag)}`;
      console.log(`  ${route(r).padEnd(18).slice(0, 18)}${ms(fcp).padStart(8)}${ms(para).padStart(10)}  ${(textBudget + ' ' + verdict(okPara && okFig)).padEnd(14)}${(ms(figures) + `(${widgets}/${svgs})`).padStart(14)}${lagText.padStart(7)}${ms(live).padStart(9)}  ${cls.toFixed(4)}(${clsMax.toFixed(4)})  ${verdict(okCls)}`);
      if (top !== undefined && top > VIEWPORT.height) console.log(`    note: the first paragraph starts ${top} px down, below the ${VIEWPORT.height} px window`);
      const problems = [...new Set(runs.flatMap((m) => m.problems))];
      if (problems.length) {
        check('no console errors, Fast 3G', route(r), problems.length, 0, false);
        console.log('    problems:', problems);
      }
    }
  }

  // -------------------------------------------------------------------------
  // 4. Loopback, unthrottled: the roofline widget's time to interactive, on
  // Part 1 and on home (whose figure is the same widget, batch alone).
  if (section('loopback')) {
    for (const r of ['rooflines', '']) {
      console.log(`\nCold load to interactive on loopback, no throttling, ${route(r)} (${LOADS} loads, fresh context each)`);
      const runs = [];
      for (let i = 0; i < LOADS; i++) runs.push(await coldLoad(r, { throttle: null, hasBundle: true }));
      const roof = median(runs.map((m) => m.roofline));
      const live = median(runs.map((m) => m.live));
      const ok = check('roofline widget interactive, loopback', route(r), ms(roof), `≤ ${BUDGET.interactiveLoopback} ms`, roof !== null && roof <= BUDGET.interactiveLoopback);
      console.log(`  paragraph ${ms(median(runs.map((m) => m.para)))}, roofline widget live p50 ${ms(roof)} (each: ${runs.map((m) => Math.round(m.roofline)).join(', ')})   budget ${BUDGET.interactiveLoopback} ms  ${verdict(ok)}`);
      console.log(`  every island live p50 ${ms(live)} (each: ${runs.map((m) => Math.round(m.live)).join(', ')})`);
    }
  }

  // -------------------------------------------------------------------------
  // 5. First visit with the service worker enabled.
  if (section('sw')) {
    console.log(`\nFirst visit to /rooflines with the service worker enabled: every byte the server sent in the first ${SW_WINDOW / 1000} s after load`);
    const bundle = headOf('rooflines').bundle;
    const context = await env.browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    log = [];
    const t0 = Date.now();
    await page.goto(base + 'rooflines');
    const loaded = Date.now();
    await ready(page);
    await page.waitForTimeout(Math.max(0, SW_WINDOW - (Date.now() - loaded)));
    const worker = await page.evaluate(async () => {
      const reg = navigator.serviceWorker && await navigator.serviceWorker.getRegistration();
      return reg ? (reg.active || reg.waiting || reg.installing)?.state || 'registered' : 'none';
    });
    const seen = log.filter((e) => e.t >= t0 && e.t <= loaded + SW_WINDOW);
    const group = (e) => (bundleOfPath(e.path) ? `bundle ${bundleOfPath(e.path)}` : e.path.endsWith('.html') || !path.extname(e.path) ? 'pages (HTML)' : 'shared files');
    const groups = new Map();
    for (const e of seen) {
      const g = groups.get(group(e)) || { n: 0, bytes: 0 };
      g.n += 1;
      g.bytes += e.bytes;
      groups.set(group(e), g);
    }
    for (const [g, v] of [...groups].sort()) console.log(`  ${g.padEnd(28)}${String(v.n).padStart(4)} responses ${kib(v.bytes)} KiB`);
    const bytes = seen.reduce((a, e) => a + e.bytes, 0);
    const bundles = new Set(seen.map((e) => bundleOfPath(e.path)).filter(Boolean));
    console.log(`  total ${(bytes / KIB).toFixed(1)} KiB in ${seen.length} responses; worker ${worker}; bundles fetched: ${[...bundles].join(', ') || 'none'} (every bundle together: ${(allBundles.gzip / KIB).toFixed(0)} KiB gzip)`);
    check('service worker installed on first visit', '/rooflines', worker, 'activated', worker === 'activated');
    check(`first visit with worker (${SW_WINDOW / 1000} s): only this page's bundle`, '/rooflines', `${(bytes / KIB).toFixed(1)} KiB, ${bundles.size} bundle(s)`, `1 bundle (${bundle})`, bundles.size === 1 && bundles.has(bundle));
    await context.close();
  }

  // -------------------------------------------------------------------------
  // 6. Input-to-redraw of every widget with a slider or a numeric text box.
  for (const [name, options, where] of [['redraw', { viewport: VIEWPORT }, 'desktop 1280 px'], ['redraw-phone', PHONE, 'phone 390 px, ratio 3']]) {
    if (!section(name)) continue;
    console.log(`\nInput-to-redraw, ${where} (ms; median of ${ROUNDS} rounds of ${EVENTS} input events; loopback)`);
    console.log('  (then, apart: the p95 of the style and layout the browser does for the new drawing, forced at once)');
    console.log('  page                widget             input                 p50     p95     max   p95 per round                  budget p95        layout p95');
    for (const r of ROUTES) {
      if (!headOf(r).bundle) continue;
      const { page, context, problems } = await watchedPage(env.browser, base, options);
      await page.goto(base + r);
      await ready(page);
      // The GPU pipeline planner starts late, with the library bundle.
      if (await page.locator('[data-island="gpu-parallelism"]').count()) await readyLibrary(page, '[data-widget="gpu-parallelism"]');
      // Each widget's control to drive: its first slider, else its first text box
      // holding a number (alternated between that number and its half).
      const targets = await page.locator('[data-widget]').evaluateAll((ws) => ws.map((w, i) => {
        const range = w.querySelector('input[type="range"]');
        const text = [...w.querySelectorAll('input[type="text"], input:not([type])')].find((t) => /\d/.test(t.value));
        const input = range || text;
        return {
          index: i,
          name: w.getAttribute('data-widget'),
          kind: range ? 'range' : text ? 'text' : null,
          label: input ? (input.getAttribute('aria-label') || (input.labels && input.labels[0] && input.labels[0].textContent.trim()) || input.name || input.type) : null,
          anyText: !!w.querySelector('input[type="text"]'),
        };
      }));
      const counts = new Map();
      const skipped = [];
      for (const w of targets) {
        counts.set(w.name, (counts.get(w.name) || 0) + 1);
        const id = counts.get(w.name) > 1 ? `${w.name}#${counts.get(w.name)}` : w.name;
        if (!w.kind) {
          skipped.push(id);
          continue;
        }
        await page.locator('[data-widget]').nth(w.index).scrollIntoViewIfNeeded();
        const sweep = (n, warm) => page.evaluate(async ({ index, kind, n, warm }) => {
          const widget = document.querySelectorAll('[data-widget]')[index];
          const input = kind === 'range'
            ? widget.querySelector('input[type="range"]')
            : [...widget.querySelectorAll('input[type="text"], input:not([type])')].find((t) => /\d/.test(t.value));
          const macrotask = () => new Promise((resolve) => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => resolve();
            ch.port2.postMessage(null);
          });
          let values;
          if (kind === 'range') {
            const min = Number(input.min || 0);
            const max = Number(input.max || 100);
            const step = Number(input.step) > 0 ? Number(input.step) : 1;
            const steps = Math.max(1, Math.round((max - min) / step));
            // Back and forth across the whole range, three steps at a time.
            values = (i) => String(min + step * Math.abs(((i * 3) % (2 * steps)) - steps));
          } else {
            const original = input.value;
            const changed = original.replace(/\d+/, (d) => String(Number(d) >= 2 ? Math.floor(Number(d) / 2) : Number(d) + 1));
            values = (i) => (i % 2 ? changed : original);
          }
          // A measured event starts just after a frame, so that the browser's
          // rendering of some other frame never falls inside a sample, and
          // ends when the handler and every redraw it caused have run (the
          // next task): the new drawing is in the DOM. The style and layout
          // the browser then does for it (forced here) is timed apart.
          const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
          const out = [];
          const layout = [];
          for (let i = -warm; i < n; i++) {
            if (i >= 0) {
              await frame();
              await macrotask();
            }
            input.value = values(i + warm);
            const t0 = performance.now();
            input.dispatchEvent(new Event('input', { bubbles: true }));
            if (kind === 'text') input.dispatchEvent(new Event('change', { bubbles: true }));
            await macrotask();
            const t1 = performance.now();
            widget.getBoundingClientRect();
            if (i >= 0) {
              out.push(t1 - t0);
              layout.push(performance.now() - t1);
            }
          }
          return { out, layout };
        }, { index: w.index, kind: w.kind, n, warm });
        // One unmeasured sweep warms the page up (the cold start is measured
        // above); then ROUNDS measured rounds, and the budget applies to the
        // median round.
        await sweep(0, 300);
        const rounds = [];
        for (let k = 0; k < ROUNDS; k++) {
          const { out: times, layout } = await sweep(EVENTS, 0);
          rounds.push({ p50: quantile(times, 0.5), p95: quantile(times, 0.95), max: Math.max(...times), layout95: quantile(layout, 0.95) });
        }
        const p50 = median(rounds.map((x) => x.p50));
        const p95 = median(rounds.map((x) => x.p95));
        const layout95 = median(rounds.map((x) => x.layout95));
        const max = Math.max(...rounds.map((x) => x.max));
        const budget = w.name === 'roofline' ? BUDGET.p95Roofline : BUDGET.p95;
        const ok = check(`input-to-redraw p95, ${where}, ${id} (${w.kind})`, route(r), `${p95.toFixed(2)} ms`, `≤ ${budget} ms`, p95 <= budget);
        const each = rounds.map((x) => x.p95.toFixed(1)).join('/');
        console.log(`  ${route(r).padEnd(20).slice(0, 20)}${id.padEnd(19).slice(0, 19)}${(w.kind + ' ' + w.label).padEnd(20).slice(0, 20)}${p50.toFixed(2).padStart(6)} ${p95.toFixed(2).padStart(7)} ${max.toFixed(1).padStart(7)}   ${each.padEnd(30)} ${budget} ms ${verdict(ok).padEnd(12)} ${layout95.toFixed(2).padStart(6)}`);
      }
      if (skipped.length) console.log(`  ${route(r).padEnd(20).slice(0, 20)}(no slider or numeric text box: ${skipped.join(', ')})`);
      if (problems.length) {
        check('no console errors while sweeping', route(r), problems.length, 0, false);
        console.log('    problems:', problems);
      }
      await context.close();
    }
  }

  // -------------------------------------------------------------------------
  // 7. The emulator in wasm (bench entry points exported by every bundle).
  if (section('emulator')) {
    console.log(`\nEmulator in wasm: 8×8 mesh, 256×256×256, plan + run + trace (median of 9; ms)   budget ${BUDGET.emulator} ms`);
    const { page, context } = await watchedPage(env.browser, base, { viewport: VIEWPORT });
    await page.goto(base + 'sharding');
    await ready(page);
    const exported = await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.bench_emulator, null, { timeout: 10000 })
      .then(() => true, () => false);
    if (!exported) {
      check('emulator benchmark entry points', '/sharding', 'window.wasmBindings.bench_emulator missing', 'exported', false);
      console.log('  window.wasmBindings.bench_emulator is not there: the page model change hid it');
    } else {
      const specs = ['A[I_X, J_Y]·B[J_Y, K] → C[I_X, K_Y]', 'A[I_X, J]·B[J, K_Y] → C[I_X, K_Y]', 'A[I, J_X]·B[J_X, K_Y] → C[I, K_XY]', 'A[I_X, J]·B[J, K_Y] → C[I, K_XY]'];
      const n = await page.evaluate(() => window.wasmBindings.bench_emulator_cases());
      // One unmeasured run of every case first, so that all are timed after
      // the engine has compiled the hot code with its optimising tier.
      for (let i = 0; i < n; i++) await page.evaluate((i) => window.wasmBindings.bench_emulator(i, 1), i);
      for (let i = 0; i < n; i++) {
        const t = await page.evaluate((i) => window.wasmBindings.bench_emulator(i, 9), i);
        const ok = check(`emulator ${specs[i] || i}`, '(wasm)', `${t.toFixed(1)} ms`, `≤ ${BUDGET.emulator} ms`, t >= 0 && t <= BUDGET.emulator);
        console.log(`  ${(specs[i] || String(i)).padEnd(44)}${t.toFixed(1).padStart(7)}   ${verdict(ok)}`);
      }
    }
    await context.close();
  }

  // -------------------------------------------------------------------------
  // 8. The serving simulator in wasm: 10,000 requests with the serving
  // widget's settings (exported only by the bundle that carries that widget).
  if (section('serving10k')) {
    console.log(`\nServing simulation in wasm: 10,000 requests, the serving widget's settings (median of 5; ms)   budget ${BUDGET.serving10k} ms`);
    const { page, context } = await watchedPage(env.browser, base, { viewport: VIEWPORT });
    await page.goto(base + 'inference');
    await ready(page);
    // The serving engine is in the lazily started library bundle.
    await readyLibrary(page, '[data-widget="serving-engine"]');
    const exported = await page.waitForFunction(() => window.wasmBindings && window.wasmBindings.bench_serving, null, { timeout: 10000 })
      .then(() => true, () => false);
    if (!exported) {
      check('serving benchmark entry point', '/inference', 'window.wasmBindings.bench_serving missing', 'exported', false);
      console.log('  window.wasmBindings.bench_serving is not there: the library bundle lost the serving engine?');
    } else {
      // One unmeasured run first, so the timed runs use the optimising tier.
      await page.evaluate(() => window.wasmBindings.bench_serving(10000, 1));
      const t = await page.evaluate(() => window.wasmBindings.bench_serving(10000, 5));
      const ok = check('serving simulation, 10,000 requests', '/inference', `${t.toFixed(1)} ms`, `≤ ${BUDGET.serving10k} ms`, t >= 0 && t <= BUDGET.serving10k);
      console.log(`  median ${t.toFixed(1)} ms   budget ${BUDGET.serving10k} ms   ${verdict(ok)}`);
    }
    await context.close();
  }

  // -------------------------------------------------------------------------
  // 9. The reader's library on /applied-training, once its bundle is live: a
  // pasted config.json imported (the input event to the updated total, in the
  // page), and every model picker switched to a saved model (the change
  // events to the end of the reactive updates they start).
  if (section('library')) {
    console.log(`\nThe reader's library on /applied-training (median of 5; ms)   budgets ${BUDGET.libraryImport} and ${BUDGET.librarySwitch} ms`);
    const { page, context } = await watchedPage(env.browser, base, { viewport: VIEWPORT });
    await page.goto(base + 'applied-training');
    await ready(page);
    await readyLibrary(page);
    const config = (layers) => JSON.stringify({
      model_type: 'llama', hidden_size: 4096, intermediate_size: 14336, max_position_embeddings: 8192,
      num_attention_heads: 32, num_hidden_layers: layers, num_key_value_heads: 8, vocab_size: 128256,
      tie_word_embeddings: false,
    });
    const imports = [];
    for (let i = 0; i < 6; i++) {
      imports.push(await page.evaluate(async (text) => {
        const w = document.querySelector('[data-widget="own-model"]');
        const area = w.querySelector('textarea');
        const total = w.querySelector('[data-total]');
        const before = total.textContent;
        const changed = new Promise((r) => {
          const o = new MutationObserver(() => { if (total.textContent !== before) { o.disconnect(); r(); } });
          o.observe(total, { childList: true, characterData: true, subtree: true });
        });
        const t0 = performance.now();
        area.value = text;
        area.dispatchEvent(new Event('input', { bubbles: true }));
        if (total.textContent === before) await changed;
        return performance.now() - t0;
      }, config(20 + i)));
    }
    // The first import compiles the code on the engine's baseline tier; not counted.
    const tImport = median(imports.slice(1));
    const okImport = check('config.json import (pasted, shown)', '/applied-training', ms(tImport), `≤ ${BUDGET.libraryImport} ms`, tImport !== null && tImport <= BUDGET.libraryImport);
    console.log(`  config.json import   median ${tImport.toFixed(2)} ms   ${verdict(okImport)}`);
    // A 5 MB paste is refused at once, with the limit stated (issue 19: "a
    // 5 MB paste is refused quickly without freezing the page").
    const pastes = [];
    for (let i = 0; i < 5; i++) {
      pastes.push(await page.evaluate(async (n) => {
        const w = document.querySelector('[data-widget="own-model"]');
        const area = w.querySelector('textarea');
        const notice = w.querySelector('[data-notice]');
        const text = `{"hidden_size": ${4096 + n}, "pad": "${'x'.repeat(5 * 1024 * 1024)}"}`;
        const t0 = performance.now();
        area.value = text;
        area.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise((r) => setTimeout(r, 0));
        return { ms: performance.now() - t0, said: notice.textContent };
      }, i));
    }
    const tPaste = median(pastes.slice(1).map((x) => x.ms));
    const refused = pastes.every((x) => /at most/.test(x.said));
    const okPaste = check('a 5 MB paste refused, with the limit stated', '/applied-training', ms(tPaste), `≤ ${BUDGET.pasteRefused} ms`, refused && tPaste <= BUDGET.pasteRefused);
    console.log(`  5 MB paste refused   median ${tPaste.toFixed(1)} ms ("${pastes[0].said.slice(0, 70)}")   ${verdict(okPaste)}`);
    const own = page.locator('[data-widget="own-model"]');
    await own.locator('[data-save-name]').fill('bench model');
    await own.locator('[data-save]').click();
    await page.waitForFunction(() => document.querySelector('optgroup[data-yours] option'));
    const switches = [];
    for (let i = 0; i < 6; i++) {
      switches.push(await page.evaluate(async (back) => {
        const selects = [...document.querySelectorAll('select')]
          .filter((s) => [...s.querySelectorAll('optgroup[data-yours] option')].some((o) => o.textContent === 'bench model'));
        const t0 = performance.now();
        for (const s of selects) {
          const mine = [...s.querySelectorAll('optgroup[data-yours] option')].find((o) => o.textContent === 'bench model');
          s.value = back ? s.querySelector('option').value : mine.value;
          s.dispatchEvent(new Event('change', { bubbles: true }));
        }
        // Reactive updates run as microtasks, all before this timer fires.
        await new Promise((r) => setTimeout(r, 0));
        return { ms: performance.now() - t0, pickers: selects.length };
      }, i % 2 === 1));
    }
    const pickers = switches[0].pickers;
    const tSwitch = median(switches.filter((_, i) => i % 2 === 0).slice(1).map((x) => x.ms));
    const okSwitch = check(`every model picker (${pickers}) to a saved model`, '/applied-training', ms(tSwitch), `≤ ${BUDGET.librarySwitch} ms`, pickers > 0 && tSwitch !== null && tSwitch <= BUDGET.librarySwitch);
    console.log(`  ${pickers} model pickers switched   median ${tSwitch.toFixed(1)} ms   ${verdict(okSwitch)}`);
    await context.close();
  }

  // -------------------------------------------------------------------------
  // 10. A reader's trace on /profiling: generated JAX traces (lib.mjs
  // jaxTrace) chosen in the trace viewer, each timed from the input's change
  // event until it is shown, with the longest gap of a 10 ms heartbeat
  // meanwhile. Two files of each size take turns, so every run shows a new
  // name. The first run of each size is printed but not counted: the first
  // of all starts the worker (its bundle fetched from the cache and compiled).
  if (section('trace')) {
    const runs = 5;
    console.log(`\nA reader's trace on /profiling (median of ${runs}; ms)   budgets ${BUDGET.trace20} ms to show 20 MB, ${BUDGET.traceStall} ms longest stall reading 50 MB`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ridgeline-bench-trace-'));
    const files = {};
    for (const mb of [20, 50]) {
      const bytes = jaxTrace(mb * 1e6);
      files[mb] = ['a', 'b'].map((x) => {
        const f = path.join(dir, `jax-${mb}mb-${x}.json`);
        fs.writeFileSync(f, bytes);
        return f;
      });
      console.log(`  generated ${mb} MB: ${bytes.length.toLocaleString('en')} bytes`);
    }
    const paths = process.env.BENCH_TRACE_HERE ? [['worker', false], ['page thread (no Worker)', true]] : [['worker', false]];
    for (const [label, here] of paths) {
      const { page, context } = await watchedPage(env.browser, base, { viewport: VIEWPORT });
      if (here) await page.addInitScript(() => { delete window.Worker; });
      await page.goto(base + 'profiling');
      await ready(page);
      await readyLibrary(page, '[data-widget="trace-viewer"]');
      for (const mb of [20, 50]) {
        const timed = [];
        for (let i = 0; i <= runs; i++) timed.push(await openTraceTimed(page, files[mb][i % 2]));
        const counted = timed.slice(1);
        const shown = counted.every((t) => t.shown);
        const t = median(counted.map((x) => x.ms));
        const stall = Math.max(...counted.map((x) => x.stall));
        console.log(`  ${label}, ${mb} MB: shown in median ${ms(t)} (${counted.map((x) => Math.round(x.ms)).join(', ')}; the uncounted first ${ms(timed[0].ms)}), longest stall ${ms(stall)}${shown ? '' : `, NOT SHOWN: ${counted.find((x) => !x.shown).said}`}`);
        if (here) continue;
        if (mb === 20) check('a 20 MB trace chosen until shown', '/profiling', ms(t), `≤ ${BUDGET.trace20} ms`, shown && t <= BUDGET.trace20);
        else check('longest stall while a 50 MB trace is read', '/profiling', ms(stall), `≤ ${BUDGET.traceStall} ms`, shown && stall <= BUDGET.traceStall);
      }
      await context.close();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
} catch (e) {
  fatal = e;
} finally {
  await env.close();
  await new Promise((r) => server.close(r));
}

// ---------------------------------------------------------------------------
// Summary.
console.log('\nSummary (every figure beside its budget)');
console.log(`  ${'figure'.padEnd(58)}${'page'.padEnd(20)}${'value'.padStart(22)}  ${'budget'.padEnd(22)}verdict`);
for (const x of results) {
  console.log(`  ${x.what.padEnd(58).slice(0, 58)}${x.page.padEnd(20).slice(0, 20)}${String(x.value).padStart(22)}  ${String(x.budget).padEnd(22).slice(0, 22)}${verdict(x.ok)}`);
}
const missed = results.filter((x) => !x.ok).length;
if (fatal) {
  console.log(`\nbenchmark stopped early: ${fatal.stack || fatal}`);
  process.exit(2);
}
console.log(missed ? `\n${missed} of ${results.length} budget(s) missed` : `\nall ${results.length} budgets met`);
process.exit(missed ? 1 : 0);
