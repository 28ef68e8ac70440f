// End-to-end tests of the widgets on /tpus (Part 2): the spec table and the
// torus explorer, the systolic array, the chip map, streaming and the
// challenge problem's slowest stage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 2: the spec table comes from the registry and the torus answers clicks', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'tpus');
  await ready(page);
  const v5e = page.locator('[data-widget="spec-table"] tr[data-chip="v5e"]');
  assert.match(await v5e.textContent(), /1\.97e14.*16 GB.*8\.2e11.*240/);
  assert.equal(await page.locator('[data-widget="spec-table"] tbody tr').count(), 11);
  const facts = page.locator('[data-widget="torus"] [data-facts]');
  assert.match(await facts.textContent(), /128 chips on 16 hosts/);
  assert.match(await facts.textContent(), /x = 8 \(no wraparound\), y = 16 \(wraps around\)/);
  await page.locator('[data-widget="torus"] button.chip').nth(5 * 16 + 7).click();
  assert.match(await facts.textContent(), /chip \(5, 7, 0\) has 4 neighbours/);
  // The link table: PCIe is the bottleneck at B = 1024 on a v6e.
  const pcie = page.locator('[data-widget="link-roofline"] tr[data-link="pcie"] [data-verdict]');
  assert.equal(await pcie.textContent(), 'communication-bound');
  await page.locator('[data-widget="link-roofline"] input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.equal(await pcie.textContent(), 'compute-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 2: the systolic array steps cycle by cycle and counts its cycles', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'tpus');
  await ready(page);
  const w = page.locator('[data-widget="systolic"]');
  await w.scrollIntoViewIfNeeded();
  // 4×4 array, two blocks of four rows back to back: four cycles of weight
  // loading before the first input, then 2·4 + 4 + 4 − 2 = 14 cycles.
  assert.equal(await w.locator('[data-cycles]').textContent(), '18');
  assert.equal(await w.locator('[data-phase]').textContent(), 'not started');
  assert.equal(await w.locator('td.busy').count(), 0);
  await w.locator('button[aria-label="next step"]').focus();
  await page.keyboard.press('Enter');
  assert.equal(await w.locator('table.systolic-grid').getAttribute('data-step'), '1');
  // The first cycle only moves a weight into the top-left cell.
  assert.equal(await w.locator('[data-phase]').textContent(), 'loading weights');
  assert.equal(await w.locator('td.busy').count(), 0);
  assert.equal(await w.locator('td[data-state="loading"]').count(), 1);
  // Cycle 5: the first input meets the full first column while the others load.
  for (let i = 0; i < 4; i++) await page.keyboard.press('Enter');
  assert.equal(await w.locator('[data-phase]').textContent(), 'filling, weights still loading');
  assert.equal(await w.locator('td.busy').count(), 1);
  // Scrub to the end: every result has left and equals X·W.
  await w.locator('.player input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.equal(await w.locator('[data-results]').textContent(), '32 / 32');
  assert.equal(await w.locator('[data-phase]').textContent(), 'draining');
  assert.equal(await w.locator('[data-check]').textContent(), 'yes');
  // Each block waiting for the last to drain: 4 + 2·(4 + 4 + 4 − 2) = 24 cycles.
  await w.locator('input[type="checkbox"]').uncheck();
  assert.equal(await w.locator('[data-cycles]').textContent(), '24');
  assert.match(await w.locator('.player output').textContent(), /^cycle 0 \/ 24$/);
  // The bad case: one row on an 8×8 array keeps 1/23 of the cells busy
  // (8 cycles of loading, then 1 + 8 + 8 − 2).
  const sliders = w.locator('.controls input[type="range"]');
  for (const [i, v] of [[0, '8'], [1, '8'], [2, '1'], [3, '1']]) {
    await sliders.nth(i).fill(v);
  }
  assert.equal(await w.locator('[data-cycles]').textContent(), '23');
  assert.equal(await w.locator('[data-utilisation]').textContent(), '4.3 %');
  await w.locator('button.play').click();
  await page.waitForFunction(() => document.querySelector('[data-widget="systolic"] table.systolic-grid').getAttribute('data-step') !== '0');
  await w.locator('button.play').click();
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 2: the chip map shows the chosen part and the time over each path', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'tpus');
  await ready(page);
  const w = page.locator('[data-widget="chip-map"]');
  await w.scrollIntoViewIfNeeded();
  const info = w.locator('[data-part-info]');
  assert.equal(await info.getAttribute('data-part-info'), 'hbm');
  assert.match(await info.textContent(), /holds96 GB/);
  // Five paths, fastest first; HBM's time is 1 GB over its bandwidth.
  assert.equal(await w.locator('tr[data-path]').count(), 5);
  const hbm = w.locator('tr[data-path="hbm"] [data-time]');
  const before = await hbm.textContent();
  await w.locator('input[type="text"]').fill('1e10');
  const after = await hbm.textContent();
  assert.notEqual(before, after);
  // Ten times the bytes, ten times the time.
  const secs = (t) => {
    const m = t.match(/^([\d.]+) (p|n|µ|m|)s$/);
    assert.ok(m, t);
    return Number(m[1]) * { p: 1e-12, n: 1e-9, 'µ': 1e-6, m: 1e-3, '': 1 }[m[2]];
  };
  assert.ok(Math.abs(secs(after) / secs(before) - 10) < 0.05, `${before} -> ${after}`);
  // Choosing a part with the keyboard shows its figures.
  await w.locator('button[data-part="ici"]').focus();
  await page.keyboard.press('Enter');
  assert.equal(await info.getAttribute('data-part-info'), 'ici');
  assert.match(await info.textContent(), /links per chip6/);
  // The chip picker, not the comparison's (select[data-vs]).
  await w.locator('select:not([data-vs])').selectOption('v5e');
  assert.match(await info.textContent(), /links per chip4/);
  await w.locator('input[type="text"]').fill('zero');
  assert.match(await w.locator('[data-notice]').textContent(), /array size/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 2: streaming shows which stage sets the pace', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'tpus');
  await ready(page);
  const w = page.locator('[data-widget="streaming"]');
  await w.scrollIntoViewIfNeeded();
  const verdict = w.locator('[data-verdict]');
  assert.equal(await verdict.textContent(), 'bandwidth-bound (HBM)');
  assert.equal(await w.locator('[data-chunks]').textContent(), '16');
  assert.equal(await w.locator('.lane.bottleneck').getAttribute('data-stage'), '0');
  // Stepping fills in the chunks that have left.
  assert.equal(await w.locator('.chunk.done').count(), 0);
  await w.locator('button[aria-label="next step"]').click();
  assert.equal(await w.locator('.chunk.done').count(), 3);
  // A small-batch matmul waits on HBM until its weights sit in VMEM.
  await w.locator('select').nth(1).selectOption('matmul');
  assert.equal(await verdict.textContent(), 'bandwidth-bound (HBM)');
  const streamed = await w.locator('[data-total]').textContent();
  await w.locator('input[type="checkbox"]').check();
  assert.equal(await verdict.textContent(), 'compute-bound');
  assert.notEqual(await w.locator('[data-total]').textContent(), streamed);
  await w.locator('input[aria-label="Chunk (bytes) "]').fill('1');
  assert.match(await w.locator('[data-notice]').textContent(), /chunk size/);
  assert.equal(await verdict.textContent(), 'compute-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 2: the challenge problem is paced by the gather onto one chip', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'tpus');
  await ready(page);
  const w = page.locator('[data-widget="slowest-stage"]');
  await w.scrollIntoViewIfNeeded();
  const verdict = w.locator('[data-verdict]');
  assert.equal(await verdict.textContent(), 'communication-bound');
  assert.equal(await w.locator('[data-slowest-stage]').textContent(), 'ICI');
  assert.equal(await w.locator('[data-bound]').textContent(), '179 ms');
  assert.equal(await w.locator('li[data-slowest="yes"]').getAttribute('data-stage'), 'ICI');
  // More pieces bring the total closer to the slowest stage.
  const total16 = await w.locator('[data-total]').textContent();
  await w.locator('input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.equal(await w.locator('[data-pieces]').textContent(), '64');
  assert.notEqual(await w.locator('[data-total]').textContent(), total16);
  // A batch in the thousands makes the MXU the slowest stage.
  await w.locator('input[aria-label="Batch "]').fill('8192');
  assert.equal(await verdict.textContent(), 'compute-bound');
  assert.equal(await w.locator('[data-slowest-stage]').textContent(), 'MXU');
  assert.equal(await w.locator('[data-bound]').textContent(), '1.43 s');
  await w.locator('input[aria-label="Slice "]').fill('4x4x4');
  assert.match(await w.locator('[data-notice]').textContent(), /2D torus/);
  assert.equal(await w.locator('[data-slowest-stage]').textContent(), 'MXU');
  assert.deepEqual(problems, []);
  await context.close();
});
