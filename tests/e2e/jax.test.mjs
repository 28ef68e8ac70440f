// End-to-end tests of the widgets on /jax (Part 10): the generated code and
// the collective matmul timelines.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test("Part 10's generated code changes when the sharding changes", async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'jax');
  await ready(page);
  const widget = page.locator('[data-widget="jax-code"]');
  const code = widget.locator('code[data-code]');
  assert.equal(await code.getAttribute('data-code'), 'manual');
  assert.match(await code.textContent(), /jax\.lax\.all_gather\(a, 'X', axis=1, tiled=True\)/);
  await widget.locator('input.spec').fill('A[I, J_X] · B[J_X, K] -> C[I, K_X]');
  assert.match(await code.textContent(), /psum_scatter\(c, 'X', scatter_dimension=1, tiled=True\)/);
  assert.doesNotMatch(await code.textContent(), /all_gather/);
  await widget.getByRole('tab', { name: /explicit/ }).click();
  assert.equal(await code.getAttribute('data-code'), 'explicit');
  assert.match(await code.textContent(), /out_sharding=jax\.P\(None, None, unreduced=\{'X'\}\)/);
  assert.match(await code.textContent(), /c = jax\.sharding\.reshard\(c, jax\.P\(None, 'X'\)\)/);
  await widget.locator('input.mesh-text').fill('X=3');
  assert.match(await widget.locator('[data-notice]').textContent(), /divid|divisible/i);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 10: the collective matmul timelines follow the mesh', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'jax');
  await ready(page);
  const w = page.locator('[data-widget="overlap-timeline"]');
  await w.scrollIntoViewIfNeeded();
  assert.equal(await w.locator('[data-blocking]').textContent(), '45.1 µs');
  assert.equal(await w.locator('[data-overlapped]').textContent(), '40.7 µs');
  assert.equal(await w.locator('[data-matmul]').textContent(), '21.8 µs');
  const chart = w.locator('.plot .layer');
  const before = await chart.innerHTML();
  // Eight chips on Y: smaller chunks, and each hop's latency sets the loop's pace.
  await w.locator('select').nth(1).selectOption('8');
  assert.equal(await w.locator('[data-blocking]').textContent(), '34.2 µs');
  assert.equal(await w.locator('[data-overlapped]').textContent(), '43 µs');
  assert.notEqual(await chart.innerHTML(), before);
  await w.locator('input[aria-label="contracting dimension D"]').fill('2047');
  assert.match(await w.locator('[data-notice]').textContent(), /not divisible/);
  assert.equal(await w.locator('[data-blocking]').textContent(), '34.2 µs');
  assert.deepEqual(problems, []);
  await context.close();
});

test("Part 10's static figures: the book's two profiles and the MoE ragged plan, without JavaScript", async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, { javaScriptEnabled: false });
  await page.goto(env.base + 'jax');
  const profiles = page.locator('.static-figure [data-widget="overlap-profiles"]');
  const svg = await profiles.locator('svg').innerHTML();
  assert.match(svg, /jit program, 311 µs/);
  assert.match(svg, /jit program, 244 µs/);
  assert.equal((svg.match(/>all-gather</g) || []).length, 1);
  assert.equal((svg.match(/>permute</g) || []).length, 3);
  assert.match(await profiles.locator('[data-numbers]').textContent(), /busy 72 % .* busy 92 %/);
  const moe = page.locator('.static-figure [data-widget="ragged-moe"]');
  const text = await moe.locator('svg').textContent();
  for (const s of ['send 1 1 2 0', 'send 2 1 0 1', '3 + 2', '2 + 1']) assert.ok(text.includes(s), s);
  assert.match(await moe.locator('[data-numbers]').textContent(), /in groups of 3 and 2/);
  assert.deepEqual(problems, []);
  await context.close();
});
