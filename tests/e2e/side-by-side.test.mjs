// End-to-end tests of "side by side": a second chip or model (the `vs` key) in
// the widgets that show one. Each test chooses the second choice through the
// "Compare with" picker or a link, reads the compared values and verdict a
// reader sees (the numbers are core's, checked natively in each widget's unit
// tests), checks the URL key, and that choosing "nothing" removes the
// comparison; an id the widget cannot compare (an unknown one, a TPU among
// GPUs) is refused with a notice.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, readyLibrary, offerAndChoose, verdictOf } from './lib.mjs';

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

// Opens `route`, chooses `vs` in the widget's "Compare with" picker and
// waits for the URL to carry it.
async function compare(route, name, vs) {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + route);
  await ready(page);
  const widget = page.locator(`[data-widget="${name}"]`);
  await widget.scrollIntoViewIfNeeded();
  const table = widget.locator('[data-compare]');
  assert.equal(await table.count(), 0, 'nothing is compared until a choice is made');
  await widget.locator('select[data-vs]').selectOption(vs);
  await page.waitForFunction((key) => location.search.includes(key), `${name}.vs=${vs}`);
  const row = (key) => table.locator(`tr[data-row="${key}"]`);
  const own = async (key) => (await row(key).locator('td').first().textContent()).trim();
  const other = async (key) => (await row(key).locator('[data-vs-value]').textContent()).trim();
  // Choosing "nothing" removes the comparison, its verdict and the key;
  // `after` checks what else it removed, before the page closes.
  const clear = async (after = async () => {}) => {
    await widget.locator('select[data-vs]').selectOption('');
    assert.equal(await table.count(), 0);
    assert.equal(await widget.locator('[data-vs-verdict]').count(), 0);
    await page.waitForFunction((key) => !location.search.includes(key), `${name}.vs=`);
    await after();
    assert.deepEqual(problems, []);
    await context.close();
  };
  return { page, widget, table, own, other, clear };
}

// Opens `route` (with its query), waits for the islands and returns the
// widget `name`, scrolled to, with readers of its comparison table.
async function open(route, name) {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + route);
  await ready(page);
  const widget = page.locator(`[data-widget="${name}"]`).first();
  await widget.scrollIntoViewIfNeeded();
  const table = widget.locator('[data-compare]');
  const row = (key) => table.locator(`tr[data-row="${key}"]`);
  const own = async (key) => (await row(key).locator('td').first().textContent()).trim();
  const other = async (key) => (await row(key).locator('[data-vs-value]').textContent()).trim();
  const picker = widget.locator('select[data-vs]');
  // Offers `id` in the picker (as a stale link or a removed entry would)
  // and chooses it: it must be refused with a notice naming `reason`, and
  // the picker must show `kept` again.
  const refuse = async (id, reason, kept) => {
    await offerAndChoose(picker, id);
    assert.match(await widget.locator('[data-notice]').textContent(), reason);
    assert.equal(await picker.inputValue(), kept);
  };
  // Chooses "nothing": the table, the compared verdict and the URL key go.
  const clear = async (gone = async () => {}) => {
    await picker.selectOption('');
    assert.equal(await table.count(), 0);
    assert.equal(await widget.locator('[data-vs-verdict]').count(), 0);
    await page.waitForFunction((key) => !location.search.includes(key), `${name}.vs=`);
    await gone();
    assert.deepEqual(problems, []);
    await context.close();
  };
  return { page, widget, table, own, other, picker, refuse, clear };
}

