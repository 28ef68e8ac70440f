// End-to-end tests of issue 16's second round: the gradient-checkpointing and
// ZeRO widgets, the transformer calculator's stale marker and the training
// roofline's refused strategy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, verdictOf } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 4: the remat widget trades activation memory for recomputed FLOPs', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'transformers');
  await ready(page);
  const widget = page.locator('[data-widget="remat"]');
  const memory = widget.locator('[data-remat-memory]');
  const extra = widget.locator('[data-remat-extra]');
  // One 4,096-token sequence of LLaMA 3-70B, per-layer checkpoints: 80 layer
  // inputs plus one layer's 20 intermediates, 2·4096·8192·100 bytes.
  assert.equal(await memory.textContent(), '6.71 GB');
  assert.equal(await verdictOf(page, 'remat'), 'fits');
  // Saving everything: 2·20·B·T·D·L = 107 GB, more than a v5p holds, nothing recomputed.
  await widget.locator('select.remat-policy').selectOption('none');
  assert.equal(await memory.textContent(), '107 GB');
  assert.equal(await extra.textContent(), '0%');
  assert.equal(await verdictOf(page, 'remat'), 'does not fit');
  // Eight chips divide it.
  await widget.locator('input.remat-chips').fill('8');
  await widget.locator('input.remat-chips').press('Enter');
  assert.equal(await memory.textContent(), '13.4 GB');
  assert.equal(await verdictOf(page, 'remat'), 'fits');
  // A refused batch keeps the last valid numbers and says why.
  await widget.locator('input.remat-batch').fill('0');
  await widget.locator('input.remat-batch').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /batch/);
  assert.equal(await memory.textContent(), '13.4 GB');
  assert.equal(await widget.locator('tbody tr').count(), 4);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 4: a refused shape marks the calculator stale until a valid one returns', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'transformers');
  await ready(page);
  const widget = page.locator('[data-widget="transformer"]');
  const results = widget.locator('.results');
  assert.equal(await results.getAttribute('data-stale'), null);
  await widget.locator('input.dim-k').fill('7');
  await widget.locator('input.dim-k').press('Enter');
  assert.equal(await results.getAttribute('data-stale'), '');
  assert.match(await widget.locator('[data-stale-note]').textContent(), /last valid shape \(D = 8,192.*K = 8/);
  assert.ok(await widget.locator('[data-stale-note]').isVisible());
  await widget.locator('input.dim-k').fill('16');
  await widget.locator('input.dim-k').press('Enter');
  assert.equal(await results.getAttribute('data-stale'), null);
  assert.ok(!(await widget.locator('[data-stale-note]').isVisible()));
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 5: the ZeRO widget splits the state stage by stage', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'training');
  await ready(page);
  const widget = page.locator('[data-widget="zero"]');
  const state = widget.locator('[data-zero-state]');
  const comms = widget.locator('[data-zero-comms]');
  // LLaMA 3-70B, mixed-precision Adam, ZeRO-1 over 64 chips: (4 + 12/64) bytes
  // per parameter, and the gradients' AllReduce, 4 bytes per parameter.
  assert.equal(await state.textContent(), '295 GB');
  assert.equal(await comms.textContent(), '282 GB');
  assert.equal(await verdictOf(page, 'zero'), 'does not fit');
  // ZeRO-3: 16/64 bytes per parameter, and half as much traffic again.
  await widget.locator('select.zero-stage').selectOption('3');
  assert.equal(await state.textContent(), '17.6 GB');
  assert.equal(await comms.textContent(), '423 GB');
  assert.equal(await verdictOf(page, 'zero'), 'fits');
  await widget.locator('input.zero-chips').fill('128');
  await widget.locator('input.zero-chips').press('Enter');
  assert.equal(await state.textContent(), '8.82 GB');
  assert.equal(await widget.locator('tr.selected').getAttribute('data-stage'), '3');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 5: choosing tensor parallelism on a pod is refused and the verdict names FSDP', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'training');
  await ready(page);
  const widget = page.locator('[data-widget="training-roofline"]');
  const line = widget.locator('.verdict-line');
  assert.match(await line.textContent(), /FSDP/);
  await widget.locator('select.scheme').selectOption('tp');
  assert.match(await widget.locator('[data-notice]').textContent(), /only 64 heads.*stays with FSDP/);
  assert.equal(await widget.locator('select.scheme').inputValue(), 'fsdp');
  assert.match(await line.textContent(), /FSDP/);
  assert.equal(await verdictOf(page, 'training-roofline'), 'communication-bound');
  assert.deepEqual(problems, []);
  await context.close();
});
