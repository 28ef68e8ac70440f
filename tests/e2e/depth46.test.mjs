// End-to-end tests of the Parts 4-6 depth widgets: the FLOPs counter, the
// layer diagram, the MoE layer and flash attention (Part 4), the parallelism layout and the pipeline timeline
// (Part 5), and the training planner's refused choices (Part 6).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, verdictOf } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

// A number the widgets print with `sci` (`1.924e12`, `27.3`), as a float.
function num(text) {
  return parseFloat(text.replace(/,/g, ''));
}

function near(actual, expected, what) {
  assert.ok(Math.abs(actual / expected - 1) < 2e-3, `${what}: ${actual} is not ${expected}`);
}

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

test('Part 5: the parallelism layout follows the strategy, the batch and the step', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'training');
  await ready(page);
  const widget = page.locator('[data-widget="parallelism-layout"]');
  await widget.scrollIntoViewIfNeeded();
  assert.equal(await verdictOf(page, 'parallelism-layout'), 'compute-bound');
  assert.equal(await widget.locator('[data-array="W_in"] [data-spec]').textContent(), 'W_in[D_X, F_Y]');
  // Sixteen tokens per data shard: the weight gathers cannot hide.
  await widget.locator('#parallelism-layout-b').focus();
  await page.keyboard.press('Home');
  assert.equal(await verdictOf(page, 'parallelism-layout'), 'communication-bound');
  await page.keyboard.press('End');
  assert.equal(await verdictOf(page, 'parallelism-layout'), 'compute-bound');
  // Data parallelism: whole weights, two gradient AllReduces and nothing forward.
  await widget.locator('select').first().selectOption('dp');
  assert.equal(await widget.locator('[data-array="W_in"] [data-spec]').textContent(), 'W_in[D, F]');
  assert.equal(await widget.locator('tr[data-collective="AllReduce"]').count(), 2);
  assert.match(await widget.locator('[data-forward-times]').textContent(), /collectives 0 s/);
  // Stepping moves the highlighted row and its description.
  const detail = widget.locator('[data-step-detail]');
  assert.match(await detail.textContent(), /^Step 1 \(forward\)/);
  await widget.locator('button[aria-label="next step"]').click();
  assert.match(await detail.textContent(), /^Step 2 \(forward\)/);
  await widget.locator('button[aria-label="next step"]').click();
  assert.match(await detail.textContent(), /^Step 3 \(backward\)/);
  // A tensor degree that does not divide the chips is refused and put back.
  await widget.locator('select').first().selectOption('fsdp-tp');
  await widget.locator('input.in-tp').fill('3');
  await widget.locator('input.in-tp').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /divide/);
  assert.equal(await widget.locator('input.in-tp').inputValue(), '4');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 5: the pipeline timeline shows each schedule\'s bubble', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'training');
  await ready(page);
  const widget = page.locator('[data-widget="pipeline"]');
  await widget.scrollIntoViewIfNeeded();
  const bubble = widget.locator('[data-bubble]');
  // (S − 1)/(M + S − 1) = 3/11 for 1F1B with S = 4, M = 8.
  near(num(await bubble.textContent()), 100 * 3 / 11, '1F1B bubble');
  assert.equal(await widget.locator('svg.pipeline-timeline rect').count(), 64);
  assert.match(await widget.locator('[data-in-flight]').textContent(), /^4 /);
  await widget.locator('select').selectOption('gpipe');
  assert.match(await widget.locator('[data-in-flight]').textContent(), /^8 /);
  await widget.locator('select').selectOption('interleaved');
  near(num(await bubble.textContent()), 100 * 3 / 19, 'interleaved bubble');
  assert.equal(await widget.locator('svg.pipeline-timeline rect').count(), 128);
  // Three stages do not divide eight microbatches: refused, and the field is put back.
  await widget.locator('input.in-stages').fill('3');
  await widget.locator('input.in-stages').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /multiple/);
  assert.equal(await widget.locator('input.in-stages').inputValue(), '4');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 6: a refused plan or tensor degree is put back in the planner', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  const widget = page.locator('[data-widget="training-planner"]');
  await widget.scrollIntoViewIfNeeded();
  await widget.locator('input.in-tp').fill('3');
  await widget.locator('input.in-tp').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /tensor degree 3/);
  assert.equal(await widget.locator('input.in-tp').inputValue(), '4');
  // On a four-chip slice, four-way tensor parallelism leaves no FSDP: refused,
  // and the plan select shows the plan still in force.
  const plan = widget.locator('select').nth(2);
  await plan.selectOption('fsdp');
  await widget.locator('input.in-slice').fill('4');
  await widget.locator('input.in-slice').press('Enter');
  await plan.selectOption('fsdp-tp');
  assert.match(await widget.locator('[data-notice]').textContent(), /tensor degree 4/);
  assert.equal(await plan.inputValue(), 'fsdp');
  assert.deepEqual(problems, []);
  await context.close();
});