// The widget `name` on an open page, scrolled to, with readers of its
// comparison table and a check that a TPU offered as `vs` is refused.
function widgetOf(page, name) {
  const widget = page.locator(`[data-widget="${name}"]`).first();
  const table = widget.locator('[data-compare]');
  const row = (key) => table.locator(`tr[data-row="${key}"]`);
  const cells = async (key) => {
    const [own, other, ratio] = await row(key).locator('td').allTextContents();
    return { own: own.trim(), other: other.trim(), ratio: ratio.trim() };
  };
  const picker = widget.locator('select[data-vs]');
  // Offers `id` in the picker (as a stale link would) and chooses it: it
  // must be refused with a notice naming it, the picker showing `kept` again.
  const refuse = async (id, kept) => {
    await offerAndChoose(picker, id);
    assert.match(await widget.locator('[data-notice]').textContent(), new RegExp(id, 'i'));
    assert.equal(await picker.inputValue(), kept);
  };
  return { widget, table, cells, picker, refuse };
}

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
  assert.match(await widget.locator('.plot .layer').first().innerHTML(), /TPU v5p: AllGather/);
  await page.waitForFunction(() => location.search.includes('collective-size.vs=v5p'));
  await chooseNothing(page, widget, 'collective-size', /TPU v5p/);

  const matmul = page.locator('[data-widget="collective-matmul"]');
  await matmul.scrollIntoViewIfNeeded();
  await matmul.locator('select[data-vs]').selectOption('v5p');
  assert.deepEqual(await row(matmul, 'overlapped'), [await matmul.locator('[data-overlapped]').textContent(), '1.23 ms']);
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
  // A 1e9-parameter model on 16 chips: 6·P·T / (16 · 4.59e14) = 857 ms on v5p.
  // The AllReduce of its 2 GB of gradients, hidden behind the backward pass,
  // runs over a ring of 16 with wraparound on v5e (2 · 2 GB / 9e10 B/s = 44.4 ms)
  // but over a line on v5p, whose slices wrap only in whole 4×4×4 cubes
  // (15 hops each way: 41.7 ms).
  assert.deepEqual(await row(widget, 'step'), [await widget.locator('[data-step]').textContent(), '857 ms']);
  assert.deepEqual(await row(widget, 'comms'), ['44.4 ms', '41.7 ms']);
  assert.match(await widget.locator('.plot .layer').innerHTML(), /TPU v5p: step/);
  await page.waitForFunction(() => location.search.includes('strong-scaling.vs=v5p'));
  // A link carries the comparison: reloading it shows the same table.
  await page.reload();
  await ready(page);
  assert.equal(await widget.locator('select[data-vs]').inputValue(), 'v5p');
  assert.deepEqual(await row(widget, 'step'), ['2 s', '857 ms']);
  await chooseNothing(page, widget, 'strong-scaling', /TPU v5p/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 5: LLaMA 3 8B beside 70B in the ZeRO table fits where 70B does not', async () => {
  const { widget, table, own, other, clear } = await compare('training', 'zero', 'llama3-8b');
  // ZeRO-1 over 64 chips: (4 + 12/64) bytes per parameter, 295 GB for 70B
  // (the widget's own figure) and 33.6 GB for 8B, inside a v5p's HBM.
  assert.equal(await own('state'), (await widget.locator('[data-zero-state]').textContent()).trim());
  assert.equal(await other('state'), '33.6 GB');
  assert.equal(await other('fits'), 'fits');
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), 'fits');
  assert.match(await table.locator('thead').textContent(), /LLaMA 3 70B.*LLaMA 3 8B/);
  // The 8B bars are drawn under each stage's, on the same scale.
  assert.equal(await widget.locator('.zero-bar.zero-vs').count(), 4);
  assert.match(await widget.locator('tr[data-stage="1"] .zero-vs-label').textContent(), /LLaMA 3 8B: 33\.6 GB/);
  await clear(async () => {
    assert.equal(await widget.locator('.zero-bar.zero-vs').count(), 0);
  });
});

test('Part 5: the same MLP block on a TPU v5e beside the v5p', async () => {
  const { widget, own, other, clear } = await compare('training', 'parallelism-layout', 'v5e');
  // The v5e's bf16 peak is 0.429 of the v5p's: the backward matmuls take 2.33× as long.
  assert.equal(await other('backward-matmuls'), '39.1 ms');
  assert.equal(await own('backward-matmuls'), '16.8 ms');
  assert.equal(await other('forward-comms'), '8.58 ms');
  assert.equal(await other('ici'), '90 GB/s');
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), await other('verdict'));
  await clear();
});

