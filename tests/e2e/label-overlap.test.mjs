// "Labels do not overlap lines, points, other labels or
// arrowheads": on every page, on a phone (390 px, ratio 3) and on a desktop
// (1280 px), once every widget has been scrolled into view and drawn, the text
// of every drawing (the charts, and any other SVG with text inside a widget:
// pipeline timelines, the NVLink node, the sharding minis, …) stays inside its
// SVG, and no two texts of one drawing sit on each other. A chart's layers
// (the static layer and the live overlay stacked in one .plot) are one drawing.
// The texts are measured by the browser, in screen coordinates; text the
// reader cannot see (display none, visibility hidden, zero opacity, no paint,
// zero size, inside a closed <details> or <defs>) is left out, and a text drawn
// twice at the same place (a halo under its copy) counts once. In a chart,
// no text is crossed by a drawn line of 2 px or more (a series, a roof, a
// marker line; grid lines and ticks are 1 px).
// On a failure, element screenshots of the drawings at fault (plain, and with
// the texts at fault outlined in red) go to $RIDGELINE_ARTIFACTS (default
// tests/e2e/artifacts/overlap) to be looked at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { watchedPage, ready, libraryIslands, ROOT, everyPage } from './lib.mjs';

const OUT = process.env.RIDGELINE_ARTIFACTS || path.join(ROOT, 'tests/e2e/artifacts/overlap');

const VIEWPORTS = [
  [390, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true }],
  [1280, { viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 }],
];

const site = everyPage(before, after);

