// End-to-end tests of Parts 7, 8 and 12: inference on a roofline, serving
// LLaMA 3-70B, and GPU clusters.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 7: the batch flips the MLP verdict while attention stays memory-bound', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'inference');
  await ready(page);
  const widget = page.locator('[data-widget="inference-roofline"]');
  const linear = widget.locator('[data-component="linear"][data-verdict]');
  const attention = widget.locator('[data-component="attention"][data-verdict]');
  assert.equal(await linear.textContent(), 'memory-bound');
  assert.equal(await attention.textContent(), 'memory-bound');
  // Keyboard: End takes the batch slider to its largest value.
  await widget.locator('input.batch').focus();
  await page.keyboard.press('End');
  assert.equal(await linear.textContent(), 'compute-bound');
  assert.equal(await attention.textContent(), 'memory-bound');
  // Drag: the slider's left end brings the MLP back below the ridge.
  const box = await widget.locator('input.batch').boundingBox();
  await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 2, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  assert.equal(await linear.textContent(), 'memory-bound');
  assert.equal(await attention.textContent(), 'memory-bound');
  // A context longer than the model's is refused with a notice.
  await widget.locator('input.seq-text').fill('100000');
  assert.match(await widget.locator('[data-notice]').textContent(), /context/);
  // The KV-cache calculator: GQA is 8x smaller than MHA for this model.
  const kv = page.locator('[data-widget="kv-cache"]');
  assert.match(await kv.locator('[data-kv="reduction"]').textContent(), /^8×/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 8: the Pareto curve follows the sequence length; impossible slices get a notice', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-inference');
  await ready(page);
  const widget = page.locator('[data-widget="serving"]');
  await widget.scrollIntoViewIfNeeded();
  const chart = widget.locator('.layer.pareto');
  const maxBatch = widget.locator('[data-serving="max-batch"]');
  const before = await chart.screenshot();
  const batchBefore = await maxBatch.textContent();
  await widget.locator('input.seq').focus();
  await page.keyboard.press('End');
  const after = await chart.screenshot();
  assert.ok(!before.equals(after), 'the Pareto chart did not change');
  assert.notEqual(await maxBatch.textContent(), batchBefore);
  // Weights in bf16 on one chip: refused, with the reason.
  await widget.locator('select.chips').selectOption('1');
  const notice = widget.locator('[data-notice]');
  assert.match(await notice.textContent(), /weights alone/);
  assert.equal(await widget.locator('select.chips').inputValue(), '16');
  // The minimum-topology table comes from core.
  const table = page.locator('[data-widget="min-topology"]');
  assert.equal(await table.locator('tr[data-dtype="bf16"] [data-slice]').textContent(), '16');
  assert.equal(await table.locator('tr[data-dtype="int4"] [data-slice]').textContent(), '4');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: crossing nodes costs more than staying inside one', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="gpu"]');
  const seconds = async (scope) => Number(await widget.locator(`[data-scope="${scope}"]`).getAttribute('data-seconds'));
  assert.ok(await seconds('network') > await seconds('node'));
  assert.match(await widget.locator('[data-facts]').textContent(), /128 nodes of 8/);
  await widget.locator('input[type="range"]').focus();
  await page.keyboard.press('ArrowRight');
  assert.match(await widget.locator('[data-facts]').textContent(), /2,048 GPUs/);
  assert.ok(await seconds('network') > await seconds('node'));
  await widget.locator('input.gpus-text').fill('12');
  assert.match(await widget.locator('[data-notice]').textContent(), /multiple of 8/);
  assert.equal(await widget.locator('table.compare tbody tr').count(), 5);
  assert.deepEqual(problems, []);
  await context.close();
});