test('Part 7: the KV-sharding steps timed on a TPU v5p beside the v5e', async () => {
  const { widget, own, other, clear } = await compare('inference', 'kv-sharding', 'v5p');
  assert.equal(await own('total'), (await widget.locator('[data-total]').textContent()).trim());
  assert.equal(await other('total'), '31.4 µs');
  // Every one of the twelve steps has its time on the v5p in its row.
  assert.equal(await widget.locator('td[data-vs-time]').count(), 12);
  assert.match(await widget.locator('thead').first().textContent(), /time on TPU v5p/);
  await clear(async () => {
    assert.equal(await widget.locator('td[data-vs-time]').count(), 0);
  });
});

test('Part 7: LLaMA 3 70B\'s MLP dashed beside the book\'s on the weight-stationary chart', async () => {
  const { widget, other, clear } = await compare('inference', 'weight-stationary', 'llama3-70b');
  // F/D = 3.5 moves the crossover from 72 to 32 × 3.5 × (3/4)² = 63 chips.
  assert.equal(await other('crossover'), '63');
  assert.equal(await other('two-d'), '7.71 µs');
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), '2D');
  const chart = await widget.locator('.plot .layer').first().innerHTML();
  assert.match(chart, /1D: LLaMA 3 70B/);
  assert.match(chart, /2D: LLaMA 3 70B/);
  await clear(async () => {
    assert.doesNotMatch(await widget.locator('.plot .layer').first().innerHTML(), /LLaMA 3 70B/);
  });
});

test('Part 8: the smallest slice of a TPU v5p beside the v5e for LLaMA 3 70B', async () => {
  const { widget, own, other, clear } = await compare('applied-inference', 'min-topology', 'v5p');
  // 140 GB of bf16 weights: a 4x4 of v5e (16 GB each), two v5p (96 GB each).
  assert.equal(await own('slice-bf16'), '16');
  assert.equal(await other('slice-bf16'), '2');
  assert.equal(await widget.locator('tr[data-dtype="bf16"] td[data-vs-slice]').textContent(), '2');
  assert.equal(await other('caches-int4'), '90');
  await clear(async () => {
    assert.equal(await widget.locator('td[data-vs-slice]').count(), 0);
  });
});

test('Part 9: the book\'s fused op costed on a TPU v5p beside the v5e', async () => {
  const { widget, own, other, clear } = await compare('profiling', 'xla-op', 'v5p');
  assert.equal(await own('time'), (await widget.locator('[data-time]').textContent()).trim());
  assert.equal(await other('time'), '8.99 µs');
  assert.equal(await widget.locator('[data-vs-time]').textContent(), '8.99 µs');
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), 'memory-bound');
  await clear();
});

test('Part 10: where each collective matmul ends on a TPU v5p, on the same time axis', async () => {
  const { widget, own, other, clear } = await compare('jax', 'overlap-timeline', 'v5p');
  assert.equal(await own('overlapped'), (await widget.locator('[data-overlapped]').textContent()).trim());
  assert.equal(await other('overlapped'), '19.8 µs');
  assert.equal(await other('blocking'), '21 µs');
  assert.match(await widget.locator('.plot .layer').first().innerHTML(), /TPU v5p/);
  await clear(async () => {
    assert.doesNotMatch(await widget.locator('.plot .layer').first().innerHTML(), /TPU v5p/);
  });
});

test('Part 3: the sharding plan timed on a TPU v5p beside the v5e', async () => {
  const { page, widget, table, own, other, picker, refuse, clear } = await open('sharding', 'sharding');
  assert.equal(await table.count(), 0, 'nothing is compared until a chip is chosen');
  await picker.selectOption('v5p');
  await page.waitForFunction(() => location.search.includes('sharding.vs=v5p'));
  // Case 2 on the default mesh: the AllGather of A over X takes 11.7 µs on
  // the v5e's 90 GB/s links and half that on the v5p's 180 GB/s.
  assert.equal(await own('comms'), '11.7 µs');
  assert.equal(await other('comms'), '5.83 µs');
  assert.equal(await other('ici'), '180 GB/s');
  assert.equal(await other('matmul'), '585 ns');
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), 'communication-bound');
  assert.match(await table.locator('thead').textContent(), /TPU v5e.*TPU v5p/);
  // Under each step of the plan, its time on the v5p.
  const steps = widget.locator('[data-vs-step]');
  assert.equal(await steps.count(), 2);
  assert.equal(await steps.first().textContent(), 'on TPU v5p: 5.83 µs');
  // A GPU has no ICI: refused, the comparison stays.
  await refuse('h100', /ICI/, 'v5p');
  assert.equal(await other('comms'), '5.83 µs');
  await clear(async () => {
    assert.equal(await widget.locator('[data-vs-step]').count(), 0);
  });
});

