// End-to-end tests of "side by side" (issue #19), second round: a second chip
// on the training roofline, beside the GPU cluster and in the serving Pareto
// chart, and a second model in the KV-cache calculator.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, verdictOf, offerAndChoose } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 5: a second chip on the training roofline shows its crossover and verdict', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'training');
  await ready(page);
  const widget = page.locator('[data-widget="training-roofline"]');
  await widget.scrollIntoViewIfNeeded();
  const table = widget.locator('[data-compare]');
  assert.equal(await table.count(), 0, 'nothing is compared until a chip is chosen');
  await widget.locator('select[data-vs]').selectOption('v5e');
  // FSDP turns compute-bound at α / M_X tokens per chip: 850 on the v5p
  // cube, 1,094 on the v5e pod (which cannot form a 16×16×16 cube).
  const boundary = table.locator('tr[data-row="boundary"]');
  assert.equal(await boundary.locator('td').first().textContent(), '850');
  assert.equal(await boundary.locator('[data-vs-value]').textContent(), '1,094');
  assert.equal(await table.locator('tr[data-row="mesh"] [data-vs-value]').textContent(), '16x16 (256 chips)');
  // At 1M tokens: 256 per chip on the cube, 4,096 per chip on the v5e pod.
  assert.equal(await verdictOf(page, 'training-roofline'), 'communication-bound');
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), 'compute-bound');
  const chart = await widget.locator('.plot .layer').first().innerHTML();
  assert.match(chart, /FSDP comms on TPU v5e/);
  assert.match(chart, /compute on TPU v5e/);
  await page.waitForFunction(() => location.search.includes('training-roofline.vs=v5e'));
  // A GPU has no ICI: refused with a notice, the comparison stays.
  await offerAndChoose(widget.locator('select[data-vs]'), 'h100');
  assert.match(await widget.locator('[data-notice]').textContent(), /h100/);
  assert.equal(await widget.locator('select[data-vs]').inputValue(), 'v5e');
  await widget.locator('select[data-vs]').selectOption('');
  assert.equal(await table.count(), 0);
  assert.equal(await widget.locator('[data-vs-verdict]').count(), 0);
  assert.doesNotMatch(await widget.locator('.plot .layer').first().innerHTML(), /on TPU v5e/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: a second GPU lays out the same job beside the first', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus?gpu.vs=gb200');
  await ready(page);
  const widget = page.locator('[data-widget="gpu"]');
  await widget.scrollIntoViewIfNeeded();
  assert.equal(await widget.locator('select[data-vs]').inputValue(), 'gb200');
  const table = widget.locator('[data-compare]');
  assert.match(await table.locator('thead').textContent(), /NVIDIA H100.*NVIDIA GB200 NVL72/);
  // 1,024 GPUs are 128 H100 nodes; on GB200 they round up to 15 racks of 72.
  const gpus = table.locator('tr[data-row="gpus"]');
  assert.equal(await gpus.locator('[data-vs-value]').textContent(), '1,080');
  const nodes = table.locator('tr[data-row="nodes"]');
  assert.equal(await nodes.locator('td').first().textContent(), '128');
  assert.equal(await nodes.locator('[data-vs-value]').textContent(), '15');
  assert.equal(await table.locator('tr[data-row="ridge"] td').first().textContent(), '296 FLOPs/B');
  // The compared GPU follows the job: 8 GPUs are one node of each.
  await widget.locator('input.gpus-text').fill('8');
  assert.equal(await nodes.locator('[data-vs-value]').textContent(), '1');
  // The H100 time inside one node is the widget's own.
  const own = await widget.locator('dd[data-scope="node"]').textContent();
  assert.equal(await table.locator('tr[data-row="in-node"] td').first().textContent(), own);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 7: a second model in the KV-cache calculator, and the batch that fits', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'inference');
  await ready(page);
  const widget = page.locator('[data-widget="kv-cache"]');
  await widget.scrollIntoViewIfNeeded();
  await widget.locator('select[data-vs]').selectOption('llama3-8b');
  const table = widget.locator('[data-compare]');
  // 2·8·128·80·2 bytes per token for 70B, 2·8·128·32·2 for 8B: 2.5× fewer,
  // so 80 sequences of 8B fit in the bytes of 32 of 70B.
  const token = table.locator('tr[data-row="token"]');
  assert.equal(await token.locator('td').first().textContent(), await widget.locator('[data-kv="token"]').textContent());
  assert.equal(await token.locator('[data-vs-value]').textContent(), '131 kB');
  assert.equal(await table.locator('tr[data-row="fits"] [data-vs-value]').textContent(), '80');
  await page.waitForFunction(() => location.search.includes('kv-cache.vs=llama3-8b'));
  await widget.locator('select[data-vs]').selectOption('');
  assert.equal(await table.count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 8: a second chip serves the same model with its frontier on the same axes', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-inference');
  await ready(page);
  const widget = page.locator('[data-widget="serving"]');
  await widget.scrollIntoViewIfNeeded();
  const chip = widget.locator('select').nth(1);
  const maxBatch = widget.locator('[data-serving="max-batch"]');
  // The widget's own largest batch on 16 v5p, read by choosing that chip.
  await chip.selectOption('v5p');
  const v5p = await maxBatch.textContent();
  await chip.selectOption('v5e');
  const v5e = await maxBatch.textContent();
  await widget.locator('select[data-vs]').selectOption('v5p');
  const row = widget.locator('[data-compare] tr[data-row="max-batch"]');
  assert.equal(await row.locator('td').first().textContent(), v5e);
  assert.equal(await row.locator('[data-vs-value]').textContent(), v5p);
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), await widget.locator('[data-compare] tr[data-row="verdict"] [data-vs-value]').textContent());
  assert.match(await widget.locator('.layer.pareto').innerHTML(), /on TPU v5p/);
  // Two v5p hold 70 GB of int8 weights; two v5e do not: the comparison is refused.
  await widget.locator('select[data-vs]').selectOption('');
  await chip.selectOption('v5p');
  await widget.locator('select.chips').selectOption('2');
  await widget.locator('select[data-vs]').selectOption('v5e');
  assert.match(await widget.locator('[data-notice]').textContent(), /TPU v5e \(compared\)/);
  assert.equal(await widget.locator('select[data-vs]').inputValue(), '');
  assert.deepEqual(problems, []);
  await context.close();
});
