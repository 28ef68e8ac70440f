// End-to-end tests of the widgets on /profiling (Part 9): the profile viewer
// (its prose numbers, the bottleneck question, overlap, the trace window) and
// the XLA op reader.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, verdictOf } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 9: the page loads with its prose numbers and no console errors', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'profiling');
  await ready(page);
  await page.waitForSelector('[data-widget="profile"] .plot svg');
  const main = await page.locator('main').textContent();
  // The tiling blow-up of f32[3,5] in T(2,2), through value directives.
  assert.match(main, /\[4, 6\]/);
  assert.match(main, /1\.6×/);
  assert.ok(await page.locator('[data-widget="exercises"]').count() >= 1);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 9: answering the bottleneck question reveals the verdict, which follows the batch', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'profiling');
  await ready(page);
  const widget = page.locator('[data-widget="profile"]');
  await widget.locator('.plot svg').waitFor();
  assert.equal(await widget.locator('[data-verdict]').count(), 0);
  await widget.locator('input[type="radio"][value="ici"]').check();
  await widget.locator('button.reveal').click();
  assert.equal(await verdictOf(page, 'profile'), 'communication-bound');
  assert.equal(await widget.locator('[data-answer-result]').getAttribute('data-answer-result'), 'right');
  const slider = widget.locator('input[type="range"]');
  await slider.focus();
  await page.keyboard.press('End');
  assert.equal(await verdictOf(page, 'profile'), 'compute-bound');
  assert.equal(await widget.locator('[data-answer-result]').getAttribute('data-answer-result'), 'wrong');
  // A batch that is not a number: a notice, and the verdict stays.
  await widget.locator('input.batch-text').fill('lots');
  await widget.locator('input.batch-text').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /not a number/);
  assert.equal(await verdictOf(page, 'profile'), 'compute-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 9: toggling overlap redraws the trace and changes the step time', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'profiling');
  await ready(page);
  const widget = page.locator('[data-widget="profile"]');
  const trace = widget.locator('.plot .layer');
  await trace.locator('svg').waitFor();
  const drawing = () => trace.innerHTML();
  const step = widget.locator('[data-step-time]');
  const before = { svg: await drawing(), text: await step.textContent() };
  assert.match(before.text, /with overlap/);
  await widget.locator('input.overlap').uncheck();
  const after = { svg: await drawing(), text: await step.textContent() };
  assert.match(after.text, /without overlap/);
  assert.notEqual(after.text, before.text);
  assert.notEqual(after.svg, before.svg);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 9: the profile names its trace window and explains "of the step"', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'profiling');
  await ready(page);
  const widget = page.locator('[data-widget="profile"]');
  await widget.scrollIntoViewIfNeeded();
  const windowText = widget.locator('[data-trace-window]');
  assert.match(await windowText.textContent(), /^Trace window: the first \d+ layers? of the step's 80 layers/);
  assert.match(await windowText.textContent(), /time axis spans 0 to \d/);
  const share = widget.locator('[data-step-share]');
  assert.match(await share.textContent(), /adds up to \d+(\.\d+)?%: more than 100 %/);
  await widget.locator('input.overlap').uncheck();
  assert.match(await share.textContent(), /adds up to 100%: no more than 100 %/);
  assert.match(await windowText.textContent(), /as drawn, without overlap/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 9: the XLA op reader pads, costs and points at bad syntax', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'profiling');
  await ready(page);
  const w = page.locator('[data-widget="xla-op"]');
  await w.scrollIntoViewIfNeeded();
  assert.equal(await w.locator('[data-collective]').textContent(), 'reduce-scatter');
  assert.equal(await w.locator('[data-bytes]').textContent(), '25.17 MB');
  await w.locator('select').first().selectOption({ label: 'a small padded add' });
  assert.equal(await w.locator('[data-padded]').textContent(), '[4,6]');
  assert.equal(await w.locator('[data-bytes]').textContent(), '180 B');
  const line = w.locator('textarea');
  await line.fill('%add.7 = f32[3,7]{1,0:T(2,2)} add(f32[3,7]{1,0:T(2,2)} %a, f32[3,7]{1,0:T(2,2)} %b)');
  assert.equal(await w.locator('[data-padded]').textContent(), '[4,8]');
  assert.equal(await w.locator('[data-flops]').textContent(), '21');
  // Broken syntax: the message names the character, the last op stays.
  await line.fill('%x = f32[3,5}');
  assert.match(await w.locator('[data-notice]').textContent(), /^at character 13: .*⟨}⟩/);
  assert.equal(await w.locator('[data-padded]').textContent(), '[4,8]');
  assert.deepEqual(problems, []);
  await context.close();
});