test('Part 3: a link with sharding.vs opens compared; an unknown id is refused', async () => {
  const { widget, other, picker, clear } = await open('sharding?sharding.vs=v4p', 'sharding');
  assert.equal(await picker.inputValue(), 'v4p');
  assert.match(await other('comms'), /s$/);
  assert.equal(await widget.locator('[data-notice]').isHidden(), true);
  await clear();

  const bad = await open('sharding?sharding.vs=tpu-v99', 'sharding');
  assert.match(await bad.widget.locator('[data-notice]').textContent(), /tpu-v99/);
  assert.equal(await bad.table.count(), 0);
  assert.equal(await bad.picker.inputValue(), '');
  await bad.page.context().close();
});

test('Part 2: the elementwise product streamed on a TPU v5p, on the same time scale', async () => {
  const { page, widget, own, other, picker, refuse, clear } = await open('tpus', 'streaming');
  await picker.selectOption('v5p');
  await page.waitForFunction(() => location.search.includes('streaming.vs=v5p'));
  // 16 chunks of 4 MiB: HBM sets the pace on both, 820 GB/s against 2.8 TB/s.
  assert.equal(await own('total'), (await widget.locator('[data-total]').textContent()).trim());
  assert.equal(await other('total'), '36.1 µs');
  assert.equal(await other('stage-hbm'), '2.25 µs');
  assert.equal(await widget.locator('[data-vs-total]').textContent(), '36.1 µs');
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), 'bandwidth-bound (HBM)');
  // The v5p's three lanes under the v5e's, drawn to the v5e's time scale:
  // its last chunk ends under a third of the way along.
  const lanes = widget.locator('[data-vs-lane]');
  assert.equal(await lanes.count(), 3);
  assert.match(await lanes.first().locator('.lane-label').textContent(), /^TPU v5p: HBM → VMEM \(sets the pace\)$/);
  const right = await lanes.first().locator('.chunk').last().evaluate((c) => parseFloat(c.style.left) + parseFloat(c.style.width));
  assert.ok(right > 20 && right < 35, `the v5p's last chunk ends at ${right}%`);
  await refuse('h100', /not a TPU/, 'v5p');
  await clear(async () => {
    assert.equal(await widget.locator('[data-vs-lane]').count(), 0);
  });
});

test('Part 0: a link with streaming.vs opens with the second TPU on the introduction', async () => {
  const { widget, other, picker, clear } = await open('introduction?streaming.vs=v5p', 'streaming');
  assert.equal(await picker.inputValue(), 'v5p');
  assert.equal(await widget.locator('[data-vs-lane]').count(), 3);
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), await other('verdict'));
  // The book gives the v6e no VPU figure, so it cannot stream an
  // elementwise product: refused with the reason, the v5p kept.
  await picker.selectOption('v6e');
  assert.match(await widget.locator('[data-notice]').textContent(), /on TPU v6e: .*no VPU figure in the book/);
  assert.equal(await picker.inputValue(), 'v5p');
  assert.equal(await widget.locator('[data-vs-lane]').count(), 3);
  await clear();
});

test('Part 4: LLaMA 3 8B takes the same 4,096 tokens beside LLaMA 3 70B', async () => {
  const { page, widget, table, own, other, picker, refuse, clear } = await open('transformers', 'layer-diagram');
  await picker.selectOption('llama3-8b');
  await page.waitForFunction(() => location.search.includes('layer-diagram.vs=llama3-8b'));
  // W_in: 2 × 4096 tokens × D × F, with D × F = 8192 × 28672 against 4096 × 14336.
  assert.equal(await own('op-flops'), '1.92e12');
  assert.equal(await other('op-flops'), '4.81e11');
  assert.equal(await other('params'), '218,112,000');
  assert.match(await table.locator('thead').textContent(), /LLaMA 3 70B.*LLaMA 3 8B/);
  // A column beside every matmul, and the selected operation in the 8B.
  assert.equal(await widget.locator('td[data-vs-flops]').count(), 9);
  assert.equal(await widget.locator('tr[data-matrix="W_in"] td[data-vs-flops]').textContent(), '4.81e11');
  assert.match(await widget.locator('[data-vs-op]').textContent(), /58,720,256 parameters, 4\.81e11 FLOPs/);
  // Choosing another operation moves the compared rows with it.
  await widget.locator('button[data-op="W_Q"]').click();
  await page.waitForFunction(() => document.querySelector('[data-widget="layer-diagram"] tr[data-row="op-flops"] th')?.textContent.startsWith('W_Q'));
  assert.equal(await other('op-flops'), '1.37e11');
  // A model with latent attention is refused; the comparison stays.
  await refuse('deepseek-v3', /latent attention/, 'llama3-8b');
  await clear(async () => {
    assert.equal(await widget.locator('td[data-vs-flops]').count(), 0);
  });
});

