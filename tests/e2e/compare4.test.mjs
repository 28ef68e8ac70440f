// End-to-end tests of "side by side" (issue #19), fourth round: a second
// model in the ZeRO table and the weight-stationary chart, a second chip in
// the parallelism layout, the KV-sharding steps, the minimum topology, the
// XLA op and the collective matmul's timelines. Each test chooses the second
// choice, reads what the reader sees, checks the URL key, and chooses
// "nothing" again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

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
