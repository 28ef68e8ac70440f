// End-to-end tests of the second round of in-depth widgets of Parts 0–3: the
// two rooflines, the slowest stage, the collective matmul, and streaming on
// the introduction.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 1: two rooflines, and the tile sets the matmul\'s verdict', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const w = page.locator('[data-widget="rooflines"]');
  await w.scrollIntoViewIfNeeded();
  const verdict = (a, m) => w.locator(`td[data-algorithm="${a}"][data-memory="${m}"] [data-verdict]`);
  // Intensity 100 on a v5e: below both ridges (240 and 120); the 1024-square tile above both.
  assert.equal(await verdict(0, 0).textContent(), 'memory-bound');
  assert.equal(await verdict(0, 1).textContent(), 'memory-bound');
  assert.equal(await verdict(1, 0).textContent(), 'compute-bound');
  assert.equal(await verdict(1, 1).textContent(), 'compute-bound');
  assert.equal(await w.locator('[data-tile-approx]').textContent(), '512');
  const chart = w.locator('.plot');
  const before = await chart.screenshot();
  // The slider's end is 5000 FLOPs per byte: compute-bound on both memories.
  await w.locator('input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.equal(await verdict(0, 0).textContent(), 'compute-bound');
  assert.equal(await verdict(0, 1).textContent(), 'compute-bound');
  assert.ok(!before.equals(await chart.screenshot()), 'the chart did not change');
  // A tile only 64 rows tall falls onto the slope.
  await w.locator('input[aria-label="tile side bm"]').fill('64');
  assert.equal(await verdict(1, 0).textContent(), 'memory-bound');
  assert.equal(await verdict(1, 1).textContent(), 'memory-bound');
  await w.locator('input[aria-label="tile side bm"]').fill('0');
  assert.match(await w.locator('[data-notice]').textContent(), /bm/);
  assert.equal(await verdict(1, 0).textContent(), 'memory-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 2: the challenge problem is paced by the gather onto one chip', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'tpus');
  await ready(page);
  const w = page.locator('[data-widget="slowest-stage"]');
  await w.scrollIntoViewIfNeeded();
  const verdict = w.locator('[data-verdict]');
  assert.equal(await verdict.textContent(), 'communication-bound');
  assert.equal(await w.locator('[data-slowest-stage]').textContent(), 'ICI');
  assert.equal(await w.locator('[data-bound]').textContent(), '179 ms');
  assert.equal(await w.locator('li[data-slowest="yes"]').getAttribute('data-stage'), 'ICI');
  // More pieces bring the total closer to the slowest stage.
  const total16 = await w.locator('[data-total]').textContent();
  await w.locator('input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.equal(await w.locator('[data-pieces]').textContent(), '64');
  assert.notEqual(await w.locator('[data-total]').textContent(), total16);
  // A batch in the thousands makes the MXU the slowest stage.
  await w.locator('input[aria-label="Batch "]').fill('8192');
  assert.equal(await verdict.textContent(), 'compute-bound');
  assert.equal(await w.locator('[data-slowest-stage]').textContent(), 'MXU');
  assert.equal(await w.locator('[data-bound]').textContent(), '1.43 s');
  await w.locator('input[aria-label="Slice "]').fill('4x4x4');
  assert.match(await w.locator('[data-notice]').textContent(), /2D torus/);
  assert.equal(await w.locator('[data-slowest-stage]').textContent(), 'MXU');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 3: the collective matmul steps round the ring', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'sharding');
  await ready(page);
  const w = page.locator('[data-widget="collective-matmul"]');
  await w.scrollIntoViewIfNeeded();
  const table = w.locator('table.cm-devices');
  assert.equal(await table.getAttribute('data-step'), '0');
  const row0 = w.locator('tr[data-device="0"]');
  assert.equal(await row0.locator('[data-multiplies]').textContent(), 'A0');
  assert.equal(await w.locator('[data-step-compute]').textContent(), '349 µs');
  assert.equal(await w.locator('[data-step-comms]').textContent(), '374 µs');
  await w.locator('button[aria-label="next step"]').click();
  assert.equal(await table.getAttribute('data-step'), '1');
  assert.equal(await row0.locator('[data-multiplies]').textContent(), 'A7, A1');
  assert.equal(await w.locator('[data-step-compute]').textContent(), '698 µs');
  assert.equal(await w.locator('[data-verdict]').textContent(), 'compute-bound');
  // One direction only: eight steps instead of five.
  await w.locator('input[type="checkbox"]').uncheck();
  assert.match(await w.locator('[data-position]').textContent(), /step 0 \/ 7/);
  // A thin B leaves the ring waiting on its transfers.
  const overlapped = await w.locator('[data-overlapped]').textContent();
  await w.locator('input[aria-label="columns of B per device, K"]').fill('64');
  assert.equal(await w.locator('[data-verdict]').textContent(), 'communication-bound');
  assert.notEqual(await w.locator('[data-overlapped]').textContent(), overlapped);
  await w.locator('input[aria-label="rows of A, I"]').fill('8191');
  assert.match(await w.locator('[data-notice]').textContent(), /divide/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 0: the introduction streams an elementwise product', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'introduction');
  await ready(page);
  const w = page.locator('[data-widget="streaming"]');
  await w.scrollIntoViewIfNeeded();
  assert.equal(await w.locator('[data-verdict]').textContent(), 'bandwidth-bound (HBM)');
  assert.equal(await w.locator('.chunk.done').count(), 0);
  await w.locator('button[aria-label="next step"]').click();
  assert.equal(await w.locator('.chunk.done').count(), 3);
  assert.deepEqual(problems, []);
  await context.close();
});
