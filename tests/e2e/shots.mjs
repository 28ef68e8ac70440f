// Screenshots of built pages for a person to look at (not a test): phone
// (390 px, ratio 3) and desktop, light and dark, with and without JavaScript,
// and the static page before the bundle starts.
// Usage: node tests/e2e/shots.mjs OUTDIR [route …]
import fs from 'node:fs';
import path from 'node:path';
import { start, ready } from './lib.mjs';

const [out = 'shots', ...routes] = process.argv.slice(2);
fs.mkdirSync(out, { recursive: true });
const env = await start();
try {
  for (const route of routes.length ? routes : ['rooflines']) {
    for (const [name, opts] of [
      ['phone-light', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, colorScheme: 'light' }],
      ['phone-dark', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, colorScheme: 'dark' }],
      ['desktop-light', { viewport: { width: 1280, height: 900 }, colorScheme: 'light' }],
      ['desktop-dark', { viewport: { width: 1280, height: 900 }, colorScheme: 'dark' }],
      ['nojs-desktop-dark', { viewport: { width: 1280, height: 900 }, colorScheme: 'dark', javaScriptEnabled: false }],
      ['nojs-phone-light', { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, javaScriptEnabled: false }],
    ]) {
      const context = await env.browser.newContext({ serviceWorkers: 'block', ...opts });
      const page = await context.newPage();
      await page.goto(env.base + route);
      if (opts.javaScriptEnabled !== false) await ready(page);
      const widget = page.locator('[data-widget]').first();
      if (await widget.count()) await widget.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(out, `${route || 'home'}-${name}.png`) });
      await context.close();
    }
    // Before the bundle starts: the wasm is held back.
    const context = await env.browser.newContext({ serviceWorkers: 'block', viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    const page = await context.newPage();
    await page.route('**/*.wasm', () => {});
    await page.goto(env.base + route, { waitUntil: 'domcontentloaded' });
    await page.waitForTimeout(500);
    const widget = page.locator('[data-widget]').first();
    if (await widget.count()) await widget.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(out, `${route || 'home'}-before-live-dark.png`) });
    await context.close();
  }
} finally {
  await env.close();
}
