// Robustness sweep: every page opened with random and malicious URL parameters
// for the widgets on it. Nothing may panic, throw, open a dialog or inject an
// element; the page still renders, and a widget given a bad value says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { start, watchedPage, ready, readyExercises, ROOT, pageSlugs, readyLibrary } from './lib.mjs';

const URLS_PER_PAGE = 6;

// The widgets and the arguments each accepts, from the one table of them.
const SPECS = (() => {
  const src = fs.readFileSync(path.join(ROOT, 'content/src/widgets.rs'), 'utf8');
  const out = new Map();
  for (const m of src.matchAll(/name:\s*"([^"]+)",\s*args:\s*&\[([^\]]*)\]/g)) {
    out.set(m[1], [...m[2].matchAll(/"([^"]+)"/g)].map((a) => a[1]));
  }
  return out;
})();

const BAD = [
  '-1', 'NaN', '1e999', '-1e999', '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>',
  'A[I_X,J_X]', 'x'.repeat(5000), 'ünïcødé ∑ 😀 \u202e', '', '0x10', '   ', '1/0', '%00',
];

// mulberry32: a small fixed-seed generator, so every run sweeps the same URLs.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(0x5eed_2026);
const pick = (xs) => xs[Math.floor(random() * xs.length)];
// A bad value for a widget's argument `key`: a blank `vs` is not bad but
// "compare with nothing" (what the picker's first choice writes).
const badFor = (key, list = BAD) => pick(key === 'vs' ? list.filter((b) => b.trim() !== '') : list);

let env;
let slugs;
before(async () => {
  env = await start();
  slugs = await pageSlugs(env);
});
after(async () => { await env.close(); });

// Loads one URL and checks everything the sweep promises; returns what failed.
async function visit(url, expectNotices) {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  page.on('dialog', async (d) => { problems.push(`dialog: ${d.message()}`); await d.dismiss(); });
  const failures = [];
  const where = url.replace(env.base, '/').slice(0, 200);
  try {
    await page.goto(url);
    await ready(page);
    await page.waitForTimeout(150);
    if (!(await page.locator('main h1').first().isVisible())) failures.push('no h1');
    const injected = await page.evaluate(() => document.querySelectorAll('img[src="x"], [onerror], script:not([src])').length);
    if (injected) failures.push(`${injected} injected element(s)`);
    for (const selector of expectNotices) {
      // A problem's notice is the checker's: reach the problem to start it.
      if (/^\[data-(exercise=|widget="exercises?")/.test(selector)) await readyExercises(page, selector);
      // The own-model and own-chip forms are the library bundle's: reach them to start it.
      if (/^\[data-widget="own-(model|chip)"/.test(selector)) await readyLibrary(page, selector);
      const roots = page.locator(selector);
      const n = await roots.count();
      if (!n) failures.push(`${selector} is missing`);
      for (let i = 0; i < n; i++) {
        const visible = await roots.nth(i).locator('[data-notice]').filter({ visible: true }).count();
        if (!visible) failures.push(`no visible [data-notice] in ${selector} #${i}`);
      }
    }
  } catch (e) {
    failures.push(`error: ${e.message.split('\n')[0]}`);
  }
  failures.push(...problems);
  await context.close();
  return failures.map((f) => `${where}: ${f}`);
}

test('every page survives random and malicious URL parameters', async () => {
  let visited = 0;
  const failures = [];
  for (const slug of slugs) {
    // What is on the page without parameters.
    const { page, context } = await watchedPage(env.browser, env.base);
    await page.goto(env.base + slug);
    await ready(page);
    const widgets = [...new Set(await page.locator('[data-widget]').evaluateAll((es) => es.map((e) => e.dataset.widget)))];
    const exercises = await page.locator('[data-exercise]').evaluateAll((es) => es.map((e) => e.dataset.exercise));
    await context.close();
    const targets = widgets.filter((w) => (SPECS.get(w) || []).length > 0);

    for (let i = 0; i < URLS_PER_PAGE; i++) {
      const params = new URLSearchParams();
      const expect = [];
      if (targets.length) {
        const w = targets[i % targets.length];
        const keys = SPECS.get(w);
        const count = 1 + Math.floor(random() * Math.min(2, keys.length));
        for (let k = 0; k < count; k++) {
          const key = pick(keys);
          params.set(`${w}.${key}`, badFor(key));
        }
        expect.push(`[data-widget="${w}"]`);
      }
      if (widgets.length && random() < 0.5) params.set(`${pick(widgets)}.no-such-key`, pick(BAD));
      if (random() < 0.3) params.set(`no-such-widget.${pick(['b', 'chip', 'x'])}`, pick(BAD));
      if (exercises.length && (i % 2 === 1 || !targets.length)) {
        const id = pick(exercises);
        params.set(`${id}.seed`, pick(['-1', 'NaN', '0', '1e999', 'abc', '<b>x</b>', '18446744073709551616']));
        expect.push(`[data-exercise="${id}"]`);
      }
      failures.push(...(await visit(`${env.base}${slug}?${params}`, expect)));
      visited++;
    }
  }
  assert.ok(visited >= slugs.length * URLS_PER_PAGE);
  assert.deepEqual(failures, []);
});

test('every argument of every widget, given a bad value drawn from the list, shows a notice and no panic', async () => {
  // Every widget's every argument once, with one value drawn at random from
  // the bad list (a different draw each run), on the first page that holds it.
  const home = new Map();
  const failures = [];
  for (const slug of slugs) {
    const { page, context } = await watchedPage(env.browser, env.base);
    await page.goto(env.base + slug);
    await ready(page);
    for (const w of await page.locator('[data-widget]').evaluateAll((es) => es.map((e) => e.dataset.widget))) {
      if (!home.has(w)) home.set(w, slug);
    }
    await context.close();
  }
  // Widgets are independent, so one visit of a page gives each of its
  // widgets one bad argument at once (its k-th on the k-th visit): a page
  // takes as many visits as its widget with the most arguments, not one per
  // argument (about a third of the loads, and of CI's minutes).
  const byPage = new Map();
  for (const [w, slug] of home) {
    if ((SPECS.get(w) || []).length) byPage.set(slug, [...(byPage.get(slug) || []), w]);
  }
  const short = BAD.filter((b) => b.length < 100);
  for (const [slug, widgets] of byPage) {
    const rounds = Math.max(...widgets.map((w) => SPECS.get(w).length));
    for (let k = 0; k < rounds; k++) {
      const params = new URLSearchParams();
      const expect = [];
      for (const w of widgets) {
        const key = SPECS.get(w)[k];
        if (key === undefined) continue;
        params.set(`${w}.${key}`, badFor(key, short));
        expect.push(`[data-widget="${w}"]`);
      }
      failures.push(...(await visit(`${env.base}${slug}?${params}`, expect)));
    }
  }
  assert.deepEqual(failures, []);
});
