// End-to-end tests of Part 12 in depth, second part: the anatomy of a GPU with
// warp divergence, and the timed pipeline on GPUs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 12: the GPU anatomy shows each part and steps a divergent warp', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="gpu-anatomy"]');
  await widget.scrollIntoViewIfNeeded();
  assert.equal(await widget.locator('p.chip-title').textContent(), 'H100: 132 SMs');
  assert.equal(await widget.locator('[data-part-count]').textContent(), '528 on the chip, 4 per SM');
  assert.equal(await widget.locator('[data-part-rate]').textContent(), '990 TFLOP/s');
  // The H100 against a v5p: 528 Tensor Cores for 8 MXUs.
  assert.match(await widget.locator('[data-part-tpu]').textContent(), /^MXU: 8 on a TPU v5p/);
  // Selecting HBM shows its capacity and bandwidth.
  await widget.locator('button[data-part-button="hbm"]').click();
  assert.equal(await widget.locator('[data-part-capacity]').textContent(), '80 GB');
  assert.equal(await widget.locator('[data-part-bandwidth]').textContent(), '3.35 TB/s');
  // A B200 has 148 SMs and TMEM; its peak rebuilt from the parts is 2.26 PFLOP/s.
  await widget.locator('select').first().selectOption('b200');
  assert.equal(await widget.locator('p.chip-title').textContent(), 'B200: 148 SMs');
  assert.equal(await widget.locator('.sm-cell').count(), 148);
  await widget.locator('button[data-part-button="tmem"]').click();
  assert.equal(await widget.locator('[data-part]').getAttribute('data-part'), 'tmem');
  assert.match(await widget.locator('[data-peak-from-parts]').textContent(), /= 2\.26 PFLOP\/s/);
  // The warp: 8 lanes take the if, 24 the else; both paths run, 40% of lane-cycles are lost.
  const cycles = widget.locator('[data-cycles]');
  assert.equal(await cycles.textContent(), '5');
  assert.equal(await widget.locator('[data-lost]').textContent(), '40%');
  await widget.locator('button[aria-label="next step"]').click();
  assert.equal(await widget.locator('[data-position]').textContent(), 'cycle 1 / 5');
  assert.equal(await widget.locator('li[data-lane="0"]').getAttribute('class'), 'lane active');
  assert.equal(await widget.locator('li[data-lane="8"]').getAttribute('class'), 'lane masked');
  // No lane takes the if: the warp is uniform, 3 cycles, nothing lost.
  await widget.locator('input.in-taken').focus();
  await page.keyboard.press('Home');
  assert.equal(await cycles.textContent(), '3');
  assert.equal(await widget.locator('[data-lost]').textContent(), '0%');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: the GPU pipeline times its bubble, sends and reductions', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="gpu-parallelism"]');
  await widget.scrollIntoViewIfNeeded();
  const bubble = widget.locator('[data-bubble]');
  // 4 stages, 4 microbatches: (S - 1)/(M + S - 1) = 3/7.
  assert.equal(await bubble.textContent(), '42.9%');
  // The first timeline is GPipe's (the zero-bubble schedule is drawn below it).
  const svg = widget.locator('svg.gpu-pipeline').first();
  assert.equal(await svg.locator('.slot.reduce').count(), 4);
  const before = await svg.innerHTML();
  // 32 microbatches: 3/35.
  await widget.locator('input.in-microbatches').focus();
  await page.keyboard.press('End');
  assert.equal(await bubble.textContent(), '8.57%');
  assert.equal(await svg.locator('.slot.fwd').count(), 4 * 32);
  assert.notEqual(await svg.innerHTML(), before, 'the timeline did not redraw');
  // One replica: nothing to reduce, and the idle share falls to the bubble with sends.
  await widget.locator('input.in-dp').fill('1');
  await widget.locator('input.in-dp').press('Enter');
  assert.equal(await widget.locator('[data-reduce]').textContent(), 'none: one replica');
  assert.equal(await svg.locator('.slot.reduce').count(), 0);
  // A bad value is refused with a message and the state stays.
  await widget.locator('input.in-tp').fill('9');
  await widget.locator('input.in-tp').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /^tp/);
  assert.equal(await bubble.textContent(), '8.57%');
  assert.deepEqual(problems, []);
  await context.close();
});
