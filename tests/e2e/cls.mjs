// Cumulative layout shift of every page while its islands start, at a wide
// screen (1280 px) and a phone's (390 px), unthrottled on loopback with a
// cold cache. Not a test (timings vary); prints one row per page and exits
// non-zero if a page's shift passes the budget. The math font loads with
// `font-display: swap`, so its arrival is counted too.
// Run: RIDGELINE_DIST=dist node tests/e2e/cls.mjs (CLS_LOADS, default 3: the
// worst of that many loads is reported; CLS_3G=1 loads over an emulated Fast 3G
// link, as bench.mjs does, where the math font can arrive after the first
// paint; CLS_PAGES=a,b limits the pages).
import { start, watchedPage, pageSlugs } from './lib.mjs';

const BUDGET = 0.02;
const FAST_3G = { offline: false, latency: 150, downloadThroughput: 204800, uploadThroughput: 96000 };
const THROTTLE = process.env.CLS_3G ? FAST_3G : null;
const ONLY = process.env.CLS_PAGES ? process.env.CLS_PAGES.split(',').map((s) => s.trim().replace(/^\//, '')) : null;
const LOADS = Number(process.env.CLS_LOADS || 3);
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

// Records every layout shift from the document's creation on, and when the
// page's islands are live (the root's data-islands).
function probe() {
  const m = { shifts: [], live: null };
  window.__cls = m;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      m.shifts.push({
        t: e.startTime,
        v: e.value,
        input: e.hadRecentInput,
        nodes: (e.sources || []).map((s) => s.node && s.node.nodeName + (s.node.className && typeof s.node.className === 'string' ? '.' + s.node.className.split(' ')[0] : '')),
      });
    }
  }).observe({ type: 'layout-shift', buffered: true });
  new MutationObserver(() => {
    if (m.live === null && document.documentElement.getAttribute('data-islands') === 'live') m.live = performance.now();
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-islands'] });
}

const env = await start();
let failed = false;
try {
  const slugs = (await pageSlugs(env)).filter((s) => !ONLY || ONLY.includes(s));
  console.log(`page                     ${WIDTHS.map((w) => `${w.width} px`.padStart(10)).join('')}   (worst of ${LOADS}${THROTTLE ? ', Fast 3G' : ', loopback'}; budget ≤ ${BUDGET})`);
  for (const slug of slugs) {
    const row = [];
    const who = [];
    for (const viewport of WIDTHS) {
      let worst = 0;
      for (let i = 0; i < LOADS; i++) {
        const { page, context } = await watchedPage(env.browser, env.base, { viewport });
        await context.addInitScript(probe);
        if (THROTTLE) {
          const cdp = await context.newCDPSession(page);
          await cdp.send('Network.enable');
          await cdp.send('Network.emulateNetworkConditions', THROTTLE);
        }
        await page.goto(env.base + slug, { waitUntil: 'load', timeout: 90000 });
        await page.waitForFunction(() => window.__cls.live !== null || !document.querySelector('meta[name=ridgeline-bundle]'), null, { timeout: 90000 });
        await page.evaluate(() => document.fonts.ready);
        await page.waitForTimeout(500);
        const m = await page.evaluate(() => window.__cls);
        const cls = m.shifts.filter((s) => !s.input).reduce((a, s) => a + s.v, 0);
        if (cls > worst) {
          worst = cls;
          if (cls > BUDGET) who.push(`${viewport.width}: ${m.shifts.map((s) => `${s.v.toFixed(3)}@${Math.round(s.t)}ms ${s.nodes.join(',')}`).join('; ')}`);
        }
        await context.close();
      }
      row.push(worst);
      if (worst > BUDGET) failed = true;
    }
    console.log(`/${slug}`.padEnd(25) + row.map((v) => v.toFixed(4).padStart(10)).join('') + (row.some((v) => v > BUDGET) ? '   OVER' : ''));
    for (const w of who) console.log(`    ${w}`);
  }
} finally {
  await env.close();
}
process.exit(failed ? 1 : 0);
