// End-to-end tests of "side by side" (issue #19), third round: a second chip
// or model in the Part 0–4 widgets. Each test chooses the second choice,
// reads the values and verdict a reader sees (the numbers are core's, checked
// natively in each widget's unit tests), checks the URL key, and that
// choosing "nothing" removes the comparison.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, offerAndChoose } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

// Opens `route`, waits for its islands and returns the widget, scrolled to.
async function widgetOn(route, name) {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + route);
  await ready(page);
  const widget = page.locator(`[data-widget="${name}"]`);
  await widget.scrollIntoViewIfNeeded();
  return { page, context, problems, widget };
}

// The compared value of row `key` and the widget's own value beside it.
async function row(widget, key) {
  const r = widget.locator(`[data-compare] tr[data-row="${key}"]`);
  return [await r.locator('td').first().textContent(), await r.locator('[data-vs-value]').textContent()];
}

// Chooses "nothing": the table, the compared verdict and `gone` in the chart
// (if given) disappear, and so does the URL key.
async function chooseNothing(page, widget, name, gone) {
  await widget.locator('select[data-vs]').selectOption('');
  assert.equal(await widget.locator('[data-compare]').count(), 0);
  assert.equal(await widget.locator('[data-vs-verdict]').count(), 0);
  if (gone) assert.doesNotMatch(await widget.locator('.plot .layer').first().innerHTML(), gone);
  await page.waitForFunction((key) => !location.search.includes(key), `${name}.vs=`);
}

