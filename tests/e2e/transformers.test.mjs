// End-to-end tests of the widgets on /transformers (Part 4): the Transformer
// calculator, the FLOPs counter, the layer diagram, the MoE layer, flash
// attention and gradient checkpointing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, verdictOf, num, near } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 4: the calculator shows LLaMA 3-70B at about 70.6B parameters and follows T', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'transformers');
  await ready(page);
  const widget = page.locator('[data-widget="transformer"]');
  assert.match(await widget.locator('[data-total-params]').textContent(), /^70\.6B$/);
  // The prose carries the same number, through a value directive.
  assert.match(await page.locator('main').textContent(), /70\.6B/);
  const split = widget.locator('[data-split]');
  assert.equal(await split.textContent(), 'At T = 8,192, a layer spends 71.2% of its FLOPs in the MLP, '
    + '15.3% in the Q/K/V/O projections and 13.6% in dot-product attention; training costs 4.81e11 FLOPs per token.');
  // At the slider's end (T = 2^22) attention's T-proportional FLOPs dominate.
  await widget.locator('input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.equal(await split.textContent(), 'At T = 4,194,304, a layer spends 1.01% of its FLOPs in the MLP, '
    + '0.217% in the Q/K/V/O projections and 98.8% in dot-product attention; training costs 3.34e13 FLOPs per token.');
  // Heads that do not divide: a notice, and the last valid model stays.
  await widget.locator('input.dim-k').fill('7');
  await widget.locator('input.dim-k').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /divide/);
  assert.match(await widget.locator('[data-total-params]').textContent(), /^70\.6B$/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 4: the FLOPs counter counts 2·B·D·F and points at a bad character', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'transformers');
  await ready(page);
  const widget = page.locator('[data-widget="flops-counter"]');
  await widget.scrollIntoViewIfNeeded();
  const forward = widget.locator('tr[data-step="0"] [data-flops]');
  near(num(await forward.textContent()), 2 * 4096 * 8192 * 28672, 'forward FLOPs');
  assert.equal(await widget.locator('[data-per-param-token]').textContent(), '6');
  // One token instead of 4,096: the forward FLOPs fall to 2·D·F.
  await widget.locator('input.in-sizes').fill('B=1 D=8192 F=28672');
  await widget.locator('input.in-sizes').press('Enter');
  near(num(await forward.textContent()), 2 * 8192 * 28672, 'forward FLOPs for one token');
  // A new letter gets a size the reader can see and change.
  await widget.locator('input.in-expr').fill('BTD,DF->BTF');
  await widget.locator('input.in-expr').press('Enter');
  assert.match(await widget.locator('input.in-sizes').inputValue(), /T=1024/);
  near(num(await forward.textContent()), 2 * 1024 * 8192 * 28672, 'forward FLOPs with T');
  // An output letter in neither operand: the message names byte 10, a caret
  // marks it, and the last valid counts stay.
  await widget.locator('input.in-expr').fill('BTD,DF->BTQ');
  await widget.locator('input.in-expr').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /byte 10/);
  assert.match(await widget.locator('pre.caret').textContent(), /\n {10}\^$/);
  near(num(await forward.textContent()), 2 * 1024 * 8192 * 28672, 'kept FLOPs');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 4: the layer diagram shows the chosen matmul for the chosen context', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'transformers');
  await ready(page);
  const widget = page.locator('[data-widget="layer-diagram"]');
  await widget.scrollIntoViewIfNeeded();
  const detail = widget.locator('[data-op-detail]');
  assert.equal(await detail.getAttribute('data-op-detail'), 'W_in');
  // LLaMA 3-70B's W_in is D × F = 8,192 × 28,672.
  assert.equal(await detail.locator('[data-params]').textContent(), '234,881,024');
  await widget.locator('button[data-op="W_Q"]').click();
  assert.equal(await detail.getAttribute('data-op-detail'), 'W_Q');
  assert.equal(await detail.locator('[data-params]').textContent(), '67,108,864');
  near(num(await detail.locator('[data-flops]').textContent()), 2 * 4096 * 8192 * 8192, 'W_Q FLOPs');
  // Twice the tokens, twice the FLOPs.
  await widget.locator('input.in-seq').fill('8192');
  await widget.locator('input.in-seq').press('Enter');
  near(num(await detail.locator('[data-flops]').textContent()), 2 * 8192 * 8192 * 8192, 'W_Q FLOPs at 8k');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 4: the MoE widget turns compute-bound with the batch and scales with E/k', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'transformers');
  await ready(page);
  const widget = page.locator('[data-widget="moe"]');
  await widget.scrollIntoViewIfNeeded();
  const critical = widget.locator('[data-critical]');
  const before = num(await critical.textContent());
  await widget.locator('#moe-tokens').focus();
  await page.keyboard.press('Home');
  assert.equal(await verdictOf(page, 'moe'), 'memory-bound');
  await page.keyboard.press('End');
  assert.equal(await verdictOf(page, 'moe'), 'compute-bound');
  // A quarter of the experts at the same k: a quarter of the critical batch.
  await widget.locator('input.in-e').fill('64');
  await widget.locator('input.in-e').press('Enter');
  near(num(await critical.textContent()), before / 4, 'critical batch with E = 64');
  // More active experts than experts: refused, and the field is put back.
  await widget.locator('input.in-k').fill('100');
  await widget.locator('input.in-k').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /between 1 and E/);
  assert.equal(await widget.locator('input.in-k').inputValue(), '8');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 4: flash attention steps block by block and ends equal to ordinary attention', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'transformers');
  await ready(page);
  const widget = page.locator('[data-widget="flash-attention"]');
  await widget.scrollIntoViewIfNeeded();
  const status = widget.locator('[data-block-status]');
  assert.match(await status.textContent(), /^Block 4 of 4 .*done/);
  await widget.locator('button[aria-label="previous block"]').click();
  assert.match(await status.textContent(), /^Block 3 of 4 .*covers 24 of 32 keys/);
  // 4·T·S·H FLOPs: twice the keys, twice the FLOPs.
  const costs = widget.locator('[data-costs]');
  assert.match(await costs.textContent(), /do 4,096 FLOPs/);
  await widget.locator('input.in-keys').fill('64');
  await widget.locator('input.in-keys').press('Enter');
  assert.match(await costs.textContent(), /do 8,192 FLOPs/);
  assert.deepEqual(problems, []);
  await context.close();
});

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
