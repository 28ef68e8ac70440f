// End-to-end tests of what every page offers a reader: search, dark mode,
// keyboard navigation, shareable URLs, and working offline.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { start, watchedPage, ready, readyExercises, readyLibrary, verdictOf, DIST } from './lib.mjs';
import { serve } from './serve.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('search finds the right part, works from the keyboard, and navigates', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base);
  await ready(page);
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'site-search');
  await page.keyboard.type('wraparound');
  const first = page.locator('[data-search-results] li').first();
  assert.match(await first.textContent(), /Part 2\. How to Think About TPUs/);
  await page.keyboard.type(' zzqx');
  assert.match(await page.locator('.search-empty').textContent(), /No part/);
  await page.fill('#site-search', 'ridge point');
  await page.locator('[data-search-results] a').first().click();
  await page.waitForSelector('[data-page="rooflines"]');
  assert.deepEqual(problems, []);
  await context.close();
});

test('dark mode follows the system and the toggle is remembered', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, { colorScheme: 'dark' });
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
  assert.equal(await theme(), 'dark');
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(24, 26, 31)');
  await page.locator('.theme-toggle').click();
  assert.equal(await theme(), 'light');
  await page.reload();
  await ready(page);
  assert.equal(await theme(), 'light', 'the choice was not remembered');
  assert.deepEqual(problems, []);
  await context.close();
});

test('n and p move between parts; sliders keep their arrow keys', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  await page.keyboard.press('n');
  await page.waitForSelector('[data-page="tpus"]');
  // The keys are the bundle's: a page whose bundle has not started has none.
  await ready(page);
  await page.keyboard.press('p');
  await page.waitForSelector('[data-page="rooflines"]');
  const slider = page.locator('#roofline-b');
  await slider.focus();
  const v = await slider.inputValue();
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.locator('main [data-page]').getAttribute('data-page'), 'rooflines');
  // One step of the slider, and the batch it shows: 64 · 2^(1/20) ≈ 66.
  assert.equal(Number(await slider.inputValue()), Number(v) + 1);
  assert.equal(await page.locator('[data-widget="roofline"] .slider-row input[type="text"]').inputValue(), '66');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Cite gives the page\'s BibTeX with its permalink, and the book\'s', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'tpus');
  await ready(page);
  const cite = page.locator('details[data-cite]');
  const entry = cite.locator('pre[data-bibtex="page"]');
  assert.equal(await entry.isVisible(), false, 'closed until asked');
  await cite.locator('summary').click();
  assert.equal(await entry.isVisible(), true);
  const text = await entry.textContent();
  assert.match(text, /^@misc\{ridgeline-tpus,\n/);
  assert.match(text, /\n {2}title = \{Part 2\. How to Think About TPUs — ridgeline\},\n/);
  assert.match(text, /ridgeline version \d+\.\d+\.\d+/);
  assert.ok(text.includes(`\n  url = {${env.base}tpus}\n}`), text);
  const book = await cite.locator('pre[data-bibtex="book"]').textContent();
  assert.match(book, /^@article\{scaling-book,/);
  assert.match(book, /author = \{Austin, Jacob and Douglas, Sholto and .* and Pope, Reiner\}/);
  assert.match(book, /year = \{2025\}/);
  // The head says the same to reference managers and link previews.
  const title = 'Part 2. How to Think About TPUs — ridgeline';
  assert.equal(await page.locator('meta[name="citation_title"]').getAttribute('content'), title);
  assert.equal(await page.locator('meta[property="og:title"]').getAttribute('content'), title);
  assert.match(await page.locator('meta[name="citation_reference"]').getAttribute('content'), /^citation_title=How to Scale Your Model; citation_author=Austin, Jacob;/);
  // Home's permalink is the site's address.
  await page.goto(env.base);
  await ready(page);
  assert.ok((await page.locator('pre[data-bibtex="page"]').textContent()).includes(`url = {${env.base}}`));
  assert.deepEqual(problems, []);
  await context.close();
});

