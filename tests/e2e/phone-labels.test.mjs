// End-to-end tests of the charts on a phone: chart text inside its
// drawing, the roofline's point label off the roofs, compact pipeline timelines.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, readyLibrary } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

// A phone at device pixel ratio 3, as in the redraw benchmark.
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };

// Every text of every live chart, measured by the browser: the ones whose box
// leaves their drawing's viewBox (half a unit of slack).
async function cutTexts(page) {
  return page.evaluate(() => [...document.querySelectorAll('svg.chart-svg')].flatMap((svg) => {
    const vb = svg.viewBox.baseVal;
    return [...svg.querySelectorAll('text')].flatMap((t) => {
      if (!t.textContent.trim()) return [];
      const b = t.getBBox();
      const m = t.getCTM() && svg.getCTM() ? svg.getCTM().inverse().multiply(t.getCTM()) : null;
      const corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]]
        .map(([x, y]) => (m ? new DOMPoint(x, y).matrixTransform(m) : new DOMPoint(x, y)));
      const xs = corners.map((p) => p.x);
      const ys = corners.map((p) => p.y);
      const out = Math.min(...xs) < -0.5 || Math.max(...xs) > vb.width + 0.5
        || Math.min(...ys) < -0.5 || Math.max(...ys) > vb.height + 0.5;
      return out ? [`${t.textContent.trim()} (${vb.width}×${vb.height})`] : [];
    });
  }));
}

test('Issue 13: on a 390 px phone the roofline and inference charts keep their text inside', async () => {
  for (const route of ['rooflines', 'inference']) {
    const { page, context, problems } = await watchedPage(env.browser, env.base, PHONE);
    await page.goto(env.base + route);
    await ready(page);
    assert.deepEqual(await cutTexts(page), [], route);
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('Issue 13: on a phone the roofline point label sits above the plot, off every roof', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, PHONE);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const widget = page.locator('[data-widget="roofline"]').first();
  await widget.scrollIntoViewIfNeeded();
  const label = widget.locator('svg.chart-svg text', { hasText: 'B = 64, I = 63' });
  assert.equal(await label.count(), 1);
  // The label's box lies above every roof line drawn by the static layer.
  const { bottom, topOfLines } = await label.evaluate((t) => {
    const plot = t.closest('.plot');
    const lines = [...plot.querySelectorAll('svg.chart-svg polyline, svg.chart-svg path, svg.chart-svg line')];
    const tops = lines.map((l) => l.getBoundingClientRect()).filter((r) => r.width > 20 && r.height > 20).map((r) => r.top);
    return { bottom: t.getBoundingClientRect().bottom, topOfLines: Math.min(...tops) };
  });
  assert.ok(bottom <= topOfLines + 1, `label bottom ${bottom}, roofs from ${topOfLines}`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Issue 13: on a phone the GPU pipeline is drawn inside its box with one path per kind of box', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, PHONE);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="gpu-parallelism"]');
  await readyLibrary(page, '[data-widget="gpu-parallelism"]');
  for (const svg of [widget.locator('svg.gpu-pipeline').first(), widget.locator('svg.zero-bubble')]) {
    const { drawn, box, elements, paths } = await svg.evaluate((s) => ({
      drawn: s.getBoundingClientRect().width,
      box: s.parentElement.clientWidth,
      elements: s.querySelectorAll('rect, path, text').length,
      paths: s.querySelectorAll('path.slot').length,
    }));
    assert.ok(drawn <= box + 0.5, `drawn ${drawn} px in a ${box} px box`);
    assert.ok(paths >= 2, `${paths} slot paths`);
    assert.ok(elements <= 60, `${elements} elements`);
  }
  // Sixteen stages: still inside the box, still a few dozen elements.
  const stages = widget.locator('input.in-stages');
  await stages.focus();
  await page.keyboard.press('End');
  const first = widget.locator('svg.gpu-pipeline').first();
  assert.equal(await first.locator('text.stage').count(), 16);
  assert.ok(await first.evaluate((s) => s.querySelectorAll('rect, path, text').length) <= 60);
  assert.deepEqual(problems, []);
  await context.close();
});