test('Part 1: a second chip on the two rooflines and in the overlap widget', async () => {
  const { page, context, problems, widget } = await widgetOn('rooflines', 'rooflines');
  assert.equal(await widget.locator('[data-compare]').count(), 0, 'nothing is compared until a chip is chosen');
  await widget.locator('select[data-vs]').selectOption('v5p');
  // Algorithm 1 (I = 100) on each chip's HBM: 100 × 820 GB/s and 100 × 2.8 TB/s.
  assert.deepEqual(await row(widget, 'rate-1'), ['8.2e13 FLOPs/s', '2.8e14 FLOPs/s']);
  assert.deepEqual(await row(widget, 'ridge'), ['240 FLOPs/B', '164 FLOPs/B']);
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), 'memory-bound');
  assert.match(await widget.locator('.plot .layer').innerHTML(), /TPU v5p: HBM roof, peak/);
  await page.waitForFunction(() => location.search.includes('rooflines.vs=v5p'));
  await chooseNothing(page, widget, 'rooflines', /TPU v5p/);

  const overlap = page.locator('[data-widget="overlap"]');
  await overlap.scrollIntoViewIfNeeded();
  await overlap.locator('select[data-vs]').selectOption('v5p');
  // The v5p's twice faster ICI moves the crossover from 8,756 to 10,200.
  assert.deepEqual(await row(overlap, 'crossover'), ['8,756', '10,200']);
  assert.deepEqual(await row(overlap, 't-comms'), ['373 µs', '186 µs']);
  assert.equal(await overlap.locator('[data-vs-verdict]').textContent(), 'communication-bound');
  assert.match(await overlap.locator('.plot .layer').first().innerHTML(), /TPU v5p: T_math/);
  await page.waitForFunction(() => location.search.includes('overlap.vs=v5p'));
  // A chip without a chip-to-chip link is refused; the comparison stays.
  await offerAndChoose(overlap.locator('select[data-vs]'), 'tpu-v99');
  assert.match(await overlap.locator('[data-notice]').textContent(), /tpu-v99/);
  assert.equal(await overlap.locator('select[data-vs]').inputValue(), 'v5p');
  await chooseNothing(page, overlap, 'overlap', /TPU v5p/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 2: a second TPU beside each link and running the slowest-stage job', async () => {
  const { page, context, problems, widget } = await widgetOn('tpus', 'link-roofline');
  await widget.locator('select[data-vs]').selectOption('v5e');
  // PCIe turns compute-bound above C / W_pcie: 28,750 on v6e, 12,313 on v5e.
  assert.deepEqual(await row(widget, 'critical-pcie'), ['28,750', '12,313']);
  assert.equal(await widget.locator('tr[data-link="pcie"] [data-vs-verdict]').textContent(), 'communication-bound');
  assert.equal(await widget.locator('tr[data-link="hbm"] [data-vs-verdict]').textContent(), 'compute-bound');
  await page.waitForFunction(() => location.search.includes('link-roofline.vs=v5e'));
  await chooseNothing(page, widget, 'link-roofline');

  const stage = page.locator('[data-widget="slowest-stage"]');
  await stage.scrollIntoViewIfNeeded();
  await stage.locator('select[data-vs]').selectOption('v5p');
  // The v5p's ICI is twice as fast: the gather onto one chip takes half as long.
  assert.deepEqual(await row(stage, 'bound'), ['179 ms', '89.5 ms']);
  assert.equal(await stage.locator('[data-stage="ICI"] [data-vs-time]').textContent(), '89.5 ms');
  assert.equal(await stage.locator('[data-vs-verdict]').textContent(), 'communication-bound');
  await page.waitForFunction(() => location.search.includes('slowest-stage.vs=v5p'));
  // A GPU has no torus to form the slice on: refused, the comparison stays.
  await offerAndChoose(stage.locator('select[data-vs]'), 'h100');
  assert.match(await stage.locator('[data-notice]').textContent(), /not a TPU/);
  assert.equal(await stage.locator('select[data-vs]').inputValue(), 'v5p');
  await chooseNothing(page, stage, 'slowest-stage');
  assert.equal(await stage.locator('[data-vs-time]').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 3: a second chip in the collective-size chart and the collective matmul', async () => {
  const { page, context, problems, widget } = await widgetOn('sharding', 'collective-size');
  await widget.locator('select[data-vs]').selectOption('v5p');
  // 1 MB over a 16-ring: bandwidth-bound on v5e, latency-bound on v5p.
  assert.deepEqual(await row(widget, 'time'), ['11.1 µs', '8 µs']);
  assert.deepEqual(await row(widget, 'knee'), ['720 kB', '1.44 MB']);
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), 'latency-bound');
  assert.match(await widget.locator('.plot .layer').innerHTML(), /TPU v5p: AllGather/);
  await page.waitForFunction(() => location.search.includes('collective-size.vs=v5p'));
  await chooseNothing(page, widget, 'collective-size', /TPU v5p/);

  const matmul = page.locator('[data-widget="collective-matmul"]');
  await matmul.scrollIntoViewIfNeeded();
  await matmul.locator('select[data-vs]').selectOption('v5p');
  assert.deepEqual(await row(matmul, 'overlapped'), [await matmul.locator('[data-overlapped]').textContent(), '1.24 ms']);
  assert.equal(await matmul.locator('[data-vs-verdict]').textContent(), 'compute-bound');
  assert.equal(await matmul.locator('[data-vs-lane]').count(), 2);
  await page.waitForFunction(() => location.search.includes('collective-matmul.vs=v5p'));
  await chooseNothing(page, matmul, 'collective-matmul');
  assert.equal(await matmul.locator('[data-vs-lane]').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 4: a second model in the MoE widget and on the remat chart', async () => {
  const { page, context, problems, widget } = await widgetOn('transformers', 'moe');
  await widget.locator('select[data-vs]').selectOption('mixtral-8x7b');
  assert.deepEqual(await row(widget, 'total'), [await widget.locator('[data-total]').textContent(), '46.7 G']);
  // Mixtral's experts see B·k/E = 8192·2/8 tokens: compute-bound above 961 on v5e.
  assert.deepEqual(await row(widget, 'critical'), ['7,688', '961']);
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), 'compute-bound');
  await page.waitForFunction(() => location.search.includes('moe.vs=mixtral-8x7b'));
  await chooseNothing(page, widget, 'moe');

  const remat = page.locator('[data-widget="remat"]');
  await remat.scrollIntoViewIfNeeded();
  await remat.locator('select[data-vs]').selectOption('llama3-8b');
  assert.deepEqual(await row(remat, 'memory-none'), ['107 GB', '21.5 GB']);
  assert.deepEqual(await row(remat, 'memory-per-layer'), ['6.71 GB', '1.74 GB']);
  assert.equal(await remat.locator('[data-vs-verdict]').textContent(), 'fits');
  assert.match(await remat.locator('.plot .layer').innerHTML(), /LLaMA 3 8B: /);
  await page.waitForFunction(() => location.search.includes('remat.vs=llama3-8b'));
  await chooseNothing(page, remat, 'remat', /LLaMA 3 8B/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 0: a second TPU on the strong-scaling chart', async () => {
  const { page, context, problems, widget } = await widgetOn('introduction', 'strong-scaling');
  await widget.locator('select[data-vs]').selectOption('v5p');
  assert.deepEqual(await row(widget, 'step'), [await widget.locator('[data-step]').textContent(), '6.85 s']);
  assert.deepEqual(await row(widget, 'comms'), ['356 ms', '178 ms']);
  assert.match(await widget.locator('.plot .layer').innerHTML(), /TPU v5p: step/);
  await page.waitForFunction(() => location.search.includes('strong-scaling.vs=v5p'));
  // A link carries the comparison: reloading it shows the same table.
  await page.reload();
  await ready(page);
  assert.equal(await widget.locator('select[data-vs]').inputValue(), 'v5p');
  assert.deepEqual(await row(widget, 'step'), ['16 s', '6.85 s']);
  await chooseNothing(page, widget, 'strong-scaling', /TPU v5p/);
  assert.deepEqual(problems, []);
  await context.close();
});
