// End-to-end tests of the Parts 7, 9 and 10 widgets: the serving engine and
// speculative sampling (inference), the XLA op reader (profiling) and the
// collective-matmul timelines (jax). Each changes a control and checks that a
// number the reader sees changes to the value core computes natively.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 7: the serving engine reruns when the batching policy changes', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'inference');
  await ready(page);
  const w = page.locator('[data-widget="serving-engine"]');
  await w.scrollIntoViewIfNeeded();
  const throughput = w.locator('[data-throughput]');
  const batch = w.locator('[data-mean-batch]');
  assert.equal(await throughput.textContent(), '621');
  assert.equal(await batch.textContent(), '38.7');
  assert.equal(await w.locator('[data-ttft-p50]').textContent(), '7.46 ms');
  const chart = w.locator('.plot .layer');
  const before = await chart.innerHTML();
  // Static batching leaves slots empty while a batch drains.
  await w.locator('select').nth(1).selectOption('static');
  assert.equal(await batch.textContent(), '29.9');
  assert.equal(await throughput.textContent(), '525');
  assert.notEqual(await chart.innerHTML(), before);
  // Interleaved on one 4-chip replica: prefills wait behind decode steps.
  await w.locator('select').nth(1).selectOption('continuous');
  await w.locator('select').nth(0).selectOption('interleaved');
  assert.equal(await w.locator('[data-ttft-p50]').textContent(), '660 ms');
  assert.match(await chart.innerHTML(), /replica 1/);
  // A prefix cache too large for the chips is refused, the run stays.
  await w.locator('input[aria-label^="prefix cache"]').fill('9000000');
  assert.match(await w.locator('[data-notice]').textContent(), /prefix cache/);
  assert.equal(await w.locator('[data-ttft-p50]').textContent(), '660 ms');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 7: speculative sampling follows the draft length', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'inference');
  await ready(page);
  const w = page.locator('[data-widget="speculative"]');
  await w.scrollIntoViewIfNeeded();
  assert.equal(await w.locator('[data-tokens]').textContent(), '3.36');
  assert.equal(await w.locator('[data-speedup]').textContent(), '2.80×');
  assert.equal(await w.locator('[data-best]').textContent(), '8');
  assert.equal(await w.locator('[data-simulated]').textContent(), '3.35');
  const k = w.locator('#speculative-draft');
  await k.focus();
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await w.locator('[data-draft]').textContent(), 'k = 8');
  assert.equal(await w.locator('[data-tokens]').textContent(), '4.33');
  assert.equal(await w.locator('[data-speedup]').textContent(), '3.09×');
  assert.equal(await w.locator('[data-round]').textContent(), '1.40');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 9: the XLA op reader pads, costs and points at bad syntax', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'profiling');
  await ready(page);
  const w = page.locator('[data-widget="xla-op"]');
  await w.scrollIntoViewIfNeeded();
  assert.equal(await w.locator('[data-collective]').textContent(), 'reduce-scatter');
  assert.equal(await w.locator('[data-bytes]').textContent(), '25.17 MB');
  await w.locator('select').first().selectOption({ label: 'a small padded add' });
  assert.equal(await w.locator('[data-padded]').textContent(), '[4,6]');
  assert.equal(await w.locator('[data-bytes]').textContent(), '180 B');
  const line = w.locator('textarea');
  await line.fill('%add.7 = f32[3,7]{1,0:T(2,2)} add(f32[3,7]{1,0:T(2,2)} %a, f32[3,7]{1,0:T(2,2)} %b)');
  assert.equal(await w.locator('[data-padded]').textContent(), '[4,8]');
  assert.equal(await w.locator('[data-flops]').textContent(), '21');
  // Broken syntax: the message names the character, the last op stays.
  await line.fill('%x = f32[3,5}');
  assert.match(await w.locator('[data-notice]').textContent(), /^at character 13: .*⟨}⟩/);
  assert.equal(await w.locator('[data-padded]').textContent(), '[4,8]');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 10: the collective matmul timelines follow the mesh', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'jax');
  await ready(page);
  const w = page.locator('[data-widget="overlap-timeline"]');
  await w.scrollIntoViewIfNeeded();
  assert.equal(await w.locator('[data-blocking]').textContent(), '45.1 µs');
  assert.equal(await w.locator('[data-overlapped]').textContent(), '40.7 µs');
  assert.equal(await w.locator('[data-matmul]').textContent(), '21.8 µs');
  const chart = w.locator('.plot .layer');
  const before = await chart.innerHTML();
  // Eight chips on Y: smaller chunks, and each hop's latency sets the loop's pace.
  await w.locator('select').nth(1).selectOption('8');
  assert.equal(await w.locator('[data-blocking]').textContent(), '34.2 µs');
  assert.equal(await w.locator('[data-overlapped]').textContent(), '43 µs');
  assert.notEqual(await chart.innerHTML(), before);
  await w.locator('input[aria-label="contracting dimension D"]').fill('2047');
  assert.match(await w.locator('[data-notice]').textContent(), /not divisible/);
  assert.equal(await w.locator('[data-blocking]').textContent(), '34.2 µs');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 7: the KV cache sharded over batch shrinks per chip as Z grows', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'inference');
  await ready(page);
  const w = page.locator('[data-widget="kv-sharding"]');
  await w.scrollIntoViewIfNeeded();
  assert.equal(await w.locator('tbody tr').count(), 12);
  assert.equal(await w.locator('tbody tr[data-kind="AllToAll over Z"]').count(), 2);
  assert.equal(await w.locator('[data-kv-per-chip]').textContent(), '33.6 MB');
  assert.equal(await w.locator('[data-ratio]').textContent(), '4×');
  const z = w.locator('input[aria-label="mesh axis Z, sharding the batch"]');
  await z.fill('8');
  assert.equal(await w.locator('[data-kv-per-chip]').textContent(), '16.8 MB');
  assert.equal(await w.locator('[data-ratio]').textContent(), '8×');
  // Z must divide the batch and the query heads per KV head.
  await z.fill('3');
  assert.match(await w.locator('[data-notice]').textContent(), /does not divide/);
  assert.equal(await w.locator('[data-kv-per-chip]').textContent(), '16.8 MB');
  // Stepping moves the highlighted row.
  await w.locator('#kv-sharding-step').focus();
  await page.keyboard.press('End');
  assert.equal(await w.locator('tbody tr.current td').first().textContent(), '12');
  assert.deepEqual(problems, []);
  await context.close();
});