// Runs in the page: every drawing's visible texts, and what is wrong with
// them. Returns { faults: [{ drawing, message, boxes }], drawings: n }, where
// `drawing` indexes the elements marked data-overlap-drawing for screenshots.
function measure({ slack, minArea, minShare }) {
  // Text the reader can see: rendered, painted, not hidden or see-through.
  const visible = (t) => {
    if (t.closest('defs, clipPath, mask, marker, pattern, symbol, title, desc, metadata')) return false;
    const closed = t.closest('details:not([open])');
    if (closed && !t.closest('summary')) return false;
    if (t.checkVisibility && !t.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    for (let n = t; n; n = n.parentElement) {
      const cs = getComputedStyle(n);
      if (cs.display === 'none' || cs.visibility !== 'visible' || parseFloat(cs.opacity) === 0) return false;
    }
    const cs = getComputedStyle(t);
    const filled = cs.fill !== 'none' && parseFloat(cs.fillOpacity) > 0;
    const stroked = cs.stroke !== 'none' && parseFloat(cs.strokeOpacity) > 0 && parseFloat(cs.strokeWidth) > 0;
    if (!filled && !stroked) return false;
    const r = t.getBoundingClientRect();
    return r.width >= 0.5 && r.height >= 0.5;
  };
  // The text's box as a quadrilateral on the screen (rotated text stays a
  // rotated box, not the larger upright box around it), counter-clockwise.
  const quadOf = (t) => {
    const b = t.getBBox();
    const m = t.getScreenCTM();
    const q = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]]
      .map(([x, y]) => new DOMPoint(x, y).matrixTransform(m))
      .map((p) => [p.x, p.y]);
    return signedArea(q) < 0 ? q.reverse() : q;
  };
  const signedArea = (poly) => poly.reduce((s, [x1, y1], i) => {
    const [x2, y2] = poly[(i + 1) % poly.length];
    return s + (x1 * y2 - x2 * y1);
  }, 0) / 2;
  // Sutherland–Hodgman: the part of convex `subject` inside convex `clip`.
  const clipPoly = (subject, clip) => {
    let out = subject;
    for (let i = 0; i < clip.length && out.length; i++) {
      const [ax, ay] = clip[i];
      const [bx, by] = clip[(i + 1) % clip.length];
      const side = ([x, y]) => (bx - ax) * (y - ay) - (by - ay) * (x - ax);
      const input = out;
      out = [];
      for (let j = 0; j < input.length; j++) {
        const p = input[j];
        const q = input[(j + 1) % input.length];
        const sp = side(p);
        const sq = side(q);
        if (sp >= 0) out.push(p);
        if ((sp >= 0) !== (sq >= 0)) {
          const k = sp / (sp - sq);
          out.push([p[0] + k * (q[0] - p[0]), p[1] + k * (q[1] - p[1])]);
        }
      }
    }
    return out;
  };
  const bounds = (q) => {
    const xs = q.map((p) => p[0]);
    const ys = q.map((p) => p[1]);
    return { left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys) };
  };
  // The part of the SVG's box that is drawn: inside its border and padding.
  const contentBox = (svg) => {
    const r = svg.getBoundingClientRect();
    const cs = getComputedStyle(svg);
    const px = (p) => parseFloat(cs[p]) || 0;
    return {
      left: r.left + px('borderLeftWidth') + px('paddingLeft'),
      right: r.right - px('borderRightWidth') - px('paddingRight'),
      top: r.top + px('borderTopWidth') + px('paddingTop'),
      bottom: r.bottom - px('borderBottomWidth') - px('paddingBottom'),
    };
  };

  // Drawings: every chart, and every other outermost SVG with text inside a
  // widget; the layers of one .plot are one drawing.
  const drawings = new Map();
  for (const svg of document.querySelectorAll('svg')) {
    if (svg.parentElement.closest('svg')) continue;
    const widget = svg.closest('[data-widget]');
    if (!svg.classList.contains('chart-svg') && !(widget && svg.querySelector('text'))) continue;
    const key = (svg.parentElement.classList.contains('layer') && svg.closest('.plot')) || svg;
    if (!drawings.has(key)) drawings.set(key, { key, widget, svgs: [] });
    drawings.get(key).svgs.push(svg);
  }
  const perWidget = new Map();
  for (const d of drawings.values()) {
    const name = d.widget?.dataset.widget ?? `svg.${[...d.svgs[0].classList].join('.')}`;
    const n = (perWidget.get(d.widget ?? name) ?? 0) + 1;
    perWidget.set(d.widget ?? name, n);
    d.name = n > 1 ? `${name} #${n}` : name;
  }
  // A widget with several drawings: number them all, the first one too.
  for (const d of drawings.values()) {
    if (perWidget.get(d.widget ?? d.name) > 1 && !d.name.includes(' #')) d.name += ' #1';
  }

  const faults = [];
  let index = 0;
  for (const d of drawings.values()) {
    const texts = [];
    for (const svg of d.svgs) {
      const box = contentBox(svg);
      if (box.right - box.left < 0.5 || box.bottom - box.top < 0.5) continue;
      for (const t of svg.querySelectorAll('text')) {
        const label = t.textContent.replace(/\s+/g, ' ').trim();
        if (!label || !visible(t)) continue;
        const quad = quadOf(t);
        const b = bounds(quad);
        // A halo: the same text drawn again on the same spot.
        if (texts.some((o) => o.label === label && o.quad.every((p, i) => Math.hypot(p[0] - quad[i][0], p[1] - quad[i][1]) < 0.5))) continue;
        texts.push({ label, quad, area: Math.abs(signedArea(quad)) });
        const out = Math.max(box.left - b.left, b.right - box.right, box.top - b.top, b.bottom - box.bottom);
        if (out > slack) {
          faults.push({ drawing: index, message: `"${label}" leaves its drawing by ${out.toFixed(1)} px`, boxes: [b] });
        }
      }
    }
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const [a, b] = [texts[i], texts[j]];
        const ba = bounds(a.quad);
        const bb = bounds(b.quad);
        if (ba.right <= bb.left || bb.right <= ba.left || ba.bottom <= bb.top || bb.bottom <= ba.top) continue;
        const shared = Math.abs(signedArea(clipPoly(a.quad, b.quad)));
        if (shared > minArea && shared > minShare * Math.min(a.area, b.area)) {
          faults.push({ drawing: index, message: `"${a.label}" × "${b.label}"`, boxes: [ba, bb] });
        }
      }
    }
    // Chart text off the chart's drawn lines: series, roofs, markers (strokes
    // of 2 px and more; grid lines and ticks are 1 px and text may sit on
    // them). The text's box is its glyphs' core: the browser's text box holds
    // the font's whole ascent and descent, which may touch a line nearby.
    if (d.svgs.some((s) => s.classList.contains('chart-svg'))) {
      const segments = [];
      for (const svg of d.svgs) {
        for (const el of svg.querySelectorAll('polyline, line, path')) {
          if (el.closest('defs, clipPath, mask, marker, pattern, symbol')) continue;
          const cs = getComputedStyle(el);
          if (cs.stroke === 'none' || parseFloat(cs.strokeOpacity) === 0 || parseFloat(cs.opacity) === 0) continue;
          if (parseFloat(cs.strokeWidth) < 2 || cs.display === 'none' || cs.visibility !== 'visible') continue;
          let runs = [];
          if (el.tagName === 'line') {
            const a = (k) => parseFloat(el.getAttribute(k));
            runs = [[[a('x1'), a('y1')], [a('x2'), a('y2')]]];
          } else if (el.tagName === 'polyline') {
            const n = (el.getAttribute('points') || '').trim().split(/[\s,]+/).map(Number);
            const run = [];
            for (let i = 0; i + 1 < n.length; i += 2) run.push([n[i], n[i + 1]]);
            runs = [run];
          } else {
            // plotters' merged strokes: absolute moves and lines only.
            const dAttr = el.getAttribute('d') || '';
            if (/[^MLml\d\s.,eE-]/.test(dAttr)) continue;
            let run = null;
            let cmd = 'M';
            const tokens = dAttr.match(/[MLml]|-?\d*\.?\d+(?:e-?\d+)?/g) || [];
            for (let i = 0; i < tokens.length;) {
              if (/[MLml]/.test(tokens[i])) { cmd = tokens[i]; i += 1; continue; }
              const p = [Number(tokens[i]), Number(tokens[i + 1])];
              i += 2;
              if (cmd === 'M') { run = [p]; runs.push(run); cmd = 'L'; } else if (run) run.push(p);
            }
          }
          const m = el.getScreenCTM();
          for (const run of runs) {
            const pts = run.map(([x, y]) => new DOMPoint(x, y).matrixTransform(m)).map((p) => [p.x, p.y]);
            for (let i = 0; i + 1 < pts.length; i++) segments.push([pts[i], pts[i + 1]]);
          }
        }
      }
      const crosses = (r, [a, b]) => {
        let t0 = 0;
        let t1 = 1;
        const dx = b[0] - a[0];
        const dy = b[1] - a[1];
        for (const [p, q] of [[-dx, a[0] - r.left], [dx, r.right - a[0]], [-dy, a[1] - r.top], [dy, r.bottom - a[1]]]) {
          if (p === 0) { if (q < 0) return false; continue; }
          const t = q / p;
          if (p < 0) t0 = Math.max(t0, t); else t1 = Math.min(t1, t);
          if (t0 > t1) return false;
        }
        return true;
      };
      for (const t of texts) {
        const b = bounds(t.quad);
        const h = b.bottom - b.top;
        const core = { left: b.left + 1, right: b.right - 1, top: b.top + 0.25 * h, bottom: b.bottom - 0.2 * h };
        if (core.right <= core.left || core.bottom <= core.top) continue;
        const hit = segments.find((s) => crosses(core, s));
        if (hit) {
          const [a, z] = hit.map((p) => p.map((v) => v.toFixed(0)).join(','));
          faults.push({ drawing: index, message: `"${t.label}" crossed by a line (${a}–${z})`, boxes: [b] });
        }
      }
    }
    const own = faults.filter((f) => f.drawing === index);
    for (const f of own) f.name = d.name;
    if (own.length) d.key.setAttribute('data-overlap-drawing', index);
    index += 1;
  }
  return { faults, drawings: drawings.size };
}