test('? opens the sheet of shortcuts, Escape closes it; d flips the theme; home lists them', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const sheet = page.locator('dialog#keys');
  assert.equal(await sheet.isVisible(), false);
  await page.keyboard.press('?');
  assert.equal(await sheet.isVisible(), true);
  const keys = await sheet.locator('dt').allTextContents();
  const what = await sheet.locator('dd').allTextContents();
  assert.deepEqual(keys.map((k) => k.trim()), ['n →', 'p ←', '/', 'd', '?', 'Esc']);
  assert.deepEqual(what, ['next part', 'previous part', 'search the parts', 'dark or light theme', 'this list of shortcuts', 'close it, or clear the search']);
  await page.keyboard.press('Escape');
  assert.equal(await sheet.isVisible(), false);
  // Its Close button closes it too.
  await page.keyboard.press('?');
  await sheet.locator('button[data-close]').click();
  assert.equal(await sheet.isVisible(), false);
  // d flips the theme as the toggle does.
  const theme = () => page.evaluate(() => document.documentElement.getAttribute('data-theme'));
  const was = await theme();
  await page.keyboard.press('d');
  assert.notEqual(await theme(), was);
  await page.keyboard.press('d');
  assert.equal(await theme(), was);
  // Not while typing: ? in the search box is a character.
  await page.keyboard.press('/');
  await page.keyboard.type('?');
  assert.equal(await sheet.isVisible(), false);
  assert.equal(await page.inputValue('#site-search'), '?');
  // The home page lists the same shortcuts.
  await page.goto(env.base);
  await ready(page);
  assert.deepEqual(await page.locator('main dl.shortcuts dd').allTextContents(), what);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a widget state survives a reload of its URL', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  await page.locator('[data-widget="roofline"] select').first().selectOption('h100');
  await page.locator('[data-widget="roofline"] input.batch-text').fill('1500');
  await page.waitForFunction(() => location.search.includes('roofline.b=1500'));
  const url = page.url();
  const fresh = await context.newPage();
  await fresh.goto(url);
  await ready(fresh);
  assert.equal(await fresh.locator('[data-widget="roofline"] select').first().inputValue(), 'h100');
  assert.equal(await fresh.locator('[data-widget="roofline"] input.batch-text').inputValue(), '1500');
  assert.equal(await verdictOf(fresh, 'roofline'), 'compute-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a link over 2000 characters loads every widget it can and names the one it dropped', async () => {
  // Three widgets each carrying a reader's chip whose sixty-letter name is
  // twelve characters a letter in a URL: about 800 characters each. Before,
  // the whole query was refused and every widget silently showed its defaults.
  const name = '\u{1D6FC}'.repeat(60);
  const code = `c1~${name}~g~bf16:1.97e14_int8:3.94e14~1.6e10~hbm:8.2e11_ici:9e10:4.5e10~t:2:16x16x1:4x2x1:axis16:1`;
  const query = new URLSearchParams([
    ['chip-map.chip', code], ['torus.chip', code], ['streaming.chip', code],
  ]).toString();
  assert.ok(query.length > 2000 && query.length < 3000, `${query.length}`);
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(`${env.base}tpus?${query}`);
  await ready(page);
  for (const w of ['chip-map', 'torus']) {
    const picked = page.locator(`[data-widget="${w}"] select`).first().locator('option:checked');
    assert.equal(await picked.textContent(), name, `${w} did not load the chip from the link`);
    assert.equal(await page.locator(`[data-widget="${w}"] [data-notice]:not([hidden])`).count(), 0, w);
  }
  const dropped = page.locator('[data-widget="streaming"]');
  assert.match(await dropped.locator('[data-notice]').textContent(), /longer than 2000 characters; the widgets above this one used all of it/);
  assert.equal(await dropped.locator('select').first().inputValue(), 'v5e');
  assert.deepEqual(problems, []);
  await context.close();
});

test('after one visit the site works offline', async () => {
  const server = await serve(DIST, 0);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const context = await env.browser.newContext();
  const page = await context.newPage();
  await page.goto(base + 'rooflines');
  await ready(page);
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload();
  await ready(page);
  await new Promise((r) => server.close(r));
  server.closeAllConnections?.();
  await page.reload();
  await ready(page);
  assert.match(await page.locator('h1').first().textContent(), /All About Rooflines/);
  await page.locator('#roofline-b').focus();
  await page.keyboard.press('End');
  assert.equal(await verdictOf(page, 'roofline'), 'compute-bound');
  // Another chapter, by deep link: its text is cached (every page's HTML is),
  // its widgets are not (their bundle was never fetched) and the page says so.
  await page.goto(base + 'sharding');
  assert.equal(await page.locator('main [data-page]').getAttribute('data-page'), 'sharding');
  await page.locator('[data-islands-status]').waitFor({ state: 'visible', timeout: 15000 });
  assert.ok((await page.locator('main .prose').count()) > 0);
  await context.close();
});

test('"make available offline" downloads every bundle after showing its size', async () => {
  // What the button must state: the size a reader downloads, every file of
  // the bundles as served (its .gz where there is one), in MB to two figures.
  const served = (dir) => fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return sum + served(file);
    if (/\.(gz|br)$/.test(e.name)) return sum;
    return sum + fs.statSync(fs.existsSync(file + '.gz') ? file + '.gz' : file).size;
  }, 0);
  const megabytes = served(path.join(DIST, '_b')) / 1e6;
  const stated = megabytes < 10 ? megabytes.toFixed(1) : megabytes.toFixed(0);
  // Every page bundle (one a page of widgets) and the two shared ones.
  const pages = fs.readdirSync(path.join(DIST, '_b'))
    .filter((b) => !['main', 'exercises', 'library'].includes(b));
  assert.ok(pages.length >= 10, `${pages.length} page bundles`);
  const server = await serve(DIST, 0);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const context = await env.browser.newContext();
  const page = await context.newPage();
  await page.goto(base + 'rooflines');
  await ready(page);
  await page.evaluate(() => navigator.serviceWorker.ready);
  const button = page.locator('.offline-button');
  assert.equal((await button.textContent()).trim(), `Make every widget available offline (${stated} MB)`);
  await button.click();
  await page.locator('[data-offline-status]', { hasText: 'Done' }).waitFor({ timeout: 60000 });
  await new Promise((r) => server.close(r));
  server.closeAllConnections?.();
  // Offline now, each page never visited comes alive from the cache: its
  // widgets start (not the "could not start" notice) and show their numbers.
  for (const name of pages) {
    await page.goto(base + name);
    await ready(page);
    assert.equal(await page.locator('main [data-page]').getAttribute('data-page'), name);
    assert.equal(await page.locator('[data-islands-status]').isVisible(), false, name);
    const first = page.locator('main [data-widget]').first();
    assert.match(await first.innerText(), /\d/, `${name}: the first widget shows no number`);
  }
  // The problems' checker and the reader's library come from the cache too.
  await page.goto(base + 'rooflines');
  await ready(page);
  await readyExercises(page);
  await page.goto(base + 'applied-training');
  await ready(page);
  await readyLibrary(page);
  await context.close();
});
