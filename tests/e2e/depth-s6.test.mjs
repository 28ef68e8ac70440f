// End-to-end tests of session 6, task C: the Transformer layer on the
// introduction, the reduce-scattering collective matmul (Part 3, case 3), the
// profile's trace window and "of the step" column (Part 9), and the
// zero-bubble pipeline schedule (Part 12).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

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

test('Part 3: the collective matmul reduce-scatters partial sums in case 3', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'sharding');
  await ready(page);
  const widget = page.locator('[data-widget="collective-matmul"]');
  await widget.scrollIntoViewIfNeeded();
  const gather = widget.locator('[data-gather]');
  const before = await gather.textContent();
  await widget.locator('select').nth(1).selectOption('reducescatter');
  // C[8192, 4096] in bf16 over a bidirectional v5e ring: V / W_ici = 746 µs.
  assert.equal(await gather.textContent(), '746 µs');
  assert.notEqual(before, '746 µs');
  assert.match(await widget.locator('[data-case-note]').textContent(), /A\[I, J_X\]/);
  const device0 = widget.locator('tr[data-device="0"]');
  assert.equal(await device0.locator('[data-multiplies]').textContent(), '½C7, ½C1');
  assert.equal(await device0.locator('[data-held]').textContent(), 'A0, B0');
  assert.equal(await widget.locator('[data-step-compute]').textContent(), '43.6 µs');
  // The next step passes the running sums on.
  await widget.locator('button[aria-label="next step"]').click();
  assert.equal(await device0.locator('[data-sends]').textContent(), 'Σ½C7 → device 1, Σ½C1 → device 7');
  // The URL is written after the input settles, as in every widget.
  await page.waitForFunction(() => location.search.includes('case=reducescatter'), null, { timeout: 5000 });
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

test('Part 12: the zero-bubble schedule idles less than 1F1B', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="gpu-parallelism"]');
  await widget.scrollIntoViewIfNeeded();
  const oneF = widget.locator('[data-1f1b-bubble]');
  const zb = widget.locator('[data-zb-bubble]');
  // 4 stages, 4 microbatches: 1F1B idles 3/7 of the step.
  assert.match(await oneF.textContent(), /^42\.9%/);
  const zbBefore = Number(await zb.getAttribute('data-zb-bubble'));
  assert.ok(zbBefore >= 0.2 - 1e-9 && zbBefore < 0.3, String(zbBefore));
  assert.equal(await widget.locator('svg.zero-bubble .slot.wgt').count(), 16);
  // Eight microbatches: 1F1B's bubble falls to 3/11, and the zero-bubble one with it.
  const slider = widget.locator('input.in-microbatches');
  await slider.focus();
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  assert.match(await oneF.textContent(), /^27\.3%/);
  const zbAfter = Number(await zb.getAttribute('data-zb-bubble'));
  assert.ok(zbAfter < zbBefore && zbAfter < 0.273, String(zbAfter));
  assert.equal(await widget.locator('svg.zero-bubble .slot.wgt').count(), 32);
  assert.deepEqual(problems, []);
  await context.close();
});