test('Part 0: a link with layer-diagram.vs opens compared on the introduction', async () => {
  const { widget, other, clear } = await open('introduction?layer-diagram.vs=llama3-70b', 'layer-diagram');
  // The introduction's layer is LLaMA 3 8B's; 70B's W_in is four times its.
  assert.equal(await other('op-flops'), '1.92e12');
  assert.equal(await widget.locator('td[data-vs-flops]').count(), 9);
  await clear();
});

test('Part 2: the chip map of a TPU v5e under the v5p, bar by bar on one scale', async () => {
  const { page, widget, own, other, picker, refuse, clear } = await open('tpus', 'chip-map');
  await picker.selectOption('v5e');
  await page.waitForFunction(() => location.search.includes('chip-map.vs=v5e'));
  // 1 GB over HBM: 357 µs at 2.8 TB/s, 1.22 ms at 820 GB/s.
  assert.equal(await own('path-hbm'), '357 µs');
  assert.equal(await other('path-hbm'), '1.22 ms');
  assert.deepEqual([await own('ici-links'), await other('ici-links')], ['6', '4']);
  assert.equal(await widget.locator('tr[data-vs-path="hbm"] [data-vs-time]').textContent(), '1.22 ms');
  assert.match(await widget.locator('[data-vs-part]').textContent(), /holds 16 GB/);
  // On one scale the v5e's HBM bar is shorter than the v5p's.
  const width = (sel) => widget.locator(sel).evaluate((b) => b.getBoundingClientRect().width);
  assert.ok(await width('tr[data-vs-path="hbm"] .bar') < await width('tr[data-path="hbm"] .bar'));
  await refuse('b200', /not a TPU/, 'v5e');
  await clear(async () => {
    assert.equal(await widget.locator('[data-vs-path]').count(), 0);
  });
});

