// "Print: each page prints its text and figures in light colours
// with no controls cut across pages": every page, opened live by a reader whose
// system is dark, then printed (print media emulated, and a real PDF made):
// the paper is white and the text dark, the charts keep their light colours
// (the dark recolouring is for screens), no control (slider, picker, button,
// text box) is printed, every widget and exercise is kept whole on a page
// (break-inside: avoid), and the PDF has as many pages as its text needs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { watchedPage, ready, everyPage } from './lib.mjs';

const site = everyPage(before, after);

// Runs in the page under print media: what a printed page shows wrongly.
function printed() {
  const faults = [];
  const rgb = (c) => (c.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
  const light = (c) => { const [r, g, b] = rgb(c); return 0.2126 * r + 0.7152 * g + 0.0722 * b > 235; };
  // Ink: dark enough on white (the muted grey of a kicker, 98, passes; the dark
  // theme's light text does not).
  const dark = (c) => { const [r, g, b] = rgb(c); return 0.2126 * r + 0.7152 * g + 0.0722 * b < 150; };
  const shown = (e) => {
    const s = getComputedStyle(e);
    return s.display !== 'none' && s.visibility !== 'hidden' && e.getClientRects().length > 0;
  };
  const body = getComputedStyle(document.body);
  const html = getComputedStyle(document.documentElement);
  const paper = body.backgroundColor === 'rgba(0, 0, 0, 0)' ? html.backgroundColor : body.backgroundColor;
  if (paper !== 'rgba(0, 0, 0, 0)' && !light(paper)) faults.push(`paper is ${paper}`);
  const main = document.querySelector('main');
  for (const p of main.querySelectorAll('p, li, h1, h2, h3')) {
    if (shown(p) && !p.closest('.widget, .exercise') && !dark(getComputedStyle(p).color)) {
      faults.push(`text “${p.textContent.trim().slice(0, 40)}” is ${getComputedStyle(p).color}`);
      break;
    }
  }
  // plotters writes the light palette's white as fill="#FFFFFF"; on screen in
  // the dark theme the stylesheet turns it dark, on paper it stays white.
  for (const e of main.querySelectorAll('.chart-svg [fill="#FFFFFF"]')) {
    if (shown(e) && !light(getComputedStyle(e).fill)) {
      faults.push(`a chart's white is ${getComputedStyle(e).fill} in ${e.closest('[data-widget]')?.getAttribute('data-widget')}`);
      break;
    }
  }
  // Buttons that are parts of a figure (a layer's operations, a chip's parts,
  // a torus's chips, a code widget's tabs) are the figure, not controls.
  for (const c of main.querySelectorAll('input, select, textarea, button:not(.op, .part, .chip, .tab)')) {
    if (shown(c)) {
      const w = c.closest('[data-widget], [data-exercise]');
      faults.push(`a control is printed: <${c.tagName.toLowerCase()}> ${c.getAttribute('aria-label') || c.name || c.textContent.trim().slice(0, 30)} in ${w ? (w.getAttribute('data-widget') || w.getAttribute('data-exercise')) : 'the page'}`);
    }
  }
  for (const w of main.querySelectorAll('[data-widget], [data-exercise]')) {
    if (shown(w) && getComputedStyle(w).breakInside !== 'avoid') {
      faults.push(`${w.getAttribute('data-widget') || w.getAttribute('data-exercise')} may be cut across pages`);
    }
  }
  return { faults, widgets: main.querySelectorAll('[data-widget]').length, chars: main.innerText.length };
}

test('Issue 13: every page prints light, without controls, each widget whole', async () => {
  const { env, slugs } = site;
  const { page, context, problems } = await watchedPage(env.browser, env.base, {
    viewport: { width: 1280, height: 900 },
    colorScheme: 'dark',
  });
  const faults = [];
  let widgets = 0;
  for (const slug of slugs) {
    await page.emulateMedia({ media: 'screen' });
    await page.goto(env.base + slug);
    await ready(page);
    // On screen the reader's system makes the page dark: the print below is
    // what changes it.
    const screenPaper = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.notEqual(screenPaper, 'rgb(255, 255, 255)', `/${slug}: the screen is dark before printing`);
    await page.emulateMedia({ media: 'print' });
    const r = await page.evaluate(printed);
    widgets += r.widgets;
    for (const f of r.faults) faults.push(`/${slug}: ${f}`);
    const pdf = await page.pdf({ format: 'A4', printBackground: true });
    const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) || []).length;
    // A4 at 11 pt holds some 3,000 characters of running text; figures take
    // more. A page of text needs at least one sheet per 6,000 characters.
    const least = Math.max(1, Math.floor(r.chars / 6000));
    if (pages < least) faults.push(`/${slug}: ${pages} PDF pages for ${r.chars} characters`);
  }
  await context.close();
  assert.ok(widgets > 50, `widgets printed: ${widgets}`);
  assert.deepEqual(faults, []);
  assert.deepEqual(problems, []);
});
