// End-to-end tests of the Parts 7–10 widgets added in session 5: 1D against
// 2D weight-stationary sharding on the inference page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

/** The number before the unit in a text such as "15.5 µs". */
const micros = (text) => {
  const m = /^([\d.]+) µs$/.exec(text.trim());
  assert.ok(m, `not a time in µs: ${text}`);
  return Number(m[1]);
};

test('Part 7 Appendix B: the chip slider moves 2D sharding across the crossover', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'inference');
  await ready(page);
  const widget = page.locator('[data-widget="weight-stationary"]');
  await widget.scrollIntoViewIfNeeded();
  const crossover = widget.locator('[data-crossover]');
  const oneD = widget.locator('[data-one-d]');
  const twoD = widget.locator('[data-two-d]');
  const verdict = widget.locator('[data-verdict]');
  // The book's F = 4D: 2D wins above N = 32·4·(3/4)² = 72 chips.
  assert.equal(await crossover.textContent(), '72');
  assert.equal(await widget.locator('[data-chips]').textContent(), 'N = 256');
  // B = 128, D = 8192 on a v5e: 4BD/(3W) and sqrt(128)·B·D/(sqrt(N)·W).
  const one = micros(await oneD.textContent());
  const two = micros(await twoD.textContent());
  assert.ok(Math.abs(two / one - (3 / 4) * Math.sqrt(128 / 256)) < 0.01, `${one} ${two}`);
  assert.equal(await verdict.textContent(), '2D');
  // Two steps left on the slider: 64 chips, below the crossover.
  await widget.locator('input[type="range"]').focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await widget.locator('[data-chips]').textContent(), 'N = 64');
  const two64 = micros(await twoD.textContent());
  assert.ok(Math.abs(two64 / two - 2) < 0.02, `${two} → ${two64}`);
  assert.equal(micros(await oneD.textContent()), one);
  assert.equal(await verdict.textContent(), '1D');
  // LLaMA 3-70B has F = 3.5·D: the crossover moves to 63 chips.
  await widget.locator('select').first().selectOption('llama3-70b');
  assert.equal(await crossover.textContent(), '63');
  assert.match(await widget.locator('.plot svg').innerHTML(), /N = 63/);
  // A batch of zero is refused with a message and the numbers stay.
  await widget.locator('input[aria-label^="batch"]').fill('0');
  assert.match(await widget.locator('[data-notice]').textContent(), /batch/);
  assert.equal(await crossover.textContent(), '63');
  assert.deepEqual(problems, []);
  await context.close();
});
