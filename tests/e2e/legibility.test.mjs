// Legibility matrix: every page at 320 and 390 px wide at device pixel ratio
// 3 (phones), at 768 and 1280 px at ratio 1, light and dark. On each, once the islands are
// live: nothing overflows the page or a widget sideways, every chart is drawn
// at its box's CSS width (one SVG unit per CSS pixel, so its text is as large
// as drawn), no chart text is smaller than 11 CSS px, and every scrolling table
// region can be reached by keyboard. Screenshots of each page go to
// $RIDGELINE_ARTIFACTS (default tests/e2e/artifacts/legibility) to be looked at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { start, watchedPage, ready, readyLibrary, libraryIslands, ROOT, pageSlugs } from './lib.mjs';

const OUT = process.env.RIDGELINE_ARTIFACTS || path.join(ROOT, 'tests/e2e/artifacts/legibility');
// Every check below is in CSS pixels, which a device pixel ratio does not
// change; each width is loaded at the ratio of the screens that have it, and
// the last test shows the layout is the same at ratios 1 and 3.
const WIDTHS = [[320, 3], [390, 3], [768, 1], [1280, 1]];

let env;
let slugs;
before(async () => {
  env = await start();
  slugs = await pageSlugs(env);
  fs.mkdirSync(OUT, { recursive: true });
});
after(async () => { await env.close(); });

// What the reader would be let down by on the page as it is now.
function faults() {
  const out = [];
  const vw = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > vw + 1) {
    out.push(`page is ${document.documentElement.scrollWidth}px wide in a ${vw}px viewport`);
  }
  for (const w of document.querySelectorAll('[data-widget]')) {
    const name = w.dataset.widget;
    if (w.scrollWidth > w.clientWidth + 1) out.push(`${name}: content ${w.scrollWidth}px overflows ${w.clientWidth}px`);
    const r = w.getBoundingClientRect();
    if (r.right > vw + 1 || r.left < -1) out.push(`${name}: box ${Math.round(r.left)}–${Math.round(r.right)} leaves the ${vw}px viewport`);
  }
  for (const svg of document.querySelectorAll('.plot .layer svg')) {
    const name = svg.closest('[data-widget]')?.dataset.widget ?? '?';
    const box = svg.getBoundingClientRect();
    const vb = svg.viewBox.baseVal;
    if (!vb || box.width === 0) continue;
    if (Math.abs(vb.width - box.width) > 1.5) out.push(`${name}: chart drawn ${vb.width} wide in a ${box.width.toFixed(1)}px box`);
    const scale = Math.min(box.width / vb.width, box.height / vb.height);
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim()) continue;
      const size = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (size < 11) { out.push(`${name}: text “${t.textContent.trim().slice(0, 30)}” at ${size.toFixed(1)}px`); break; }
    }
  }
  for (const region of document.querySelectorAll('.table-scroll')) {
    if (region.scrollWidth > region.clientWidth + 1 && region.tabIndex < 0) {
      out.push(`a scrolling table region is not keyboard-reachable`);
    }
  }
  return out;
}

for (const [width, ratio] of WIDTHS) {
  {
    test(`every page at ${width} px, ratio ${ratio}: no overflow, charts at CSS size, text ≥ 11 px`, async () => {
      const failures = [];
      const { page, context, problems } = await watchedPage(env.browser, env.base, {
        viewport: { width, height: 900 },
        deviceScaleFactor: ratio,
      });
      for (const slug of slugs) {
        await page.goto(env.base + slug);
        await ready(page);
        // The islands the library bundle carries start when the reader nears
        // them; until then their charts are the static copy at design size.
        if (await page.locator('meta[name="ridgeline-library"]').count()) {
          await readyLibrary(page, libraryIslands());
          await page.evaluate(() => window.scrollTo(0, 0));
        }
        // Charts redraw at their measured width once mounted; let that land.
        await page.waitForFunction(() => [...document.querySelectorAll('.plot .layer svg')]
          .every((s) => !s.viewBox.baseVal || Math.abs(s.viewBox.baseVal.width - s.getBoundingClientRect().width) <= 1.5),
        null, { timeout: 5000 }).catch(() => {});
        for (const theme of ['light', 'dark']) {
          await page.evaluate((t) => { document.documentElement.dataset.theme = t; }, theme);
          for (const f of await page.evaluate(faults)) failures.push(`/${slug} ${theme}: ${f}`);
          // Ratio 3 at phone width and ratio 1 on the desktop are the pictures to look at.
          if ((ratio === 3 && width === 390) || (ratio === 1 && width === 1280)) {
            const name = `${slug || 'home'}-${width}x${ratio}-${theme}.png`;
            await page.screenshot({ path: path.join(OUT, name), fullPage: ratio === 1 });
          }
        }
      }
      assert.deepEqual(problems, []);
      await context.close();
      assert.equal(failures.length, 0, `legibility faults:\n${failures.join('\n')}`);
    });
  }
}

