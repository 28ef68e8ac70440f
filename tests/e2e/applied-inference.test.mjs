// End-to-end tests of the widgets on /applied-inference (Part 8): the
// latency-throughput Pareto curve and the notice for an impossible slice.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 8: the Pareto curve follows the sequence length; impossible slices get a notice', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-inference');
  await ready(page);
  const widget = page.locator('[data-widget="serving"]');
  await widget.scrollIntoViewIfNeeded();
  const chart = widget.locator('.layer.pareto');
  const maxBatch = widget.locator('[data-serving="max-batch"]');
  const before = await chart.screenshot();
  // LLaMA 3 70B on 16 v5e chips: the KV cache of each sequence grows with its
  // length, so fewer sequences fit beside the weights (core's numbers).
  assert.equal(await maxBatch.textContent(), '552');
  await widget.locator('input.seq').focus();
  await page.keyboard.press('End');
  const after = await chart.screenshot();
  assert.ok(!before.equals(after), 'the Pareto chart did not change');
  assert.equal(await maxBatch.textContent(), '138');
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
