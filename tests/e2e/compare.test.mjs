// End-to-end tests of "side by side" (issue #19): a second chip on the
// roofline's axes, a link that carries it, and a second model in the
// training planner and the Transformer calculator.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, verdictOf, offerAndChoose } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 1: a second chip on the roofline shows its ridge and its own verdict', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const widget = page.locator('[data-widget="roofline"]').first();
  const table = widget.locator('[data-compare]');
  assert.equal(await table.count(), 0, 'nothing is compared until a chip is chosen');
  await widget.locator('select[data-vs]').selectOption('h100');
  // Core's ridges: 1.97e14 / 8.2e11 ≈ 240 on v5e, 9.9e14 / 3.35e12 ≈ 296 on H100.
  const ridge = table.locator('tr[data-row="ridge"]');
  assert.equal(await ridge.locator('td').first().textContent(), '240 FLOPs/B');
  assert.equal(await ridge.locator('[data-vs-value]').textContent(), '296 FLOPs/B');
  assert.equal(await table.locator('tr[data-row="peak"] td').last().textContent(), '5.03×');
  // Both chips' ridges are labelled on the chart.
  const chart = await widget.locator('.layer').first().innerHTML();
  assert.match(chart, /NVIDIA H100: HBM ridge 296 FLOPs\/B/);
  // At B = 300 the matmul is past v5e's ridge and short of H100's.
  await widget.locator('input.batch-text').fill('300');
  assert.equal(await verdictOf(page, 'roofline'), 'compute-bound');
  const vs = widget.locator('[data-vs-verdict]');
  assert.equal(await vs.textContent(), 'memory-bound');
  await widget.locator('input.batch-text').fill('400');
  assert.equal(await vs.textContent(), 'compute-bound');
  await page.waitForFunction(() => location.search.includes('roofline.vs=h100'));
  // An unknown chip is refused with a notice; the comparison stays.
  await offerAndChoose(widget.locator('select[data-vs]'), 'h900');
  assert.match(await widget.locator('[data-notice]').textContent(), /h900/);
  assert.equal(await widget.locator('select[data-vs]').inputValue(), 'h100');
  assert.equal(await ridge.locator('[data-vs-value]').textContent(), '296 FLOPs/B');
  // "nothing" takes the comparison away.
  await widget.locator('select[data-vs]').selectOption('');
  assert.equal(await table.count(), 0);
  assert.equal(await widget.locator('[data-vs-verdict]').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 1: a link with vs= opens with the second chip drawn and compared', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines?roofline.vs=b200&roofline.b=64');
  await ready(page);
  const widget = page.locator('[data-widget="roofline"]').first();
  assert.equal(await widget.locator('select[data-vs]').inputValue(), 'b200');
  const table = widget.locator('[data-compare]');
  assert.match(await table.locator('thead').textContent(), /TPU v5e.*NVIDIA B200/);
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), 'memory-bound');
  assert.match(await widget.locator('.layer').first().innerHTML(), /NVIDIA B200: HBM ridge/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 6: a second model in the planner shows its own plan beside the first', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  const widget = page.locator('[data-widget="training-planner"]');
  await widget.scrollIntoViewIfNeeded();
  const days = widget.locator('[data-days]');
  const seventy = await days.textContent();
  // The planner's own days for 8B, read by choosing it as the main model.
  await widget.locator('select').first().selectOption('llama3-8b');
  const eight = await days.textContent();
  await widget.locator('select').first().selectOption('llama3-70b');
  assert.equal(await days.textContent(), seventy);
  await widget.locator('select[data-vs]').selectOption('llama3-8b');
  const row = widget.locator('[data-compare] tr[data-row="days"]');
  assert.equal(await row.locator('td').first().textContent(), seventy);
  assert.equal(await row.locator('[data-vs-value]').textContent(), eight);
  assert.match(await widget.locator('[data-compare] tr[data-row="params"] [data-vs-value]').textContent(), /^8\.03e9$/);
  // A plan the second model cannot take is spelled out, not refused.
  await widget.locator('input.in-tp').fill('64');
  await widget.locator('input.in-tp').press('Enter');
  assert.match(await widget.locator('[data-compare] tr[data-row="plan"] [data-vs-value]').textContent(), /cannot be planned.*heads/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 4: the Transformer calculator counts a second model side by side', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'transformers');
  await ready(page);
  const widget = page.locator('[data-widget="transformer"]');
  await widget.locator('select[data-vs]').selectOption('llama3-8b');
  const total = widget.locator('[data-compare] tr[data-row="params"]');
  assert.equal(await total.locator('td').first().textContent(), '70.6B');
  assert.equal(await total.locator('[data-vs-value]').textContent(), '8.03B');
  assert.equal(await widget.locator('[data-compare] tr[data-row="kv-token"] [data-vs-value]').textContent(), '131 kB');
  assert.deepEqual(problems, []);
  await context.close();
});