test('Part 12: two NVLink nodes compared, and a TPU refused', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const { widget, table, cells, picker, refuse } = widgetOf(page, 'nvlink-node');
  await widget.scrollIntoViewIfNeeded();
  assert.equal(await table.count(), 0, 'nothing is compared until a GPU is chosen');
  await picker.selectOption('b200');
  await page.waitForFunction(() => location.search.includes('nvlink-node.vs=b200'));
  // Part 12: an H100 pushes 450 GB/s into NVLink, a B200 900 GB/s.
  assert.deepEqual(await cells('per-gpu'), { own: '450 GB/s', other: '900 GB/s', ratio: '2×' });
  assert.deepEqual(await cells('gpus'), { own: '8', other: '8', ratio: 'same' });
  assert.match(await table.locator('thead').textContent(), /NVIDIA H100.*NVIDIA B200/);
  await refuse('v5e', 'b200');
  assert.equal((await cells('per-gpu')).other, '900 GB/s');
  await picker.selectOption('');
  assert.equal(await table.count(), 0);
  await page.waitForFunction(() => !location.search.includes('nvlink-node.vs='));
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: a link with gpu-collectives.vs draws the second GPU on the same axes', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus?gpu-collectives.vs=b200');
  await ready(page);
  const { widget, cells, picker, refuse } = widgetOf(page, 'gpu-collectives');
  await widget.scrollIntoViewIfNeeded();
  assert.equal(await picker.inputValue(), 'b200');
  // The chart's legend names the second curve; the table spells out the difference.
  const legend = await widget.locator('.plot svg text').allTextContents();
  assert.ok(legend.some((t) => t.includes('NVIDIA B200')), legend.join(' | '));
  const time = await cells('time');
  assert.equal(time.own, (await widget.locator('[data-total]').textContent()).trim());
  assert.notEqual(time.other, time.own);
  assert.deepEqual(await cells('regime'), { own: 'bandwidth-bound', other: 'bandwidth-bound', ratio: 'same' });
  await refuse('v5p', 'b200');
  await picker.selectOption('');
  await page.waitForFunction(() => !location.search.includes('gpu-collectives.vs='));
  const after = await widget.locator('.plot svg text').allTextContents();
  assert.ok(!after.some((t) => t.includes('NVIDIA B200')), after.join(' | '));
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: the pipeline step timed on a second GPU', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const { widget, cells, picker, refuse } = widgetOf(page, 'gpu-parallelism');
  await readyLibrary(page, '[data-widget="gpu-parallelism"]');
  await picker.selectOption('b200');
  await page.waitForFunction(() => location.search.includes('gpu-parallelism.vs=b200'));
  const step = await cells('step');
  assert.equal(step.own, (await widget.locator('[data-step]').textContent()).split(' (')[0]);
  assert.deepEqual(step, { own: '3.09 s', other: '1.45 s', ratio: '0.469×' });
  // A B200 computes faster than an H100: its forward unit is shorter; the
  // activations' hop and the gradient AllReduce ride the same NVLink.
  assert.deepEqual(await cells('forward'), { own: '139 ms', other: '61.2 ms', ratio: '0.44×' });
  assert.deepEqual(await cells('tp'), { own: '8', other: '8', ratio: 'same' });
  await refuse('v5p', 'b200');
  await picker.selectOption('');
  await page.waitForFunction(() => !location.search.includes('gpu-parallelism.vs='));
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 2: the torus explorer lays the same slice on a second TPU', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'tpus');
  await ready(page);
  const { widget, table, cells, picker, refuse } = widgetOf(page, 'torus');
  await widget.scrollIntoViewIfNeeded();
  await picker.selectOption('v5p');
  await page.waitForFunction(() => location.search.includes('torus.vs=v5p'));
  // 8 × 16 chips: the v5e's axis of 16 wraps around (7 + 8 hops to the
  // farthest chip); on a v5p only whole cubes wrap (7 + 15 hops).
  assert.deepEqual(await cells('wrap'), { own: 'y', other: 'none', ratio: 'differs' });
  assert.deepEqual(await cells('diameter'), { own: '15', other: '22', ratio: '1.47×' });
  // A GPU has no torus: refused, the v5p kept.
  await refuse('h100', 'v5p');
  assert.equal((await cells('diameter')).other, '22');
  await picker.selectOption('');
  assert.equal(await table.count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 3: the collective player times the same collective on a second chip', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'sharding?collective.op=allreduce&collective.n=8');
  await ready(page);
  const { widget, table, cells, picker, refuse } = widgetOf(page, 'collective');
  await widget.scrollIntoViewIfNeeded();
  await picker.selectOption('v5p');
  await page.waitForFunction(() => location.search.includes('collective.vs=v5p'));
  // The same bytes over links twice as fast (Part 2's table) take half the
  // time, but at the player's sizes the ring's hops take longer: the same
  // time on both, and the table says why.
  assert.equal((await cells('bytes')).ratio, 'same');
  assert.equal((await cells('ici')).ratio, '2×');
  assert.equal((await cells('bandwidth')).ratio, '0.5×');
  assert.equal((await cells('time')).ratio, 'same');
  assert.deepEqual(await cells('bound'), { own: 'latency-bound', other: 'latency-bound', ratio: 'same' });
  // The player still plays the v5e's ring; its cost line is the table's own column.
  const time = await cells('time');
  assert.ok((await widget.locator('dl.times').textContent()).includes(time.own), time.own);
  // A GPU has no ICI ring: refused, the v5p kept.
  await refuse('h100', 'v5p');
  await picker.selectOption('');
  assert.equal(await table.count(), 0);
  await page.waitForFunction(() => !location.search.includes('collective.vs='));
  assert.deepEqual(problems, []);
  await context.close();
});