// Saves a screenshot of each drawing at fault, and one with its faulty texts
// outlined in red, so a person can tell text on text from a measuring mistake.
async function shoot(page, where, faults) {
  fs.mkdirSync(OUT, { recursive: true });
  const saved = [];
  for (const drawing of new Set(faults.map((f) => f.drawing))) {
    const el = page.locator(`[data-overlap-drawing="${drawing}"]`);
    const file = path.join(OUT, `${where}-${faults.find((f) => f.drawing === drawing).name}`.replace(/[^\w.-]+/g, '_'));
    try {
      await el.scrollIntoViewIfNeeded();
      await el.screenshot({ path: `${file}.png` });
      // Measured again where the scroll has put the drawing.
      const { faults: again } = await page.evaluate(measure, LIMITS);
      await page.evaluate((boxes) => {
        for (const b of boxes) {
          const div = document.createElement('div');
          div.className = 'overlap-mark';
          Object.assign(div.style, {
            position: 'fixed', left: `${b.left}px`, top: `${b.top}px`, width: `${b.right - b.left}px`,
            height: `${b.bottom - b.top}px`, outline: '1px solid red', zIndex: 99999, pointerEvents: 'none',
          });
          document.body.append(div);
        }
      }, again.filter((f) => f.drawing === drawing).flatMap((f) => f.boxes));
      await el.screenshot({ path: `${file}-marked.png` });
      await page.evaluate(() => document.querySelectorAll('.overlap-mark').forEach((m) => m.remove()));
      saved.push(`${file}.png`);
    } catch (e) {
      saved.push(`(no screenshot of ${file}: ${e.message.split('\n')[0]})`);
    }
  }
  return saved;
}

