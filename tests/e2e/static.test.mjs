// End-to-end tests of the static pages: every page reads completely without
// JavaScript (chapter text, every figure, the exercise questions), section
// links land on their section, and a widget's static figure and its live
// version agree.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { start, watchedPage, ready, DIST } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

// Every page the build wrote (index.html → '', rooflines.html → 'rooflines').
const ROUTES = fs.readdirSync(DIST)
  .filter((f) => f.endsWith('.html'))
  .map((f) => (f === 'index.html' ? '' : f.replace(/\.html$/, '')));

test('the build wrote a document for every route', () => {
  for (const r of ['', 'introduction', 'rooflines', 'tpus', 'sharding', 'transformers', 'training',
    'applied-training', 'inference', 'applied-inference', 'profiling', 'jax', 'conclusion', 'gpus',
    'progress', 'numbers', '404']) {
    assert.ok(ROUTES.includes(r), `no document for "${r}"`);
  }
  for (const r of ROUTES) {
    const html = fs.readFileSync(path.join(DIST, `${r || 'index'}.html`), 'utf8');
    assert.ok(!/<script(?![^>]*\bsrc=)[^>]*>/.test(html), `${r}: inline script`);
  }
});

test('without JavaScript every page shows its text, figures and exercise questions', async () => {
  const { page, context } = await watchedPage(env.browser, env.base, { javaScriptEnabled: false });
  for (const r of ROUTES.filter((r) => r !== '404')) {
    await page.goto(env.base + r);
    const main = page.locator('main');
    const text = (await main.innerText()).trim();
    assert.ok(text.length > 200, `${r}: only ${text.length} characters of text`);
    assert.ok(!/enable JavaScript/i.test(text), `${r}: asks for JavaScript`);
    // Every widget holds its figure: a chart, a diagram, a table or its numbers.
    const widgets = await page.locator('[data-widget]').all();
    for (const w of widgets) {
      const name = await w.getAttribute('data-widget');
      if (name.startsWith('exercise')) continue; // checked below, exercise by exercise
      const box = await w.boundingBox();
      assert.ok(box && box.height > 40, `${r}: widget ${name} is empty`);
      const figure = await w.locator('svg, table, [data-verdict], [data-facts], dl, pre, ol, ul').count();
      assert.ok(figure > 0, `${r}: widget ${name} has no static figure`);
      // …and what the reader reads off it: numbers, in the text or the drawing.
      assert.match(await w.innerText() + (await w.locator('svg text').allTextContents()).join(' '), /\d/,
        `${r}: widget ${name} shows no number`);
    }
    // Every exercise shows its question and its answer box.
    const exercises = await page.locator('[data-exercise]').all();
    for (const ex of exercises) {
      const id = await ex.getAttribute('data-exercise');
      assert.ok((await ex.innerText()).trim().length > 20, `${r}: exercise ${id} has no question`);
      assert.equal(await ex.locator('input').count(), 1, `${r}: exercise ${id}`);
    }
    if (r === 'rooflines') {
      assert.ok(widgets.length >= 2, 'rooflines has its widgets');
      assert.ok(exercises.length > 0, 'rooflines has its exercises');
      assert.ok((await page.locator('main math').count()) > 5, 'rooflines has its MathML');
    }
  }
  await context.close();
});

test('a #section link lands on the section', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, {
    viewport: { width: 1000, height: 700 },
  });
  const id = await (async () => {
    await page.goto(env.base + 'rooflines');
    return page.locator('nav.toc a').nth(2).getAttribute('href');
  })();
  const anchor = id.split('#')[1];
  await page.goto(env.base + id);
  await ready(page);
  const top = await page.locator(`[id="${anchor}"]`).evaluate((el) => el.getBoundingClientRect().top);
  assert.ok(Math.abs(top) < 80, `section ${anchor} is at ${top}px, not at the top`);
  assert.ok(await page.evaluate(() => window.scrollY) > 300);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Back and Forward keep the scroll position and the widget state', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const slider = page.locator('#roofline-b');
  await slider.focus();
  await page.keyboard.press('End');
  await page.waitForFunction(() => /roofline\.b=/.test(location.search));
  const verdict = await page.locator('[data-widget="roofline"] [data-verdict]').first().textContent();
  await page.evaluate(() => window.scrollTo(0, 900));
  await page.waitForTimeout(300);
  // Leave by the page's own next link without scrolling to it first.
  await page.evaluate(() => { location.href = document.querySelector('link[rel=next]').href; });
  await page.waitForSelector('[data-page="tpus"]');
  await page.goBack();
  await ready(page);
  assert.match(page.url(), /roofline\.b=/);
  assert.equal(await page.locator('[data-widget="roofline"] [data-verdict]').first().textContent(), verdict);
  const y = await page.evaluate(() => window.scrollY);
  assert.ok(Math.abs(y - 900) < 120, `scroll ${y} after Back`);
  await page.goForward();
  await page.waitForSelector('[data-page="tpus"]');
  assert.deepEqual(problems, []);
  await context.close();
});

test('each widget at its chapter defaults shows the same verdict and numbers static and live', async () => {
  const pick = async (page, w) => page.locator(`.island[data-island="${w}"]`).first().evaluate((el) => {
    const verdicts = [...el.querySelectorAll('[data-verdict]')].map((v) => v.textContent.trim());
    const numbers = [...el.querySelectorAll('dd, td, .verdict-line')].map((v) => v.textContent.trim());
    return { verdicts, numbers };
  });
  const cases = [['rooflines', 'roofline'], ['training', 'training-roofline'], ['inference', 'inference-roofline'],
    ['applied-inference', 'serving'], ['transformers', 'transformer'], ['gpus', 'gpu']];
  for (const [route, widget] of cases) {
    const off = await watchedPage(env.browser, env.base, { javaScriptEnabled: false });
    await off.page.goto(env.base + route);
    const still = await pick(off.page, widget);
    await off.context.close();
    const on = await watchedPage(env.browser, env.base);
    await on.page.goto(env.base + route);
    await ready(on.page);
    const live = await pick(on.page, widget);
    assert.ok(still.verdicts.length + still.numbers.length > 0, `${route}: ${widget} shows nothing static`);
    assert.deepEqual(live, still, `${route}: ${widget}`);
    assert.deepEqual(on.problems, [], route);
    await on.context.close();
  }
});

test('widgets show a sign until live, and no layout shift when they go live', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.addInitScript(() => {
    window.__cls = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
  });
  // Hold the wasm back so the static state can be seen.
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/_b/rooflines/*.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(env.base + 'rooflines');
  const sign = await page.locator('.island[data-island="roofline"] > .widget').evaluate(
    (el) => getComputedStyle(el, '::before').content,
  );
  assert.match(sign, /starting/);
  const before = await page.locator('.island[data-island="roofline"]').boundingBox();
  release();
  await ready(page);
  const after = await page.locator('.island[data-island="roofline"]').boundingBox();
  assert.ok(Math.abs(after.y - before.y) < 1 && Math.abs(after.height - before.height) < 2,
    `moved from ${JSON.stringify(before)} to ${JSON.stringify(after)}`);
  const cls = await page.evaluate(() => window.__cls);
  assert.ok(cls <= 0.02, `cumulative layout shift ${cls}`);
  assert.deepEqual(problems, []);
  await context.close();
});
