// End-to-end tests of the widgets on /rooflines (Part 1) beyond the roofline
// itself (site.test.mjs): the two rooflines and the tile of a matmul.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 1: two rooflines, and the tile sets the matmul\'s verdict', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const w = page.locator('[data-widget="rooflines"]');
  await w.scrollIntoViewIfNeeded();
  const verdict = (a, m) => w.locator(`td[data-algorithm="${a}"][data-memory="${m}"] [data-verdict]`);
  // Intensity 100 on a v5e: below both ridges (240 and 120); the 1024-square tile above both.
  assert.equal(await verdict(0, 0).textContent(), 'memory-bound');
  assert.equal(await verdict(0, 1).textContent(), 'memory-bound');
  assert.equal(await verdict(1, 0).textContent(), 'compute-bound');
  assert.equal(await verdict(1, 1).textContent(), 'compute-bound');
  assert.equal(await w.locator('[data-tile-approx]').textContent(), '512');
  const chart = w.locator('.plot');
  const before = await chart.screenshot();
  // The slider's end is 5000 FLOPs per byte: compute-bound on both memories.
  await w.locator('input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.equal(await verdict(0, 0).textContent(), 'compute-bound');
  assert.equal(await verdict(0, 1).textContent(), 'compute-bound');
  assert.ok(!before.equals(await chart.screenshot()), 'the chart did not change');
  // A tile only 64 rows tall falls onto the slope.
  await w.locator('input[aria-label="tile side bm"]').fill('64');
  assert.equal(await verdict(1, 0).textContent(), 'memory-bound');
  assert.equal(await verdict(1, 1).textContent(), 'memory-bound');
  await w.locator('input[aria-label="tile side bm"]').fill('0');
  assert.match(await w.locator('[data-notice]').textContent(), /bm/);
  assert.equal(await verdict(1, 0).textContent(), 'memory-bound');
  assert.deepEqual(problems, []);
  await context.close();
});
