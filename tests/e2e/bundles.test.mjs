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

test('a page fetches exactly its own bundle', async () => {
  for (const [slug, bundle, widget] of [
    ['rooflines', 'main', 'roofline'],
    ['sharding', 'sharding', 'sharding'],
    ['applied-training', 'training', 'training-planner'],
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
  // Part 5 → Part 6 (same bundle) → Part 7 (the inference bundle): documents.
  await page.locator('.pager a.next').click();
  await page.waitForSelector('[data-page="applied-training"]');
  await ready(page);
  await page.locator('.pager a.next').click();
  await page.waitForSelector('[data-page="inference"]');
  await ready(page);
  assert.match(await page.locator('h1').first().textContent(), /Transformer Inference/);
  await page.waitForSelector('[data-widget="inference-roofline"] [data-verdict]');
  assert.equal(seen.at(-1), 'inference', `${seen}`);
  assert.ok(seen.every((b) => b === 'training' || b === 'inference'), `${seen}`);
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
  assert.match(await page.locator('[data-progress-total]').textContent(), /^0 of 308$/);
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
