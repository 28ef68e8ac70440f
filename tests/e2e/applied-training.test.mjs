// End-to-end tests of the training planner on /applied-training (Part 6):
// the book's run by default, and refused choices put back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, verdictOf } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

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

test('Part 6: a refused plan or tensor degree is put back in the planner', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  const widget = page.locator('[data-widget="training-planner"]');
  await widget.scrollIntoViewIfNeeded();
  await widget.locator('input.in-tp').fill('3');
  await widget.locator('input.in-tp').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /tensor degree 3/);
  assert.equal(await widget.locator('input.in-tp').inputValue(), '4');
  // On a four-chip slice, four-way tensor parallelism leaves no FSDP: refused,
  // and the plan select shows the plan still in force.
  const plan = widget.locator('select').nth(2);
  await plan.selectOption('fsdp');
  await widget.locator('input.in-slice').fill('4');
  await widget.locator('input.in-slice').press('Enter');
  await plan.selectOption('fsdp-tp');
  assert.match(await widget.locator('[data-notice]').textContent(), /tensor degree 4/);
  assert.equal(await plan.inputValue(), 'fsdp');
  assert.deepEqual(problems, []);
  await context.close();
});
