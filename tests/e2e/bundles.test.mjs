// End-to-end tests of the per-part bundles: each page starts only the wasm of
// its own bundle; moving within a bundle stays in the app, moving to another
// bundle's page is an ordinary navigation that starts that bundle; pages that
// only the default bundle carries (progress, numbers) and search work from
// every bundle.
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

test('links inside a bundle stay in the app; links to another bundle load it', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  const seen = wasmBundles(page);
  await page.goto(env.base + 'training');
  await ready(page);
  await page.evaluate(() => { window.stillHere = true; });
  // Part 5 → Part 6: both in the training bundle, no reload.
  await page.locator('.pager a.next').click();
  await page.waitForSelector('[data-page="applied-training"]');
  assert.equal(await page.evaluate(() => window.stillHere), true);
  // Part 6 → Part 7: the inference bundle, a real navigation.
  await page.locator('.pager a.next').click();
  await page.waitForSelector('[data-page="inference"]');
  assert.equal(await page.evaluate(() => window.stillHere), undefined);
  assert.match(await page.locator('h1').first().textContent(), /Transformer Inference/);
  await page.waitForSelector('[data-widget="inference-roofline"] [data-verdict]');
  // Back returns to Part 6, served by its own bundle again.
  await page.goBack();
  await page.waitForSelector('[data-page="applied-training"] [data-widget="training-planner"]');
  assert.deepEqual(seen, ['training', 'inference', 'training']);
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

test('a bundle that cannot be fetched leaves a message, not a blank page', async () => {
  const { page, context } = await watchedPage(env.browser, env.base);
  await page.route('**/_b/tpus/*.wasm', (route) => route.abort());
  await page.goto(env.base + 'tpus');
  const message = page.locator('[data-load-error]');
  await message.waitFor({ timeout: 15000 });
  assert.match(await message.textContent(), /could not load the code for this page/);
  assert.equal(await page.locator('main [data-page]').count(), 0);
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
