// End-to-end tests of Parts 0, 10 and 11 and the page about the numbers.
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
  assert.match(await code.textContent(), /out_sharding=P\(None, 'X'\)/);
  await widget.locator('input.mesh-text').fill('X=3');
  assert.match(await widget.locator('[data-notice]').textContent(), /divid|divisible/i);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the page about the numbers lists every chip with its source', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'numbers');
  await ready(page);
  const rows = page.locator('[data-registry="chips"] tbody tr');
  assert.ok((await rows.count()) > 60);
  const v5e = await page.locator('[data-registry="chips"] tr', { hasText: 'TPU v5e' }).first().textContent();
  assert.match(v5e, /1\.97e14 FLOPs\/s.*Part 2/);
  assert.match(await page.locator('[data-registry="models"]').textContent(), /LLaMA 3 70B|Llama 3 70B|LLaMA-3 70B/i);
  await page.goto(env.base + 'conclusion');
  await ready(page);
  assert.match(await page.locator('h1').first().textContent(), /Conclusions/);
  assert.deepEqual(problems, []);
  await context.close();
});
