// Accessibility gates: axe-core on every page in both themes, keyboard reach of
// the controls on a widget-heavy page, and prefers-reduced-motion.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { start, watchedPage, ready, ROOT, pageSlugs } from './lib.mjs';

const AXE = path.join(ROOT, 'tests/e2e/node_modules/axe-core/axe.min.js');

let env;
let slugs;
before(async () => {
  env = await start();
  slugs = await pageSlugs(env);
});
after(async () => { await env.close(); });

// Opens a page with the CSP bypassed (so axe's script can be injected) and
// waits until its widgets have mounted.
async function open(slug, options) {
  const w = await watchedPage(env.browser, env.base, { bypassCSP: true, ...options });
  await w.page.goto(env.base + slug);
  await ready(w.page);
  await w.page.waitForTimeout(300);
  return w;
}

function describe(violations) {
  return violations
    .map((v) => `${v.id} [${v.impact}] ${v.help}\n` + v.nodes.slice(0, 6).map((n) => `    ${n.target.join(' ')}`).join('\n'))
    .join('\n');
}

for (const colorScheme of ['light', 'dark']) {
  test(`axe finds no serious or critical violation on any page (${colorScheme})`, async () => {
    const failures = [];
    for (const slug of slugs) {
      const { page, context, problems } = await open(slug, { colorScheme });
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), colorScheme);
      await page.addScriptTag({ path: AXE });
      const result = await page.evaluate(async () => {
        // eslint-disable-next-line no-undef
        const r = await axe.run(document, { resultTypes: ['violations'] });
        return r.violations.map((v) => ({
          id: v.id, impact: v.impact, help: v.help,
          nodes: v.nodes.map((n) => ({ target: n.target.map(String) })),
        }));
      });
      const bad = result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      if (bad.length) failures.push(`/${slug} (${colorScheme}):\n${describe(bad)}`);
      assert.deepEqual(problems, [], `/${slug}`);
      await context.close();
    }
    assert.equal(failures.length, 0, `axe violations:\n${failures.join('\n')}`);
  });
}

test('tabbing through a widget-heavy page reaches sliders, selects and buttons with a visible focus ring', async () => {
  const { page, context, problems } = await open('sharding', {});
  const reached = new Map();
  for (let i = 0; i < 250; i++) {
    await page.keyboard.press('Tab');
    const info = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const s = getComputedStyle(el);
      const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || (s.boxShadow && s.boxShadow !== 'none');
      const kind = el.tagName === 'INPUT' ? `input-${el.type}` : el.tagName.toLowerCase();
      return { kind, ring, inWidget: !!el.closest('[data-widget]'), desc: el.outerHTML.slice(0, 120) };
    });
    if (!info || !info.inWidget) continue;
    assert.ok(info.ring, `no visible focus style on ${info.desc}`);
    reached.set(info.kind, (reached.get(info.kind) || 0) + 1);
  }
  for (const kind of ['input-range', 'select', 'button']) {
    assert.ok(reached.get(kind) > 0, `Tab never reached a ${kind} inside a widget: ${JSON.stringify([...reached])}`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('with prefers-reduced-motion no transition or animation runs and the player still steps', async () => {
  const { page, context, problems } = await open('sharding', { reducedMotion: 'reduce' });
  const player = page.locator('[data-widget="collective"]');
  await player.scrollIntoViewIfNeeded();
  const moving = () => page.evaluate(() => {
    const out = [];
    for (const el of document.querySelectorAll('*')) {
      const s = getComputedStyle(el);
      const dur = (v) => v.split(',').some((d) => parseFloat(d) > 0.001);
      if (s.animationName !== 'none' && dur(s.animationDuration)) out.push(`animation on ${el.tagName}.${el.className}`);
      if (dur(s.transitionDuration)) out.push(`transition on ${el.tagName}.${el.className?.baseVal ?? el.className}`);
    }
    return out.slice(0, 10);
  });
  assert.deepEqual(await moving(), []);
  assert.deepEqual(await page.evaluate(() => document.getAnimations().length), 0);
  // The player does not start by itself, and the manual step works.
  const ring = player.locator('svg.ring');
  await page.waitForTimeout(800);
  assert.equal(await ring.getAttribute('data-step'), '0');
  await player.locator('button[aria-label="next step"]').click();
  assert.equal(await ring.getAttribute('data-step'), '1');
  await player.locator('button[aria-label="next step"]').click();
  assert.equal(await ring.getAttribute('data-step'), '2');
  assert.deepEqual(await moving(), []);
  assert.deepEqual(problems, []);
  await context.close();
});
