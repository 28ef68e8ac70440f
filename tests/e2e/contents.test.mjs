// End-to-end tests of a chapter's table of contents: beside the text on a
// wide screen, following the reader's section; above the text on a phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

// The hash of the link marked as the section being read, or null.
const marked = (page) => page.evaluate(() => document.querySelector('nav.toc a[aria-current]')?.hash ?? null);

test('at 1280 px the contents stay beside the chapter and mark the section being read', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, {
    viewport: { width: 1280, height: 800 },
  });
  await page.goto(env.base + 'tpus');
  await ready(page);
  const toc = page.locator('nav.toc');
  const ids = await page.locator('.chapter-body h2[id]').evaluateAll((hs) => hs.map((h) => h.id));
  const hashes = await toc.locator('a').evaluateAll((as) => as.map((a) => a.hash.slice(1)));
  assert.deepEqual(hashes, ids, 'one link per section heading, in order');
  const text = await page.locator('.chapter-body .prose').first().boundingBox();
  const box = await toc.boundingBox();
  assert.ok(box.x >= text.x + text.width, `the contents (x ${box.x}) are right of the text (ends at ${text.x + text.width})`);
  assert.ok(box.y < 200, `the contents start at the top (y ${box.y})`);
  // At the top of the page the first section is the one being read.
  await page.waitForFunction(() => document.querySelector('nav.toc a[aria-current]'));
  assert.equal(await marked(page), `#${ids[0]}`);
  // Scrolling to the fourth section moves the mark there, and the contents stay in view.
  await page.locator(`[id="${ids[3]}"]`).evaluate((h) => h.scrollIntoView());
  await page.waitForFunction((id) => document.querySelector('nav.toc a[aria-current]')?.hash === `#${id}`, ids[3]);
  assert.equal(await toc.locator('a[aria-current]').count(), 1);
  const stuck = await toc.boundingBox();
  assert.ok(stuck.y >= 0 && stuck.y < 100, `the contents stay in view (y ${stuck.y})`);
  assert.ok(await page.evaluate(() => window.scrollY) > 1000);
  // And back up: the mark follows.
  await page.locator(`[id="${ids[1]}"]`).evaluate((h) => h.scrollIntoView());
  await page.waitForFunction((id) => document.querySelector('nav.toc a[aria-current]')?.hash === `#${id}`, ids[1]);
  // A link of the contents lands on its section.
  await toc.locator('a').nth(5).click();
  await page.waitForFunction((id) => Math.abs(document.getElementById(id).getBoundingClientRect().top) < 80, ids[5]);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 1280, 'nothing is wider than the window');
  assert.deepEqual(problems, []);
  await context.close();
});

test('at 390 px the contents keep their place above the chapter and scroll away with it', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, {
    viewport: { width: 390, height: 800 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true,
  });
  await page.goto(env.base + 'tpus');
  await ready(page);
  const toc = page.locator('nav.toc');
  const box = await toc.boundingBox();
  const text = await page.locator('.chapter-body .prose').first().boundingBox();
  assert.ok(box.y + box.height <= text.y, 'the contents come before the text');
  assert.ok(box.x < 40 && box.width > 300, `the contents take the column (x ${box.x}, width ${box.width})`);
  const ids = await page.locator('.chapter-body h2[id]').evaluateAll((hs) => hs.map((h) => h.id));
  await page.locator(`[id="${ids[3]}"]`).evaluate((h) => h.scrollIntoView());
  await page.waitForTimeout(200);
  assert.equal(await toc.isVisible(), true, 'still in the page');
  const gone = await toc.boundingBox();
  assert.ok(gone.y + gone.height < 0, `the contents scrolled away (bottom at ${gone.y + gone.height})`);
  assert.deepEqual(problems, []);
  await context.close();
});
