// End-to-end tests of what makes a page pleasant to read and to cite: math
// drawn in the site's math font (and the font fetched only where there is
// math), "Cite this figure" giving a link with the widget's settings, and the
// home page's live roofline.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('math is drawn in the math font, which only pages with math fetch', async () => {
  for (const [slug, math] of [['training', true], ['', false], ['conclusion', false]]) {
    const { page, context, problems } = await watchedPage(env.browser, env.base);
    const fonts = [];
    page.on('request', (r) => { if (r.url().endsWith('.woff2')) fonts.push(r.url()); });
    await page.goto(env.base + slug);
    await ready(page);
    await page.evaluate(() => document.fonts.ready);
    const seen = await page.evaluate(() => {
      const m = document.querySelector('math');
      return {
        family: m && getComputedStyle(m).fontFamily,
        loaded: [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'Ridgeline Math' && f.status === 'loaded'),
      };
    });
    if (math) {
      assert.match(seen.family, /^"?Ridgeline Math"?, math$/, `/${slug}`);
      assert.ok(seen.loaded, `/${slug}: the math font is loaded`);
      assert.equal(fonts.length, 1, `/${slug}: one font file`);
    } else {
      assert.equal(seen.family, null, `/${slug} has no math`);
      assert.deepEqual(fonts, [], `/${slug} fetches no font`);
    }
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('cite this figure: the link and the BibTeX carry the widget settings the reader chose', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const cite = page.locator('[data-cite-figure="roofline"]');
  const link = cite.locator('[data-figure-link]');
  // Before any change: the page's own address and the figure's anchor.
  await cite.locator('summary').focus();
  await page.keyboard.press('Enter');
  assert.equal(await cite.evaluate((d) => d.open), true, 'opens from the keyboard');
  assert.equal(await link.getAttribute('href'), `${env.base}rooflines#figure-roofline`);
  // The reader drags the batch: the address gains roofline.b, and so does the citation.
  const slider = page.locator('#figure-roofline input[type=range]').first();
  await slider.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => /[?&]roofline\.\w+=/.test(location.search));
  await page.waitForFunction(() => document.querySelector('[data-cite-figure="roofline"] [data-figure-link]').href.includes('?roofline.'));
  const href = await link.getAttribute('href');
  const own = [...new URL(page.url()).searchParams].filter(([k]) => k.startsWith('roofline.'));
  assert.ok(own.length > 0);
  assert.deepEqual([...new URL(href).searchParams], own, 'the link holds exactly the widget\'s pairs');
  assert.equal(new URL(href).hash, '#figure-roofline');
  const bibtex = await cite.locator('pre[data-bibtex="figure"]').textContent();
  assert.match(bibtex, /^@misc\{ridgeline-rooflines-roofline,/);
  assert.match(bibtex, /title = \{Figure “roofline”, in Part 1\. /);
  assert.ok(bibtex.includes(`url = {${href}}`), bibtex);
  // The link opens the figure as the reader left it.
  const { page: other, context: c2 } = await watchedPage(env.browser, env.base);
  await other.goto(href);
  await ready(other);
  const value = await other.locator('#figure-roofline input[type=range]').first().inputValue();
  assert.equal(value, await slider.inputValue());
  await c2.close();
  assert.deepEqual(problems, []);
  await context.close();
});

test('home opens with a live roofline: dragging its batch across the ridge turns the verdict; it leads into Part 1', async () => {
  for (const width of [1280, 390]) {
    const { page, context, problems } = await watchedPage(env.browser, env.base, { viewport: { width, height: 900 } });
    await page.goto(env.base);
    await ready(page);
    const widget = page.locator('.home-figure [data-island="roofline"][data-live] [data-widget="roofline"]');
    assert.equal(await widget.getAttribute('data-controls'), 'batch');
    // The batch alone: no chip picker, no derate, no prediction.
    assert.equal(await widget.locator('.controls, [data-derate], .predict').count(), 0);
    assert.match(await widget.locator('svg').first().textContent(), /HBM ridge \d+ FLOPs\/B/);
    const box = await widget.boundingBox();
    assert.ok(box.width <= width && box.height > 200, `${width} px: ${JSON.stringify(box)}`);
    const caption = await page.locator('.home-figure figcaption').textContent();
    assert.match(caption, /at \d+ FLOPs per byte/);
    // The reader drags the slider's thumb to the right, across the ridge.
    const line = widget.locator('.verdict-line');
    assert.match(await line.textContent(), /^At B = 64 this matmul is memory-bound\.$/);
    const label = async () => (await widget.locator('.layer.overlay svg').textContent()).match(/B = [\d,]*\d/)[0];
    assert.equal(await label(), 'B = 64');
    const slider = widget.locator('input[type="range"]');
    await slider.scrollIntoViewIfNeeded();
    const track = await slider.boundingBox();
    const y = track.y + track.height / 2;
    const start = Number(await slider.inputValue()) / Number(await slider.getAttribute('max'));
    await page.mouse.move(track.x + track.width * start, y);
    await page.mouse.down();
    await page.mouse.move(track.x + track.width * 0.75, y, { steps: 10 });
    await page.mouse.up();
    await page.waitForSelector('.home-figure [data-verdict="compute-bound"]');
    const moved = (await line.textContent()).match(/^At B = ([\d,]+) this matmul is compute-bound\.$/);
    assert.ok(moved, await line.textContent());
    assert.ok(Number(moved[1].replace(/,/g, '')) > 256, moved[1]);
    assert.equal(await label(), `B = ${moved[1]}`);
    await page.waitForURL(/[?&]roofline\.b=\d+/);
    await page.locator('.home-figure figcaption a').click();
    await page.waitForURL(/rooflines#figure-roofline$/);
    await ready(page);
    assert.ok(await page.locator('#figure-roofline').isVisible());
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('a displayed formula wider than a phone takes a place in the tab order, and only such a one', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, { viewport: { width: 390, height: 844 } });
  await page.goto(env.base + 'sharding');
  await ready(page);
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(100);
  const seen = await page.evaluate(() => [...document.querySelectorAll('math[display=block]')]
    .map((m) => ({ wide: m.scrollWidth > m.clientWidth + 1, tab: m.getAttribute('tabindex') === '0' })));
  assert.ok(seen.some((m) => m.wide), 'some formula is wider than a phone');
  assert.ok(seen.some((m) => !m.wide), 'some formula fits');
  for (const m of seen) assert.equal(m.tab, m.wide);
  assert.deepEqual(problems, []);
  await context.close();
});
