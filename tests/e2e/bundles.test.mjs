// End-to-end tests of the per-part bundles on the static pages: each page
// starts only the wasm of its own bundle; links between pages are ordinary
// documents; the progress and numbers pages and search work from every
// bundle; a bundle that cannot load leaves a readable page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

// The bundle folders of the wasm files the page fetched.
function wasmBundles(page) {
  const seen = [];
  page.on('request', (r) => {
    const m = new URL(r.url()).pathname.match(/^\/_b\/([a-z0-9-]+)\/[^/]+\.wasm$/);
    if (m) seen.push(m[1]);
  });
  return seen;
}

test('the reader\'s library starts only when the reader reaches its forms', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  const seen = wasmBundles(page);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  assert.deepEqual(seen, ['applied-training']);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.library), undefined);
  await page.locator('[data-widget="own-chip"]').scrollIntoViewIfNeeded();
  await page.waitForSelector(':root[data-library="live"]', { timeout: 20000 });
  await page.waitForSelector('[data-island="own-chip"][data-live]');
  assert.ok(seen.includes('library'), `${seen}`);
  assert.equal(seen.filter((b) => b === 'applied-training').length, 1, `${seen}`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a page fetches exactly its own bundle', async () => {
  for (const [slug, bundle, widget] of [
    // Home's live figure is Part 1's widget: home starts Part 1's bundle.
    ['', 'rooflines', 'roofline'],
    ['rooflines', 'rooflines', 'roofline'],
    ['sharding', 'sharding', 'sharding'],
    ['training', 'training', 'mlp-roofline'],
    ['applied-training', 'applied-training', 'training-planner'],
    ['gpus', 'gpus', 'gpu'],
  ]) {
    const { page, context, problems } = await watchedPage(env.browser, env.base);
    const seen = wasmBundles(page);
    await page.goto(env.base + slug);
    await ready(page);
    await page.waitForSelector(`[data-widget="${widget}"]`);
    assert.deepEqual(seen, [bundle], `${slug} fetched ${seen}`);
    assert.deepEqual(problems, [], slug);
    await context.close();
  }
});

test('links between parts are plain documents; each page starts its own bundle; Back keeps state', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  const seen = wasmBundles(page);
  await page.goto(env.base + 'training');
  await ready(page);
  // Part 5 → Part 6 → Part 7, each with a bundle of its own (Parts 5 and 6
  // together were over the first-load budget): documents.
  await page.locator('.pager a.next').click();
  await page.waitForSelector('[data-page="applied-training"]');
  await ready(page);
  await page.locator('.pager a.next').click();
  await page.waitForSelector('[data-page="inference"]');
  await ready(page);
  assert.match(await page.locator('h1').first().textContent(), /Transformer Inference/);
  await page.waitForSelector('[data-widget="inference-roofline"] [data-verdict]');
  assert.equal(seen.at(-1), 'inference', `${seen}`);
  // Clicking "next" at the foot of a page passes its problems (and Part 6's
  // own-model and own-chip forms), which starts the exercise checker (and the
  // reader's library) there; no other bundle is fetched.
  assert.ok(seen.every((b) => ['training', 'applied-training', 'inference', 'exercises', 'library'].includes(b)), `${seen}`);
  // Part 8 has a bundle of its own (Part 7's and 8's widgets together were over budget).
  await page.locator('.pager a.next').click();
  await page.waitForSelector('[data-page="applied-inference"]');
  await ready(page);
  await page.waitForSelector('[data-live] [data-widget="serving"]');
  assert.equal(seen.at(-1), 'applied-inference', `${seen}`);
  await page.goBack();
  await page.waitForSelector('[data-page="inference"]');
  // Back returns to Part 6 with its widget live again.
  await page.goBack();
  await page.waitForSelector('[data-page="applied-training"] [data-widget="training-planner"]');
  await ready(page);
  assert.deepEqual(problems, []);
  await context.close();
});

