// End-to-end tests of the reader's library (issue 19, Part 6). The forms
// (own-model, own-chip) live in the library bundle, which the page starts when
// the reader reaches them; the page's own pickers read only the compact index
// it writes. A model pasted and saved survives a reload and is picked in the
// training planner, where core computes exactly what it computes for the
// preset; a chip defined in own-chip is picked in the planner's chip picker on
// the same page, and the planner's link carries it to a fresh browser; a
// corrupt library file or corrupt storage is reported inline and kept.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, readyLibrary, openFresh, LLAMA3_8B } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });


test('Part 6: a pasted config.json, saved, is picked in the training planner after a reload', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  await readyLibrary(page);
  const own = page.locator('[data-widget="own-model"]');
  await own.locator('textarea').fill(LLAMA3_8B);
  assert.match(await own.locator('[data-total]').textContent(), /^8\.03/);
  await own.locator('[data-save-name]').fill('my 8B');
  await own.locator('[data-save]').click();
  assert.match(await own.locator('[data-saved]').textContent(), /Saved “my 8B”/);
  // The compact index the page bundles read.
  const index = await page.evaluate(() => localStorage.getItem('ridgeline.library.index'));
  assert.match(index, /^m1~my 8B~4096~14336~32~32~8~128~128256~/);
  await page.reload();
  await ready(page);
  // The planner's picker reads the compact index (the page's own bundle).
  const planner = page.locator('[data-widget="training-planner"]');
  await planner.scrollIntoViewIfNeeded();
  const picker = planner.locator('select').first();
  const days = planner.locator('[data-days]');
  assert.equal(await picker.locator('optgroup[data-yours] option', { hasText: 'my 8B' }).count(), 1);
  await picker.selectOption('llama3-8b');
  const preset = await days.textContent();
  await picker.selectOption('llama3-70b');
  assert.notEqual(await days.textContent(), preset);
  await picker.selectOption({ label: 'my 8B' });
  // The pasted LLaMA 3 8B gives the preset's number, computed by core.
  assert.equal(await days.textContent(), preset);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 6: a chip defined in own-chip is picked on the same page and travels in a link', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  const planner = page.locator('[data-widget="training-planner"]');
  const chips = planner.locator('select').nth(1);
  const days = planner.locator('[data-days]');
  await chips.selectOption('v5p');
  const v5p = await days.textContent();
  await readyLibrary(page, '[data-widget="own-chip"]');
  const form = page.locator('[data-widget="own-chip"]');
  await form.locator('select').selectOption('v5p');
  // v5p: 4.59e14 bf16 FLOPs/s over 2.8e12 B/s of HBM, a ridge of 164; twice the peak, 328.
  assert.equal(await form.locator('[data-ridge]').textContent(), '164');
  await form.locator('input[data-field="bf16"]').fill('918 TFLOP/s');
  assert.equal(await form.locator('[data-ridge]').textContent(), '328');
  await form.locator('input[data-field="hbm_bw"]').fill('5 TFLOP/s');
  assert.match(await form.locator('[data-notice]').textContent(), /hbm\.bandwidth/);
  assert.equal(await form.locator('[data-ridge]').textContent(), '328');
  await form.locator('input[data-field="hbm_bw"]').fill('2.8 TB/s');
  assert.equal(await form.locator('[data-notice]').isHidden(), true);
  await form.locator('[data-save-name]').fill('double v5p');
  await form.locator('[data-save]').click();
  assert.match(await form.locator('[data-saved]').textContent(), /Saved “double v5p”/);
  // The page bundle heard the save: the planner's chip picker offers it.
  await planner.scrollIntoViewIfNeeded();
  const mine = chips.locator('optgroup[data-yours] option', { hasText: 'double v5p' });
  await mine.waitFor({ state: 'attached' });
  await chips.selectOption({ label: 'double v5p' });
  const doubled = await days.textContent();
  assert.notEqual(doubled, v5p);
  // The planner's URL carries the whole chip in its compact form.
  await page.waitForFunction(() => new URL(location.href).searchParams.get('training-planner.chip')?.startsWith('c1~double v5p~g~'));
  const link = page.url();
  assert.deepEqual(problems, []);
  await context.close();
  // A fresh browser with empty storage reads the chip from the link alone.
  const fresh = await openFresh(env, link);
  const there = fresh.page.locator('[data-widget="training-planner"]');
  assert.equal(await there.locator('[data-days]').textContent(), doubled);
  assert.equal(await there.locator('select').nth(1).locator('option:checked').textContent(), 'double v5p');
  assert.deepEqual(fresh.problems, []);
  await fresh.context.close();
});

test('Part 6: a corrupt library file and corrupt storage are reported inline and kept', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  await readyLibrary(page);
  const own = page.locator('[data-widget="own-model"]');
  await own.locator('[data-import]').setInputFiles({
    name: 'library.json', mimeType: 'application/json', buffer: Buffer.from('{"ridgeline_library": 1, "models": ['),
  });
  await page.waitForFunction(() => !document.querySelector('[data-library-notice]').hidden);
  assert.match(await own.locator('[data-library-notice]').textContent(), /Nothing was imported: not valid JSON/);
  await page.evaluate(() => localStorage.setItem('ridgeline.library', '{"ridgeline_library": 7}'));
  await page.reload();
  await ready(page);
  await readyLibrary(page);
  const kept = own.locator('[data-backup]');
  assert.equal(await kept.isHidden(), false);
  assert.match(await kept.textContent(), /version 7 is newer/);
  assert.equal(await page.evaluate(() => localStorage.getItem('ridgeline.library.backup')), '{"ridgeline_library": 7}');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 6: a paste too long to import is refused with the limit, and the last valid text comes back', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  await readyLibrary(page);
  const own = page.locator('[data-widget="own-model"]');
  await own.locator('textarea').fill(LLAMA3_8B);
  const total = await own.locator('[data-total]').textContent();
  // Two megabytes pasted at once (the limit is 1 MiB).
  const after = await page.evaluate(async () => {
    const area = document.querySelector('[data-widget="own-model"] textarea');
    area.value = `{"hidden_size": 4096, "pad": "${'x'.repeat(2 * 1024 * 1024)}"}`;
    area.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((r) => setTimeout(r, 0));
    return area.value.length;
  });
  assert.match(await own.locator('[data-notice]').textContent(), /a config\.json may have at most 1048576/);
  // The box holds the last valid text again, and the numbers are still its.
  assert.equal(after, LLAMA3_8B.length);
  assert.equal(await own.locator('[data-total]').textContent(), total);
  assert.deepEqual(problems, []);
  await context.close();
});
