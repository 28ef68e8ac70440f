// End-to-end tests of the pages on a phone without JavaScript.
// The static page holds each chart drawn 760 px wide, which a phone would
// scale down past reading; the site also drew each chart at a phone's width
// (site/src/figures.rs) and names that copy in <noscript>. Without JavaScript
// a narrow screen shows the copy, whose smallest text must be at least 11 CSS
// px; with JavaScript on, no copy is ever requested.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

const ROUTES = ['rooflines', 'training'];
const phone = (width) => ({
  viewport: { width, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
});

// The smallest font-size in an SVG document, in its own units.
const smallestFont = (svg) => Math.min(...[...svg.matchAll(/font-size="([0-9.]+)(?:px)?"/g)].map((m) => Number(m[1])));

for (const width of [390, 320]) {
  test(`without JavaScript at ${width} px, every chart shows its narrow copy with text of 11 CSS px or more`, async () => {
    const { page, context, problems } = await watchedPage(env.browser, env.base, {
      ...phone(width),
      javaScriptEnabled: false,
    });
    for (const route of ROUTES) {
      await page.goto(env.base + route);
      const plots = await page.locator('main .plot').all();
      let charts = 0;
      for (const plot of plots) {
        if (!(await plot.locator('svg.chart-svg').count())) continue; // a diagram in markup reflows
        charts += 1;
        const img = plot.locator('img.narrow-static');
        assert.equal(await img.count(), 1, `${route}: chart ${charts} has no narrow copy`);
        await img.scrollIntoViewIfNeeded();
        assert.ok(await img.isVisible(), `${route}: chart ${charts}: the copy is hidden`);
        assert.equal(await plot.locator('.layer').first().isVisible(), false,
          `${route}: chart ${charts}: the 760 px drawing still shows`);
        const loaded = await img.evaluate((el) => (el.decode ? el.decode().then(() => el.naturalWidth, () => 0) : el.naturalWidth));
        assert.ok(loaded > 0, `${route}: chart ${charts}: the copy did not load`);
        const drawn = Number(await img.getAttribute('width'));
        const box = await img.boundingBox();
        const plotBox = await plot.boundingBox();
        assert.ok(box.x + box.width <= plotBox.x + plotBox.width + 0.5, `${route}: chart ${charts} overflows its box`);
        const ratio = Number(await img.getAttribute('height')) / drawn;
        assert.ok(Math.abs(box.height - box.width * ratio) < 2, `${route}: chart ${charts} is distorted`);
        const src = await img.getAttribute('src');
        const res = await fetch(new URL(src, env.base));
        assert.equal(res.status, 200, src);
        assert.match(res.headers.get('content-type'), /image\/svg\+xml/);
        const svg = await res.text();
        const smallest = smallestFont(svg) * (box.width / drawn);
        assert.ok(smallest >= 11, `${route}: chart ${charts}: text ${smallest.toFixed(1)} CSS px (${src})`);
        assert.match(svg, /prefers-color-scheme: dark/, `${src} has no dark colours`);
        assert.ok((await img.getAttribute('alt')).length > 10, `${route}: chart ${charts} has no text alternative`);
      }
      assert.ok(charts >= 1, `${route}: no chart found`);
      // Nothing on the page is wider than the screen.
      const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scroll <= width, `${route}: the page is ${scroll} px wide at ${width} px`);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
}

test('without JavaScript on a wide screen, the inline drawings show', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, {
    viewport: { width: 1280, height: 900 },
    javaScriptEnabled: false,
  });
  await page.goto(env.base + 'rooflines');
  const plot = page.locator('main .plot').first();
  assert.ok(await plot.locator('.layer').first().isVisible());
  assert.equal(await plot.locator('img.narrow-static').count(), 1);
  assert.equal(await plot.locator('img.narrow-static').isVisible(), false);
  assert.deepEqual(problems, []);
  await context.close();
});

test('with JavaScript on a phone, no narrow copy is requested', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, phone(390));
  const copies = [];
  page.on('request', (req) => { if (req.url().includes('/_f/')) copies.push(req.url()); });
  for (const route of ROUTES) {
    await page.goto(env.base + route);
    await ready(page);
    assert.equal(await page.locator('img.narrow-static').count(), 0, `${route}: <noscript> made elements`);
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForTimeout(200);
  }
  assert.deepEqual(copies, []);
  assert.deepEqual(problems, []);
  await context.close();
});