test('progress and numbers open from any bundle, and search reaches every part', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  const seen = wasmBundles(page);
  await page.goto(env.base + 'gpus');
  await ready(page);
  await page.locator('a.progress-link').click();
  await page.waitForSelector('[data-page="progress"] [data-progress-total]');
  assert.match(await page.locator('[data-progress-total]').textContent(), /^0 of 328$/);
  await page.goto(env.base + 'tpus');
  await ready(page);
  await page.locator('.site-footer a', { hasText: 'About the numbers' }).click();
  await page.waitForSelector('[data-page="numbers"]');
  // From the TPU bundle, search finds a GPU-only phrase and opens that part.
  await page.goto(env.base + 'tpus');
  await ready(page);
  await page.fill('#site-search', 'NVLink');
  const hit = page.locator('[data-search-results] a', { hasText: 'How to Think About GPUs' });
  await hit.click();
  await page.waitForSelector('[data-page="gpus"] [data-widget="gpu"]');
  assert.deepEqual(seen, ['gpus', 'main', 'tpus', 'main', 'tpus', 'gpus']);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a bundle that cannot be fetched leaves the page readable and says so', async () => {
  const { page, context } = await watchedPage(env.browser, env.base);
  await page.route('**/_b/tpus/*', (route) => route.abort());
  await page.goto(env.base + 'tpus');
  const status = page.locator('[data-islands-status]');
  await status.waitFor({ state: 'visible', timeout: 15000 });
  assert.match(await status.textContent(), /widgets could not start/);
  // The chapter and its figures are all there, as written at build time.
  assert.equal(await page.locator('main [data-page="tpus"]').count(), 1);
  assert.ok((await page.locator('main .prose').count()) > 0);
  assert.ok((await page.locator('[data-widget] svg, [data-widget] table').count()) > 0);
  await context.close();
});

test('unknown paths, also under a bundle\'s route, say "not found" without errors', async () => {
  for (const path of ['sharding/extra', 'no%20such%20page', 'gpus/a/b/c', '%F0%9F%A6%80']) {
    const { page, context, problems } = await watchedPage(env.browser, env.base);
    await page.goto(env.base + path);
    await page.waitForSelector('[data-page="not-found"]');
    assert.match(await page.locator('h1').first().textContent(), /Page not found/);
    assert.deepEqual(problems, [], path);
    await context.close();
  }
});

test('the exercise checker is a bundle of its own, started only when the reader reaches the problems', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  const seen = wasmBundles(page);
  // Hold the checker back for a moment, so that an answer can be typed into
  // the static problem first, as on a slow link.
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/_b/exercises/*.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(env.base + 'rooflines');
  await ready(page);
  await page.waitForTimeout(300);
  assert.deepEqual(seen, ['rooflines'], 'the first load fetched only the page\'s bundle');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.exercises), undefined);
  // Focusing a problem's answer box (keyboard) starts the checker; what the
  // reader types meanwhile is kept when the problem goes live.
  const card = page.locator('[data-exercise="ch1-q5"]');
  await card.scrollIntoViewIfNeeded();
  await page.waitForSelector(':root[data-exercises="loading"]');
  await card.locator('input.answer').focus();
  await page.keyboard.type('295');
  release();
  await page.waitForSelector(':root[data-exercises="live"]', { timeout: 20000 });
  assert.deepEqual(seen, ['rooflines', 'exercises']);
  assert.equal(await card.locator('input.answer').inputValue(), '295');
  await card.locator('button.check').click();
  assert.equal(await card.locator('[data-verdict]').getAttribute('data-verdict'), 'correct');
  // The page's own widgets stayed live beside the checker.
  await page.locator('[data-widget="roofline"] input.batch-text').first().fill('1500');
  assert.equal((await page.locator('[data-widget="roofline"] [data-verdict]').first().textContent()).trim(), 'compute-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a checker that cannot be fetched leaves the problems readable and says so', async () => {
  const { page, context } = await watchedPage(env.browser, env.base);
  await page.route('**/_b/exercises/*', (route) => route.abort());
  await page.goto(env.base + 'sharding');
  await ready(page);
  await page.locator('[data-exercise]').first().scrollIntoViewIfNeeded();
  await page.waitForSelector(':root[data-exercises="failed"]', { timeout: 15000 });
  const sign = await page.locator('.island[data-island^=exercise] > .widget').first()
    .evaluate((e) => getComputedStyle(e, '::before').content);
  assert.match(sign, /answers cannot be checked/);
  // Readable: each problem reads as it does with no script at all.
  const shown = await page.locator('[data-exercise]').allInnerTexts();
  const still = await watchedPage(env.browser, env.base, { javaScriptEnabled: false });
  await still.page.goto(env.base + 'sharding');
  const statik = await still.page.locator('[data-exercise]').allInnerTexts();
  await still.context.close();
  assert.ok(shown.length > 3, `${shown.length} problems`);
  assert.deepEqual(shown.map((t) => t.trim()), statik.map((t) => t.trim()));
  assert.match(shown[0], /\d/);
  await context.close();
});
