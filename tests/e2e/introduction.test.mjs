// End-to-end tests of the widgets on /introduction (Part 0): the credits and
// chapter links, strong scaling, streaming an elementwise product, and the
// Transformer layer diagram.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 0 credits the book, links every chapter and carries the MIT notice', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'introduction');
  await ready(page);
  const text = await page.locator('main').textContent();
  assert.match(text, /Jacob Austin, Sholto\s+Douglas, Roy Frostig, Anselm Levskaya/);
  assert.match(text, /Copyright \(c\) 2025 Google LLC/);
  assert.match(text, /MIT licence/);
  const links = await page.locator('[data-widget="book-links"] a[rel="noopener"]').evaluateAll((as) => as.map((a) => a.href));
  assert.equal(links.length, 13);
  assert.ok(links.every((h) => h.startsWith('https://jax-ml.github.io/scaling-book/')));
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 0: strong scaling loses efficiency as chips are added', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'introduction');
  await ready(page);
  const w = page.locator('[data-widget="strong-scaling"]');
  await w.scrollIntoViewIfNeeded();
  const eff = w.locator('[data-efficiency]');
  const at16 = await eff.textContent();
  const compute16 = await w.locator('[data-compute]').textContent();
  const chart = w.locator('.plot');
  const before = await chart.screenshot();
  // The slider counts powers of two: End is 65,536 chips.
  await w.locator('input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.equal(await w.locator('[data-chips]').textContent(), '65,536');
  assert.notEqual(await w.locator('[data-compute]').textContent(), compute16);
  assert.ok(parseFloat(await eff.textContent()) < parseFloat(at16), `${at16} -> ${await eff.textContent()}`);
  assert.ok(!before.equals(await chart.screenshot()), 'the chart did not change');
  // 4,096 v5e chips are 16 slices of the 256-chip ICI domain, joined by DCN.
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowLeft');
  assert.equal(await w.locator('[data-chips]').textContent(), '4,096');
  assert.equal(await w.locator('[data-slices]').textContent(), '16 of 256 chips, over DCN');
  await w.locator('input[aria-label="parameters"]').fill('-5');
  assert.match(await w.locator('[data-notice]').textContent(), /parameter count/);
  // An 8B model's Adam state does not fit in a v5e's HBM: refused, 4,096 kept.
  await w.locator('input[aria-label="parameters"]').fill('8e9');
  assert.match(await w.locator('[data-notice]').textContent(), /HBM/);
  assert.equal(await w.locator('[data-chips]').textContent(), '4,096');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 0: the introduction streams an elementwise product', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'introduction');
  await ready(page);
  const w = page.locator('[data-widget="streaming"]');
  await w.scrollIntoViewIfNeeded();
  assert.equal(await w.locator('[data-verdict]').textContent(), 'bandwidth-bound (HBM)');
  assert.equal(await w.locator('.chunk.done').count(), 0);
  await w.locator('button[aria-label="next step"]').click();
  assert.equal(await w.locator('.chunk.done').count(), 3);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Introduction: the layer diagram shows the chosen operation of LLaMA 3-8B', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'introduction');
  await ready(page);
  const widget = page.locator('[data-widget="layer-diagram"]');
  await widget.scrollIntoViewIfNeeded();
  // W_in of LLaMA 3-8B: D × F = 4096 × 14336 parameters.
  const params = widget.locator('[data-op-detail] [data-params]');
  assert.equal(await params.textContent(), '58,720,256');
  await widget.locator('button[data-op="W_Q"]').click();
  // W_Q: D × N·H = 4096 × 32 · 128.
  assert.equal(await params.textContent(), '16,777,216');
  assert.equal(await widget.locator('button[data-op="W_Q"]').getAttribute('aria-pressed'), 'true');
  assert.deepEqual(problems, []);
  await context.close();
});
