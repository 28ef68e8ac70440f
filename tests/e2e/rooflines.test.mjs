// End-to-end tests of the widgets on /rooflines (Part 1): the roofline's
// batch slider and draggable point, its achievable roof, the overlap widget,
// the two rooflines and the tile of a matmul.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, verdictOf } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('moving the batch slider with the keyboard flips the verdict and redraws the plot', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const widget = page.locator('[data-widget="roofline"]');
  await widget.scrollIntoViewIfNeeded();
  assert.equal(await verdictOf(page, 'roofline'), 'memory-bound');
  const batch = widget.locator('.slider-row input[type="text"]');
  const label = async () => (await widget.locator('.layer.overlay svg').textContent()).match(/B = [\d,]*\d/)[0];
  assert.equal(await batch.inputValue(), '64');
  assert.equal(await label(), 'B = 64');
  const plot = widget.locator('.plot');
  const before = await plot.screenshot();
  const slider = widget.locator('#roofline-b');
  await slider.focus();
  // Each ArrowRight multiplies B by 2^(1/20); 60 steps take 64 to 512, past the ridge (240).
  for (let i = 0; i < 60; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await verdictOf(page, 'roofline'), 'compute-bound');
  assert.equal(await batch.inputValue(), '512');
  assert.equal(await label(), 'B = 512');
  assert.equal(await widget.locator('.verdict-line').textContent(), 'At B = 512 this matmul is compute-bound.');
  const after = await plot.screenshot();
  assert.ok(!before.equals(after), 'the plot pixels did not change');
  await page.keyboard.press('Home');
  assert.equal(await batch.inputValue(), '1');
  assert.equal(await verdictOf(page, 'roofline'), 'memory-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the roofline\'s achievable roof: a share from the link, the presets, the keyboard and a refused share', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines?roofline.flops_derate=0.8');
  await ready(page);
  const widget = page.locator('[data-widget="roofline"]');
  await widget.scrollIntoViewIfNeeded();
  // 80 % of the v5e's bf16 peak over its HBM: the ridge falls from 240 to 192 FLOPs/B.
  assert.equal(await widget.locator('[data-ridge]').textContent(), '192 FLOPs/B');
  assert.equal(await widget.locator('#roofline-flops-derate').inputValue(), '0.8');
  await widget.locator('[data-derate-preset="peak"]').click();
  assert.equal(await widget.locator('[data-ridge]').textContent(), '240 FLOPs/B');
  await widget.locator('[data-derate-preset="achievable"]').click();
  await page.waitForFunction(() => /roofline\.flops_derate=0\.95/.test(location.search));
  // The keyboard moves a share by one percent.
  await widget.locator('#roofline-hbm-derate').focus();
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => /roofline\.hbm_derate=0\.99/.test(location.search));
  // A share above one is refused by name, and the quoted roof stays.
  await page.goto(env.base + 'rooflines?roofline.flops_derate=1.5');
  await ready(page);
  const again = page.locator('[data-widget="roofline"]');
  assert.match(await again.locator('[data-notice]').textContent(), /the FLOPs derate must be at most 1\./);
  assert.equal(await again.locator('[data-ridge]').textContent(), '240 FLOPs/B');
  assert.deepEqual(problems, []);
  await context.close();
});

test('dragging the point on the plot moves the slider', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const widget = page.locator('[data-widget="roofline"]');
  await widget.scrollIntoViewIfNeeded();
  const slider = widget.locator('#roofline-b');
  const start = Number(await slider.inputValue());
  const box = await widget.locator('.layer.overlay').boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * 0.3, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.6, y, { steps: 8 });
  await page.mouse.move(box.x + box.width * 0.75, y, { steps: 8 });
  await page.mouse.up();
  const end = Number(await slider.inputValue());
  assert.ok(end > start, `slider stayed at ${start} -> ${end}`);
  assert.equal(await verdictOf(page, 'roofline'), 'compute-bound');
  // The batch the slider now holds is the one the reader sees everywhere:
  // in its text box, on the dragged point and in the verdict, past the ridge.
  const b = await widget.locator('.slider-row input[type="text"]').inputValue();
  assert.ok(Number(b) > 240, `B = ${b} is not past the v5e's ridge`);
  const shown = Number(b).toLocaleString('en-US');
  assert.match(await widget.locator('.layer.overlay svg').textContent(), new RegExp(`B = ${shown}(?!,?\\d)`));
  assert.equal(await widget.locator('.verdict-line').textContent(), `At B = ${shown} this matmul is compute-bound.`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the overlap widget turns compute-bound past D = 8,756', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const widget = page.locator('[data-widget="overlap"]');
  await widget.scrollIntoViewIfNeeded();
  assert.equal(await verdictOf(page, 'overlap'), 'communication-bound');
  // Predict, then reveal: commit a guess, then the crossover is shown.
  await widget.locator('input.guess').fill('10000');
  await widget.getByRole('button', { name: 'Commit my guess' }).click();
  assert.match(await widget.locator('[data-predict]').textContent(), /8,756.*1\.1× too high/);
  assert.match(await widget.textContent(), /above D = 8,756/);
  await widget.locator('input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.equal(await verdictOf(page, 'overlap'), 'compute-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

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

test('Part 1, Question 3: both shapes against the batch, each reaching the peak where core says', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const w = page.locator('[data-widget="batch-roofline"]');
  await w.scrollIntoViewIfNeeded();
  const shape = (i) => w.locator(`li[data-shape="${i}"]`);
  // At B = 192 the 4096-wide matmul is past its crossing (≈136), the 1024-wide one short of it (≈226).
  assert.equal(await shape(0).locator('[data-verdict]').textContent(), 'compute-bound');
  assert.equal(await shape(1).locator('[data-verdict]').textContent(), 'memory-bound');
  assert.match(await shape(0).locator('[data-crossing]').textContent(), /B ≈ 136/);
  assert.match(await shape(1).locator('[data-crossing]').textContent(), /B ≈ 226/);
  const svg = await w.locator('svg').first().textContent();
  assert.match(svg, /B ≈ 136/);
  assert.match(svg, /B ≈ 226/);
  // Past 226 both compute.
  await w.locator('input[aria-label="batch B"]').fill('240');
  await w.locator('input[aria-label="batch B"]').press('Enter');
  assert.equal(await shape(1).locator('[data-verdict]').textContent(), 'compute-bound');
  // A width of zero is refused, and the verdicts stay.
  await w.locator('input[aria-label="second shape: contracting dimension D"]').fill('0');
  await w.locator('input[aria-label="second shape: contracting dimension D"]').press('Enter');
  assert.match(await w.locator('[data-notice]').textContent(), /D/);
  assert.equal(await shape(1).locator('[data-verdict]').textContent(), 'compute-bound');
  assert.deepEqual(problems, []);
  await context.close();
});
