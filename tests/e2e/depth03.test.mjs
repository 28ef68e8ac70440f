// End-to-end tests of the in-depth widgets of Parts 0–3: the systolic array,
// the chip map, streaming, strong scaling and the collective matmul.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 2: the systolic array steps cycle by cycle and counts its cycles', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'tpus');
  await ready(page);
  const w = page.locator('[data-widget="systolic"]');
  await w.scrollIntoViewIfNeeded();
  // 4×4 array, two blocks of four rows back to back: 2·4 + 4 + 4 − 2 = 14 cycles.
  assert.equal(await w.locator('[data-cycles]').textContent(), '14');
  assert.equal(await w.locator('[data-phase]').textContent(), 'not started');
  assert.equal(await w.locator('td.busy').count(), 0);
  await w.locator('button[aria-label="next step"]').focus();
  await page.keyboard.press('Enter');
  assert.equal(await w.locator('table.systolic-grid').getAttribute('data-step'), '1');
  assert.equal(await w.locator('[data-phase]').textContent(), 'filling');
  assert.equal(await w.locator('td.busy').count(), 1);
  // Scrub to the end: every result has left and equals X·W.
  await w.locator('.player input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.equal(await w.locator('[data-results]').textContent(), '32 / 32');
  assert.equal(await w.locator('[data-phase]').textContent(), 'draining');
  assert.equal(await w.locator('[data-check]').textContent(), 'yes');
  // Each block waiting for the last to drain: 2·(4 + 4 + 4 − 2) = 20 cycles.
  await w.locator('input[type="checkbox"]').uncheck();
  assert.equal(await w.locator('[data-cycles]').textContent(), '20');
  assert.match(await w.locator('.player output').textContent(), /^cycle 0 \/ 20$/);
  // The bad case: one row on an 8×8 array keeps 1/15 of the cells busy.
  const sliders = w.locator('.controls input[type="range"]');
  for (const [i, v] of [[0, '8'], [1, '8'], [2, '1'], [3, '1']]) {
    await sliders.nth(i).fill(v);
  }
  assert.equal(await w.locator('[data-cycles]').textContent(), '15');
  assert.equal(await w.locator('[data-utilisation]').textContent(), '6.7 %');
  await w.locator('button.play').click();
  await page.waitForFunction(() => document.querySelector('[data-widget="systolic"] table.systolic-grid').getAttribute('data-step') !== '0');
  await w.locator('button.play').click();
  assert.deepEqual(problems, []);
  await context.close();
});