// One pixel out of the SVG; more than 4 CSS px² and 10 % of the smaller text
// in common (boxes of neighbouring lines of text may just touch).
const LIMITS = { slack: 1, minArea: 4, minShare: 0.1 };

// Loads one page in one viewport, reaches every widget, and measures.
async function visit(slug, width, options) {
  const where = `/${slug} @ ${width}`;
  const { page, context, problems } = await watchedPage(site.env.browser, site.env.base, options);
  const faults = [];
  let drawings = 0;
  try {
    await page.goto(site.env.base + slug);
    await ready(page);
    // Some widgets draw (or start their bundle) only once the reader nears them.
    const widgets = page.locator('[data-widget]');
    const n = await widgets.count();
    for (let i = 0; i < n; i++) await widgets.nth(i).scrollIntoViewIfNeeded({ timeout: 2000 }).catch(() => {});
    if (await page.locator('[data-exercise]').count()) {
      await page.waitForSelector(':root[data-exercises="live"]', { timeout: 10000 }).catch(() => {});
    }
    if (await page.locator(libraryIslands()).count()) {
      await page.waitForSelector(':root[data-library="live"]', { timeout: 10000 }).catch(() => {});
    }
    await page.waitForTimeout(150);
    // Charts redraw at their measured width once mounted; let that land.
    await page.waitForFunction(() => [...document.querySelectorAll('.plot .layer svg')]
      .every((s) => !s.viewBox.baseVal || Math.abs(s.viewBox.baseVal.width - s.getBoundingClientRect().width) <= 1.5),
    null, { timeout: 5000 }).catch(() => {});
    const found = await page.evaluate(measure, LIMITS);
    drawings = found.drawings;
    for (const f of found.faults) faults.push(`${where}: ${f.name}: ${f.message}`);
    if (found.faults.length) {
      const shots = await shoot(page, `${slug || 'home'}-${width}`, found.faults);
      console.log(`${where}: screenshots ${shots.join(', ')}`);
    }
  } catch (e) {
    faults.push(`${where}: error: ${e.message.split('\n')[0]}`);
  }
  await context.close();
  return { faults, problems: problems.map((p) => `${where}: problem: ${p}`), drawings };
}

test('Issue 13: on every page, phone and desktop, chart text stays in its drawing, off other text and off the lines', async () => {
  const started = Date.now();
  const faults = [];
  const problems = [];
  let drawings = 0;
  for (const slug of site.slugs) {
    // The phone and the desktop of one page side by side: one context each.
    for (const seen of await Promise.all(VIEWPORTS.map(([width, options]) => visit(slug, width, options)))) {
      faults.push(...seen.faults);
      problems.push(...seen.problems);
      drawings += seen.drawings;
    }
  }
  console.log(`overlap: ${site.slugs.length} pages × ${VIEWPORTS.length} viewports, ${drawings} drawings measured in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.ok(drawings > 20, `only ${drawings} drawings measured`);
  // One list, so a failure shows every fault and every problem at once.
  assert.deepEqual([...faults, ...problems], []);
});
