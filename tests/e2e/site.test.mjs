// End-to-end tests of the built site (dist/), as a reader would use it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, verdictOf } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('the home page lists all 13 parts, every one written, and links to the book for each', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base);
  await ready(page);
  const parts = page.locator('.parts > li');
  assert.equal(await parts.count(), 13);
  assert.match(await parts.nth(1).textContent(), /All About Rooflines\d+ min read/);
  assert.equal(await page.locator('.parts > li.todo').count(), 0, 'a part lost its chapter');
  for (let i = 0; i < 13; i++) assert.match(await parts.nth(i).textContent(), new RegExp(`^Part ${i}.*\\d+ min read`));
  const bookLinks = await page.locator('.parts .book-link').evaluateAll((as) => as.map((a) => a.href));
  assert.equal(bookLinks.length, 13);
  assert.ok(bookLinks.every((h) => h.startsWith('https://jax-ml.github.io/scaling-book/')));
  assert.deepEqual(problems, []);
  await context.close();
});

test('bad URL parameters give a notice, and the page still works', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  for (const query of ['roofline.b=-5', 'roofline.b=NaN', 'roofline.chip=%3Cscript%3E', 'roofline.d=1e999&roofline.op=nope', 'overlap.d=0']) {
    await page.goto(`${env.base}rooflines?${query}`);
    await ready(page);
    const widget = query.startsWith('overlap') ? 'overlap' : 'roofline';
    const notice = page.locator(`[data-widget="${widget}"] [data-notice]`);
    assert.ok(await notice.isVisible(), `no notice for ${query}`);
    assert.match(await notice.textContent(), /Ignored/);
    assert.match(await verdictOf(page, widget), /bound$/);
  }
  assert.equal(await page.locator('script:not([src])').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a good URL parameter sets the widget', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(`${env.base}rooflines?roofline.chip=h100&roofline.b=4096`);
  await ready(page);
  const widget = page.locator('[data-widget="roofline"]');
  assert.equal(await widget.locator('select').first().inputValue(), 'h100');
  // The H100's own ridge (990 TFLOPs/s over 3.35 TB/s), and the batch from the link.
  assert.equal(await widget.locator('[data-ridge]').textContent(), '296 FLOPs/B');
  assert.equal(await widget.locator('.slider-row input[type="text"]').inputValue(), '4096');
  assert.equal(await widget.locator('.verdict-line').textContent(), 'At B = 4,096 this matmul is compute-bound.');
  assert.equal(await verdictOf(page, 'roofline'), 'compute-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

test('every page loads by deep link with no console error and no request to another origin', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base);
  await ready(page);
  const slugs = await page.locator('.parts .part-title').evaluateAll((as) => as.map((a) => new URL(a.href).pathname.slice(1)));
  assert.equal(slugs.length, 13);
  for (const slug of [...slugs, 'no-such-page']) {
    await page.goto(env.base + slug);
    await ready(page);
    const kind = await page.locator('main [data-page]').getAttribute('data-page');
    assert.equal(kind, slug === 'no-such-page' ? 'not-found' : slug, `wrong page for ${slug}`);
    assert.ok((await page.locator('h1').first().textContent()).length > 3);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('links are plain links to documents, and Back returns', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base);
  await ready(page);
  // A mark on the home document's window: a new document starts without it.
  await page.evaluate(() => { window.ridgelineTestMark = 'home'; });
  await page.locator('.parts .part-title', { hasText: 'All About Rooflines' }).click();
  await page.waitForSelector('[data-page="rooflines"]');
  await ready(page);
  assert.equal(new URL(page.url()).pathname, '/rooflines');
  assert.match(await page.title(), /Part 1\. All About Rooflines/);
  assert.equal(await page.evaluate(() => window.ridgelineTestMark), undefined, 'the part opened in the same document');
  assert.equal(await page.evaluate(() => performance.getEntriesByType('navigation')[0].name), `${env.base}rooflines`);
  await page.goBack();
  await page.waitForSelector('[data-page="home"]');
  assert.equal(new URL(page.url()).pathname, '/');
  assert.equal(await page.locator('.parts > li').count(), 13);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the page about the numbers lists every chip with its source', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'numbers');
  await ready(page);
  // Every chip a widget offers, as its picker names it.
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const chips = await page.locator('[data-widget="roofline"] select').first().locator('option').allTextContents();
  assert.ok(chips.length >= 11, chips.join(', '));
  await page.goto(env.base + 'numbers');
  await ready(page);
  const rows = page.locator('[data-registry="chips"] tbody tr');
  const table = await rows.evaluateAll((rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.ok(table.length > 60);
  // Each row: chip, quantity, value, and the part of the book it comes from.
  for (const row of table) {
    assert.equal(row.length, 4, row.join(' | '));
    assert.match(row[3], /^Part \d+: \S/, `${row[0]} ${row[1]} has no source`);
  }
  for (const chip of chips) {
    assert.ok(table.some(([name, quantity]) => name === chip && quantity === 'bf16 peak'), `${chip} has no sourced peak`);
  }
  const v5e = await page.locator('[data-registry="chips"] tr', { hasText: 'TPU v5e' }).first().textContent();
  assert.match(v5e, /1\.97e14 FLOPs\/s.*Part 2/);
  assert.match(await page.locator('[data-registry="models"]').textContent(), /LLaMA 3 70B|Llama 3 70B|LLaMA-3 70B/i);
  await page.goto(env.base + 'conclusion');
  await ready(page);
  assert.match(await page.locator('h1').first().textContent(), /Conclusions/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('home says what each part teaches, its reading time and widgets, and the reader\'s progress', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base);
  await ready(page);
  const part1 = page.locator('li[data-part="1"]');
  assert.match(await part1.locator('.part-teaches').textContent(), /ridge/);
  assert.match(await part1.locator('.part-status').textContent(), /^\d+ min read$/);
  assert.match(await part1.locator('.part-widgets').textContent(), /roofline/);
  assert.equal(await part1.locator('a.book-link').getAttribute('href'), 'https://jax-ml.github.io/scaling-book/roofline/');
  // No stored progress: nothing is shown.
  assert.deepEqual((await page.locator('[data-progress]').allTextContents()).filter((t) => t), []);
  assert.equal(await page.locator('[data-progress="1"]').isVisible(), false);
  // Two of Part 1's problems solved: its line says so, and only its.
  const total = Number(await page.locator('[data-progress="1"]').getAttribute('data-problems'));
  assert.ok(total >= 2);
  await page.evaluate(() => localStorage.setItem('ridgeline.progress.v1', JSON.stringify({
    schema: 'ridgeline-progress', version: 1,
    solved: { 'ch1-ex1a': { attempts: 1, seed: 0 }, 'ch1-ex2': { attempts: 2, seed: 0 } },
  })));
  await page.reload();
  await ready(page);
  assert.equal(await page.locator('[data-progress="1"]').textContent(), `2 of ${total} problems solved`);
  assert.deepEqual((await page.locator('[data-progress]').allTextContents()).filter((t) => t).length, 1);
  assert.deepEqual(problems, []);
  await context.close();
});
