// End-to-end test of the reader's library (issue 19, Part 6): a model saved in
// own-model survives a reload and appears under "Yours" in the training
// planner's picker, where core computes exactly what it computes for the same
// preset; a corrupt library file or corrupt storage is reported inline.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 6: a saved model is picked in the training planner after a reload', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  const own = page.locator('[data-widget="own-model"]');
  await own.scrollIntoViewIfNeeded();
  // The text becomes core's export of LLaMA 3 8B; saved under the reader's name.
  await own.locator('select').first().selectOption('llama3-8b');
  await own.locator('[data-save-name]').fill('my 8B');
  await own.locator('[data-save]').click();
  assert.match(await own.locator('[data-saved]').textContent(), /Saved “my 8B”/);
  assert.equal(await own.locator('[data-entry="my:my 8B"]').count(), 1);
  await page.reload();
  await ready(page);
  const planner = page.locator('[data-widget="training-planner"]');
  await planner.scrollIntoViewIfNeeded();
  const picker = planner.locator('select').first();
  const days = planner.locator('[data-days]');
  assert.equal(await picker.locator('optgroup[data-yours] option[value="my:my 8B"]').count(), 1);
  await picker.selectOption('llama3-8b');
  const preset = await days.textContent();
  await picker.selectOption('llama3-70b');
  const seventy = await days.textContent();
  assert.notEqual(preset, seventy);
  await picker.selectOption('my:my 8B');
  // The saved copy of LLaMA 3 8B gives the preset's number, computed by core.
  assert.equal(await days.textContent(), preset);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 6: a corrupt library file and corrupt storage are reported inline', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  const own = page.locator('[data-widget="own-model"]');
  await own.scrollIntoViewIfNeeded();
  await own.locator('[data-import]').setInputFiles({
    name: 'library.json', mimeType: 'application/json', buffer: Buffer.from('{"ridgeline_library": 1, "models": ['),
  });
  await page.waitForFunction(() => !document.querySelector('[data-library-notice]').hidden);
  assert.match(await own.locator('[data-library-notice]').textContent(), /Nothing was imported: not valid JSON/);
  await page.evaluate(() => localStorage.setItem('ridgeline.library', '{"ridgeline_library": 7}'));
  await page.reload();
  await ready(page);
  const kept = own.locator('[data-backup]');
  assert.equal(await kept.isHidden(), false);
  assert.match(await kept.textContent(), /version 7 is newer/);
  assert.equal(await page.evaluate(() => localStorage.getItem('ridgeline.library.backup')), '{"ridgeline_library": 7}');
  assert.deepEqual(problems, []);
  await context.close();
});
