// End-to-end tests of the widgets on /training (Part 5): the training
// roofline, the MLP roofline over fixed splits, the parallelism layout, the
// pipeline timeline and ZeRO.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, verdictOf, num, near } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 5: moving the batch with the keyboard flips the verdict', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'training');
  await ready(page);
  const widget = page.locator('[data-widget="training-roofline"]');
  assert.equal(await verdictOf(page, 'training-roofline'), 'communication-bound');
  assert.match(await widget.locator('[data-boundary]').textContent(), /850 per chip/);
  const slider = widget.locator('input[type="range"]');
  await slider.focus();
  await page.keyboard.press('End');
  assert.equal(await verdictOf(page, 'training-roofline'), 'compute-bound');
  await page.keyboard.press('Home');
  assert.equal(await verdictOf(page, 'training-roofline'), 'communication-bound');
  // A mesh larger than a pod: a notice, nothing else changes.
  await widget.locator('input.mesh-text').fill('28x28x28');
  await widget.locator('input.mesh-text').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /8,?960|slice/);
  assert.equal(await verdictOf(page, 'training-roofline'), 'communication-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 5: the MLP roofline steps through the splits of a mesh, in both plots', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'training');
  await ready(page);
  const widget = page.locator('[data-widget="mlp-roofline"]');
  // The book's ratio figure: FSDP alone crosses one at 850 tokens per chip,
  // the ideal mix near a hundred; at 1,000 per chip FSDP 16 × tensor 4 computes.
  assert.match(await widget.locator('svg').first().textContent(), /850[\s\S]*108|108[\s\S]*850/);
  assert.equal(await widget.locator('output.split').textContent(), 'FSDP 16 × tensor 4');
  assert.equal(await verdictOf(page, 'mlp-roofline'), 'compute-bound');
  assert.match(await widget.locator('[data-boundary]').textContent(), /319 per chip/);
  // The book's interactive figure: a 16×16×16 cube, F = 32,768, time per layer.
  await widget.locator('select.view').selectOption('time');
  await widget.locator('input.mesh-text').fill('16x16x16');
  await widget.locator('input.mesh-text').press('Enter');
  await widget.locator('input[aria-label="MLP width F"]').fill('32768');
  await widget.locator('input[aria-label="MLP width F"]').press('Enter');
  assert.equal(await widget.locator('table.splits tbody tr').count(), 13);
  assert.match(await widget.locator('svg').first().textContent(), /time per layer/);
  // Step the split with the keyboard to 512 × 8, then to 256 × 16, which no batch saves.
  const split = widget.locator('#mlp-roofline-split');
  await split.focus();
  await page.keyboard.press('Home');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await widget.locator('output.split').textContent(), 'FSDP 512 × tensor 8');
  assert.match(await widget.locator('[data-boundary]').textContent(), /435,200 tokens/);
  await page.keyboard.press('ArrowRight');
  assert.equal(await widget.locator('output.split').textContent(), 'FSDP 256 × tensor 16');
  assert.equal(await verdictOf(page, 'mlp-roofline'), 'communication-bound');
  assert.match(await widget.locator('[data-boundary]').textContent(), /never compute-bound/);
  // A width of zero: a notice, and the split stays.
  await widget.locator('input[aria-label="model width D"]').fill('0');
  await widget.locator('input[aria-label="model width D"]').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /D must be at least 1/);
  assert.equal(await widget.locator('output.split').textContent(), 'FSDP 256 × tensor 16');
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
