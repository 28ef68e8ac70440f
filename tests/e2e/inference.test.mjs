// End-to-end tests of the widgets on /inference (Part 7): generation with and
// without a KV cache, decode on a
// roofline, the serving engine, speculative sampling, the KV cache sharded
// over batch, the book's layer against batch (Appendix A), and 1D against 2D
// weight-stationary sharding.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, readyLibrary } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

/** The number before the unit in a text such as "15.5 µs". */
const micros = (text) => {
  const m = /^([\d.]+) µs$/.exec(text.trim());
  assert.ok(m, `not a time in µs: ${text}`);
  return Number(m[1]);
};

test('Part 7: the cache-steps diagram counts quadratic passes without a cache and linear ones with it', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'inference');
  await ready(page);
  const widget = page.locator('[data-widget="cache-steps"]');
  await widget.scrollIntoViewIfNeeded();
  const naive = widget.locator('[data-naive]');
  const cached = widget.locator('[data-cached]');
  // Four prompt tokens and six generated: 4 + 5 + … + 9 against 4 + 5.
  assert.equal(await naive.textContent(), '39');
  assert.equal(await cached.textContent(), '9');
  const svg = widget.locator('.plot svg');
  assert.match(await svg.innerHTML(), /no cache: 39 token passes/);
  assert.equal(await svg.locator('circle').count(), 12);
  // Four more tokens (End on the slider, ten in all): 4 + … + 13 = 85 against 13.
  await widget.locator('#cache-steps-tokens').focus();
  await page.keyboard.press('End');
  assert.equal(await widget.locator('[data-tokens]').textContent(), '10');
  assert.equal(await naive.textContent(), '85');
  assert.equal(await cached.textContent(), '13');
  assert.match(await svg.innerHTML(), /KV cache: 13 token passes/);
  assert.equal(await svg.locator('circle').count(), 20);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 7: the batch flips the MLP verdict while attention stays memory-bound', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'inference');
  await ready(page);
  const widget = page.locator('[data-widget="inference-roofline"]');
  const linear = widget.locator('[data-component="linear"][data-verdict]');
  const attention = widget.locator('[data-component="attention"][data-verdict]');
  assert.equal(await linear.textContent(), 'memory-bound');
  assert.equal(await attention.textContent(), 'memory-bound');
  // Keyboard: End takes the batch slider to its largest value.
  await widget.locator('input.batch').focus();
  await page.keyboard.press('End');
  assert.equal(await linear.textContent(), 'compute-bound');
  assert.equal(await attention.textContent(), 'memory-bound');
  // Drag: the slider's left end brings the MLP back below the ridge.
  const box = await widget.locator('input.batch').boundingBox();
  await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 2, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  assert.equal(await linear.textContent(), 'memory-bound');
  assert.equal(await attention.textContent(), 'memory-bound');
  // A context longer than the model's is refused with a notice.
  await widget.locator('input.seq-text').fill('100000');
  assert.match(await widget.locator('[data-notice]').textContent(), /context/);
  // The KV-cache calculator: GQA is 8x smaller than MHA for this model.
  const kv = page.locator('[data-widget="kv-cache"]');
  assert.match(await kv.locator('[data-kv="reduction"]').textContent(), /^8×/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 7: the serving engine reruns when the batching policy changes', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'inference');
  await ready(page);
  await readyLibrary(page, '[data-widget="serving-engine"]');
  const w = page.locator('[data-live] > [data-widget="serving-engine"]');
  await w.scrollIntoViewIfNeeded();
  const throughput = w.locator('[data-throughput]');
  const batch = w.locator('[data-mean-batch]');
  assert.equal(await throughput.textContent(), '637');
  assert.equal(await batch.textContent(), '40.3');
  assert.equal(await w.locator('[data-ttft-p50]').textContent(), '8.52 ms');
  const chart = w.locator('.plot .layer');
  const before = await chart.innerHTML();
  // Static batching leaves slots empty while a batch drains.
  await w.locator('select').nth(1).selectOption('static');
  assert.equal(await batch.textContent(), '28.9');
  assert.equal(await throughput.textContent(), '512');
  assert.notEqual(await chart.innerHTML(), before);
  // Interleaved on one 4-chip replica: prefills wait behind decode steps.
  await w.locator('select').nth(1).selectOption('continuous');
  await w.locator('select').nth(0).selectOption('interleaved');
  assert.equal(await w.locator('[data-ttft-p50]').textContent(), '1.76 s');
  assert.match(await chart.innerHTML(), /replica 1/);
  // A prefix cache too large for the chips is refused, the run stays.
  await w.locator('input[aria-label^="prefix cache"]').fill('9000000');
  assert.match(await w.locator('[data-notice]').textContent(), /prefix cache/);
  assert.equal(await w.locator('[data-ttft-p50]').textContent(), '1.76 s');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 7: speculative sampling follows the draft length', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'inference');
  await ready(page);
  const w = page.locator('[data-widget="speculative"]');
  await w.scrollIntoViewIfNeeded();
  assert.equal(await w.locator('[data-tokens]').textContent(), '3.36');
  assert.equal(await w.locator('[data-speedup]').textContent(), '2.80×');
  assert.equal(await w.locator('[data-best]').textContent(), '8');
  assert.equal(await w.locator('[data-simulated]').textContent(), '3.41');
  const k = w.locator('#speculative-draft');
  await k.focus();
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await w.locator('[data-draft]').textContent(), 'k = 8');
  assert.equal(await w.locator('[data-tokens]').textContent(), '4.33');
  assert.equal(await w.locator('[data-speedup]').textContent(), '3.09×');
  assert.equal(await w.locator('[data-round]').textContent(), '1.40');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 7: the KV cache sharded over batch shrinks per chip as Z grows', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'inference');
  await ready(page);
  const w = page.locator('[data-widget="kv-sharding"]');
  await w.scrollIntoViewIfNeeded();
  assert.equal(await w.locator('tbody tr').count(), 12);
  assert.equal(await w.locator('tbody tr[data-kind="AllToAll over Z"]').count(), 2);
  assert.equal(await w.locator('[data-kv-per-chip]').textContent(), '33.6 MB');
  assert.equal(await w.locator('[data-ratio]').textContent(), '4×');
  const z = w.locator('input[aria-label="mesh axis Z, sharding the batch"]');
  await z.fill('8');
  assert.equal(await w.locator('[data-kv-per-chip]').textContent(), '16.8 MB');
  assert.equal(await w.locator('[data-ratio]').textContent(), '8×');
  // Z must divide the batch and the query heads per KV head.
  await z.fill('3');
  assert.match(await w.locator('[data-notice]').textContent(), /does not divide/);
  assert.equal(await w.locator('[data-kv-per-chip]').textContent(), '16.8 MB');
  // Stepping moves the highlighted row.
  await w.locator('#kv-sharding-step').focus();
  await page.keyboard.press('End');
  assert.equal(await w.locator('tbody tr.current td').first().textContent(), '12');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 7 Appendix A: the batch slider runs the book\'s layer from its floor past the critical batch', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'inference');
  await ready(page);
  const widget = page.locator('[data-widget="batch-scaling"]');
  await widget.scrollIntoViewIfNeeded();
  const time = widget.locator('[data-time]');
  const bound = widget.locator('[data-bound]');
  // Two 8192 × 32768 matmuls on four v5e chips bend at B = 256, just past the ridge.
  assert.equal(await widget.locator('[data-knee]').textContent(), '256');
  assert.match(await widget.locator('.plot svg').innerHTML(), /critical batch ≈ 256/);
  assert.equal(await widget.locator('[data-batch]').textContent(), 'B = 512');
  assert.equal(await bound.textContent(), 'compute-bound');
  const t512 = micros(await time.textContent());
  const floor = micros(await widget.locator('[data-floor]').textContent());
  // B = 512 is twice the bend: compute time 512·D·F/C, about twice the floor.
  assert.ok(t512 / floor > 1.9 && t512 / floor < 2.3, `${floor} → ${t512}`);
  // The slider's start, B = 8: memory-bound, at the weight-loading floor.
  await widget.locator('input[type="range"]').focus();
  await page.keyboard.press('Home');
  assert.equal(await widget.locator('[data-batch]').textContent(), 'B = 8');
  assert.equal(await bound.textContent(), 'memory-bound');
  assert.ok(Math.abs(micros(await time.textContent()) / floor - 1) < 0.01);
  assert.deepEqual(problems, []);
  await context.close();
});

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

test("Part 7's shared-cache figure: Character.ai's layout against the plain one, without JavaScript", async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, { javaScriptEnabled: false });
  await page.goto(env.base + 'inference');
  const fig = page.locator('.static-figure [data-widget="shared-kv"]');
  const svg = await fig.locator('svg').innerHTML();
  assert.equal((svg.match(/>L</g) || []).length, 10);
  assert.equal((svg.match(/>G</g) || []).length, 14);
  assert.match(await fig.locator('[data-numbers]').textContent(), /12,288 rows, 8\.0× fewer/);
  assert.deepEqual(problems, []);
  await context.close();
});
