// End-to-end tests of Parts 4, 5 and 6: the Transformer calculator, the live
// training roofline and the LLaMA 3 training planner.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, verdictOf } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 4: the calculator shows LLaMA 3-70B at about 70.6B parameters and follows T', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'transformers');
  await ready(page);
  const widget = page.locator('[data-widget="transformer"]');
  assert.match(await widget.locator('[data-total-params]').textContent(), /^70\.6B$/);
  // The prose carries the same number, through a value directive.
  assert.match(await page.locator('main').textContent(), /70\.6B/);
  const split = widget.locator('[data-split]');
  const before = await split.textContent();
  await widget.locator('input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.notEqual(await split.textContent(), before);
  // Heads that do not divide: a notice, and the last valid model stays.
  await widget.locator('input.dim-k').fill('7');
  await widget.locator('input.dim-k').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /divide/);
  assert.match(await widget.locator('[data-total-params]').textContent(), /^70\.6B$/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 5: moving the batch with the keyboard flips the verdict', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'training');
  await ready(page);
  const widget = page.locator('[data-widget="training-roofline"]');
  assert.equal(await verdictOf(page, 'training-roofline'), 'communication-bound');
  assert.match(await widget.locator('[data-boundary]').textContent(), /850 per chip/);
  const slider = widget.locator('input[type="range"]');
  await slider.focus();
  await page.keyboard.press('End');
  assert.equal(await verdictOf(page, 'training-roofline'), 'compute-bound');
  await page.keyboard.press('Home');
  assert.equal(await verdictOf(page, 'training-roofline'), 'communication-bound');
  // A mesh larger than a pod: a notice, nothing else changes.
  await widget.locator('input.mesh-text').fill('28x28x28');
  await widget.locator('input.mesh-text').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /8,?960|slice/);
  assert.equal(await verdictOf(page, 'training-roofline'), 'communication-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 6: the planner defaults to the book run and shows days to train', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  const widget = page.locator('[data-widget="training-planner"]');
  const days = widget.locator('[data-days]');
  assert.match(await days.textContent(), /^4[45](\.\d)?$/);
  assert.equal(await verdictOf(page, 'training-planner'), 'compute-bound');
  await widget.locator('input.in-pods').fill('4');
  await widget.locator('input.in-pods').press('Enter');
  const four = parseFloat(await days.textContent());
  assert.ok(four > 10 && four < 12, `four pods: ${four} days`);
  assert.deepEqual(problems, []);
  await context.close();
});
