// End-to-end tests of Part 12 in depth: the GPU collectives widget and the
// other Part 12 widgets built with it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 12: GPU collectives follow SHARP, scope and array size', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="gpu-collectives"]');
  await widget.scrollIntoViewIfNeeded();
  const total = widget.locator('[data-total]');
  // 8 x H100, 1 GB AllReduce: 0.405 ms start-up + 2 (7/8) 1 GB / 450 GB/s.
  assert.equal(await total.textContent(), '4.29 ms');
  assert.equal(await widget.locator('[data-bus-bw]').textContent(), '408 GB/s');
  assert.match(await widget.locator('[data-sharp-gain]').textContent(), /^63% more bandwidth/);
  assert.match(await widget.locator('p.sharp-book').textContent(), /predicts a 75% gain.*about 30%/);
  assert.match(await widget.locator('p.measured-here').textContent(), /8xH100/);
  const chart = widget.locator('.plot svg');
  const before = await chart.innerHTML();
  // SHARP on: each GPU sends the array once, 1 GB / 450 GB/s after the start-up.
  await widget.locator('input.sharp').check();
  assert.equal(await total.textContent(), '2.63 ms');
  assert.match(await widget.locator('p.sharp-book').textContent(), /switches take in/);
  assert.notEqual(await chart.innerHTML(), before, 'the chart did not redraw');
  // The smallest array is latency-bound, the largest bandwidth-bound.
  const regime = widget.locator('[data-regime]');
  await widget.locator('input.bytes').focus();
  await page.keyboard.press('Home');
  assert.equal(await regime.getAttribute('data-regime'), 'latency-bound');
  await page.keyboard.press('End');
  assert.equal(await regime.getAttribute('data-regime'), 'bandwidth-bound');
  // Across nodes: 16 GPUs, and the leaf level of the tree appears in the table.
  await widget.locator('input.sharp').uncheck();
  await widget.locator('select.op').selectOption('allgather');
  await widget.locator('select.scope').selectOption('network');
  assert.equal(await widget.locator('[data-gpus]').getAttribute('data-gpus'), '16');
  assert.match(await widget.locator('[data-gpus]').textContent(), /16 GPUs \(2 nodes\)/);
  assert.equal(await widget.locator('table.levels tbody tr').count(), 2);
  assert.equal(await widget.locator('table.sharded tbody tr').count(), 9);
  assert.ok(await widget.locator('[data-sharp-gain]').isHidden());
  // Text that is not a size is refused with a message, and the state stays.
  const shown = await total.textContent();
  await widget.locator('input.bytes-text').fill('abc');
  assert.match(await widget.locator('[data-notice]').textContent(), /bytes/);
  assert.equal(await total.textContent(), shown);
  // A ragged AllToAll: K = 8 of Z = 8 shards sends about 57% of a dense one.
  await widget.locator('select.op').selectOption('alltoall');
  assert.equal(await widget.locator('table.ragged tr[data-z="8"] td').first().textContent(), '57%');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: the NVLink node follows the chosen GPU', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="nvlink-node"]');
  await widget.scrollIntoViewIfNeeded();
  // 8 x H100: 18 links of 25 GB/s per GPU, split 5 + 4 + 4 + 5 over 4 NVSwitches.
  assert.equal(await widget.locator('svg rect.nvswitch').count(), 4);
  assert.equal(await widget.locator('svg rect.gpu-box').count(), 8);
  assert.deepEqual(await widget.locator('svg text.link-count').allTextContents(), ['5', '4', '4', '5']);
  assert.match(await widget.locator('[data-per-gpu]').textContent(), /^450 GB\/s = 18 × 25 GB\/s/);
  assert.equal(await widget.locator('[data-bisection]').textContent(), '3.6 TB/s');
  assert.equal(await widget.locator('[data-ratio]').textContent(), '9×');
  // The NVL72 rack: 72 GPUs under 18 switches, 64.8 TB/s inside and 50 GB/s per GPU out.
  await widget.locator('select:not([data-vs])').selectOption('gb200');
  assert.equal(await widget.locator('svg rect.gpu-box').count(), 72);
  assert.equal(await widget.locator('svg rect.nvswitch').count(), 18);
  assert.equal(await widget.locator('[data-bisection]').textContent(), '64.8 TB/s');
  assert.match(await widget.locator('[data-scale-out]').textContent(), /3\.6 TB\/s \(50 GB\/s per GPU\)/);
  assert.equal(await widget.locator('[data-ratio]').textContent(), '18×');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: the rooflines table shows all its columns at 1280 px', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(env.base + 'gpus');
  await ready(page);
  const scroll = page.locator('[data-widget="gpu"] table.compare').locator('xpath=..');
  const { scrollWidth, clientWidth } = await scroll.evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
  assert.ok(scrollWidth <= clientWidth, `the table needs ${scrollWidth} px but has ${clientWidth}`);
  assert.match(await page.locator('[data-widget="gpu"] [data-facts]').textContent(), /128 nodes of 8.*4 Scalable Units/);
  assert.deepEqual(problems, []);
  await context.close();
});