test('on a phone, dragging the roofline point maps to the data under the finger', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, {
    viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, hasTouch: true,
  });
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const widget = page.locator('[data-widget="roofline"]').first();
  const overlay = widget.locator('.layer.overlay');
  await overlay.scrollIntoViewIfNeeded();
  const box = await overlay.boundingBox();
  const svg = widget.locator('.layer.overlay svg');
  // The chart is drawn at the box's CSS width (not scaled from 760).
  assert.ok(Math.abs(await svg.evaluate((s) => s.viewBox.baseVal.width) - box.width) <= 1.5);
  const verdict = widget.locator('[data-verdict]').first();
  const field = widget.locator('input.batch-text, input[aria-label="batch"]').first();
  await page.mouse.click(box.x + box.width * 0.97, box.y + box.height * 0.5);
  assert.equal((await verdict.textContent()).trim(), 'compute-bound');
  const high = Number(await field.inputValue());
  await page.mouse.click(box.x + box.width * 0.35, box.y + box.height * 0.5);
  assert.equal((await verdict.textContent()).trim(), 'memory-bound');
  const low = Number(await field.inputValue());
  assert.ok(low < high, `B ${low} at 35 % of the width, ${high} at 97 %`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a spec table number names its source in a disclosure reachable by keyboard and touch', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'tpus');
  await ready(page);
  const table = page.locator('[data-widget="spec-table"]');
  const cell = table.locator('tr[data-chip="v5e"] td').first();
  const n = await cell.locator('sup.cite').textContent();
  const sources = table.locator('details.sources');
  assert.equal(await sources.evaluate((d) => d.open), false);
  await sources.locator('summary').focus();
  await page.keyboard.press('Enter');
  assert.equal(await sources.evaluate((d) => d.open), true);
  // The numbered source is the cell's citation (also its hover title).
  const item = sources.locator(`li[data-source="${n}"]`);
  assert.equal(await item.textContent(), await cell.getAttribute('title'));
  assert.match(await item.textContent(), /^Part \d+/);
  // At 1280 px the whole table shows: its region does not need to scroll.
  await page.setViewportSize({ width: 1280, height: 900 });
  const region = table.locator('.table-scroll');
  const [scroll, client] = await region.evaluate((r) => [r.scrollWidth, r.clientWidth]);
  assert.ok(scroll <= client + 1, `table ${scroll}px in a ${client}px region`);
  assert.deepEqual(problems, []);
  await context.close();
});

// The matrix above loads each width at one device pixel ratio because its
// checks are in CSS pixels. This holds that to account: on the pages with the
// most widgets and charts, at a phone's width, every widget's and chart's left
// edge and width, and the page's width, are the same at ratios 1 and 3 (to a
// pixel of rounding), and so are the faults. (Heights may differ by a device
// pixel's rounding per line of a tall widget; the matrix checks none.)
test('a device pixel ratio changes no CSS-pixel layout the matrix checks', async () => {
  const layout = () => ({
    page: document.documentElement.scrollWidth,
    boxes: [...document.querySelectorAll('[data-widget], .plot .layer svg, .table-scroll')].map((e) => {
      const r = e.getBoundingClientRect();
      return [e.dataset?.widget ?? e.tagName, r.left, r.width];
    }),
  });
  const seen = {};
  for (const ratio of [1, 3]) {
    const { page, context, problems } = await watchedPage(env.browser, env.base, {
      viewport: { width: 390, height: 900 },
      deviceScaleFactor: ratio,
    });
    for (const slug of ['rooflines', 'gpus', 'training']) {
      await page.goto(env.base + slug);
      await ready(page);
      await page.waitForFunction(() => [...document.querySelectorAll('.plot .layer svg')]
        .every((s) => !s.viewBox.baseVal || Math.abs(s.viewBox.baseVal.width - s.getBoundingClientRect().width) <= 1.5),
      null, { timeout: 5000 }).catch(() => {});
      seen[`${slug}@${ratio}`] = { ...(await page.evaluate(layout)), faults: await page.evaluate(faults) };
    }
    assert.deepEqual(problems, []);
    await context.close();
  }
  for (const slug of ['rooflines', 'gpus', 'training']) {
    const [one, three] = [seen[`${slug}@1`], seen[`${slug}@3`]];
    assert.ok(one.boxes.length > 5, `/${slug}: ${one.boxes.length} boxes measured`);
    assert.equal(three.page, one.page, `/${slug}: page width`);
    assert.deepEqual(three.faults, one.faults, `/${slug}: faults`);
    assert.deepEqual(three.boxes.map((b) => b[0]), one.boxes.map((b) => b[0]), `/${slug}: boxes`);
    one.boxes.forEach(([name, left, width], i) => {
      const [, left3, width3] = three.boxes[i];
      assert.ok(Math.abs(left3 - left) <= 1 && Math.abs(width3 - width) <= 1,
        `/${slug}: ${name} at ${left}+${width} px at ratio 1, ${left3}+${width3} px at ratio 3`);
    });
  }
});
