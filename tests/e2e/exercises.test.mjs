// End-to-end tests of the self-graded exercises and the progress page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { start, watchedPage, ready, readyExercises, ROOT } from './lib.mjs';

const PROBLEMS = JSON.parse(fs.readFileSync(path.join(ROOT, 'data/problems.json'), 'utf8'));
const byId = new Map(PROBLEMS.map((p) => [p.id, p]));

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

async function check(card, text) {
  await readyExercises(card.page(), `[data-exercise="${await card.getAttribute('data-exercise')}"]`);
  await card.locator('input.answer').fill(text);
  await card.locator('button.check').click();
  const verdict = card.locator('[data-verdict]');
  await verdict.waitFor();
  return { verdict: await verdict.getAttribute('data-verdict'), line: await card.locator('.exercise-verdict').textContent() };
}

test('a sample of exercises on every chapter page: right, twice, and garbage', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base);
  await ready(page);
  const slugs = await page.locator('.parts > li.written .part-title').evaluateAll((as) => as.map((a) => new URL(a.href).pathname.slice(1)));
  let chaptersWithExercises = 0;
  for (const slug of slugs) {
    await page.goto(env.base + slug);
    await ready(page);
    const ids = await page.locator('[data-exercise]').evaluateAll((els) => els.map((e) => e.dataset.exercise));
    if (ids.length === 0) continue;
    chaptersWithExercises++;
    // Every exercise of this part is on its page.
    const chapter = byId.get(ids[0]).chapter;
    const expected = PROBLEMS.filter((p) => p.chapter === chapter).map((p) => p.id);
    assert.deepEqual([...ids].sort(), [...expected].sort(), `exercises on /${slug}`);
    const sample = ids
      .map((id) => byId.get(id))
      .filter((p) => typeof p.answer === 'number' && p.answer !== 0 && p.check === 'agrees' && p.book_answer_given && p.rel_diff < 0.005);
    let tried = 0;
    for (const p of sample) {
      if (tried === 3) break;
      const card = page.locator(`[data-exercise="${p.id}"]`);
      // Exercises where ridgeline grades against a corrected value say so; skip them.
      if (await card.locator('.correction').count()) continue;
      tried++;
      await card.scrollIntoViewIfNeeded();
      let r = await check(card, String(p.answer));
      assert.equal(r.verdict, 'correct', `${p.id}: the book's ${p.answer} was not accepted (${r.line})`);
      // Twice core's own answer (read from the revealed solution, unit and all).
      await card.getByRole('button', { name: 'Show the solution' }).click();
      const shown = (await card.locator('[data-solution] strong').first().textContent()).trim();
      const m = shown.match(/^(-?[\d.,]+(?:e-?\d+)?)\s*(.*)$/);
      assert.ok(m, `${p.id}: unreadable solution ${shown}`);
      const doubled = `${2 * Number(m[1].replace(/,/g, ''))} ${m[2]}`.trim();
      await card.getByRole('button', { name: 'Hide the solution' }).click();
      r = await check(card, doubled);
      assert.equal(r.verdict, 'incorrect', `${p.id}: twice the answer was accepted`);
      // A diagnosis follows the verdict: the generic off-by-two one, or the
      // exercise's own (which names the doubled quantity, e.g. the int8 ridge).
      assert.ok(r.line.replace('Not quite.', '').trim().length > 15, `${p.id}: no diagnosis: ${r.line}`);
      r = await check(card, 'twelve bananas!');
      assert.equal(r.verdict, 'invalid', `${p.id}: garbage was not invalid`);
    }
    // Parts whose problems have no numeric book answer (Part 10): use core's own
    // answer, as revealed by the solution, for the same three checks.
    if (tried < 1) await readyExercises(page);
    for (const id of ids) {
      if (tried >= 1) break;
      const card = page.locator(`[data-exercise="${id}"]`);
      await card.getByRole('button', { name: 'Show the solution' }).click();
      const shown = (await card.locator('[data-solution] strong').first().textContent()).trim();
      await card.getByRole('button', { name: 'Hide the solution' }).click();
      const m = shown.match(/^(-?[\d.,]+(?:e-?\d+)?)\s*(.*)$/);
      if (!m) continue;
      tried++;
      assert.equal((await check(card, shown)).verdict, 'correct', `${id}: its own answer ${shown}`);
      const r = await check(card, `${2 * Number(m[1].replace(/,/g, ''))} ${m[2]}`.trim());
      assert.equal(r.verdict, 'incorrect', `${id}: twice the answer was accepted`);
      assert.equal((await check(card, 'twelve bananas!')).verdict, 'invalid');
    }
    assert.ok(tried >= 1, `no numeric exercise tried on /${slug}`);
  }
  assert.ok(chaptersWithExercises >= 3);
  assert.deepEqual(problems, []);
  await context.close();
});

test('hints unlock after failed attempts, and a variant changes the numbers', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'rooflines');
  await ready(page);
  const card = page.locator('[data-exercise="ch1-q2"]');
  await card.scrollIntoViewIfNeeded();
  assert.equal(await card.locator('.hints li').count(), 0);
  await check(card, '1');
  await check(card, '2');
  assert.ok(await card.locator('.hints li').count() > 0, 'no hint after two wrong answers');
  const prompt = await card.locator('.prompt').textContent();
  await card.getByRole('button', { name: 'New numbers' }).click();
  await page.waitForFunction(() => location.search.includes('ch1-q2.seed='));
  assert.notEqual(await card.locator('.prompt').textContent(), prompt, 'a new variant kept the same numbers');
  await card.getByRole('button', { name: 'Show the solution' }).click();
  assert.ok(await card.locator('[data-solution] .derivation li').count() > 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('progress is remembered, exported, imported; damaged data and unknown exercises are kept as dated copies, listed and restorable', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base, { acceptDownloads: true });
  await page.goto(env.base + 'rooflines');
  await ready(page);
  await check(page.locator('[data-exercise="ch1-q5"]'), '295');
  await page.goto(env.base + 'progress');
  await ready(page);
  assert.match(await page.locator('[data-progress-total]').textContent(), /^1 of 328$/);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export to a file' }).click()]);
  const exported = fs.readFileSync(await download.path(), 'utf8');
  assert.match(exported, /"schema":"ridgeline-progress","version":1/);
  assert.match(exported, /"ch1-q5"/);
  // Importing someone else's file changes nothing and says why.
  await page.locator('input[type="file"]').setInputFiles({ name: 'x.json', mimeType: 'application/json', buffer: Buffer.from('{"hello": 1}') });
  await page.locator('[data-notice]:not([hidden])').waitFor();
  assert.match(await page.locator('[data-notice]').textContent(), /not ridgeline progress/);
  assert.match(await page.locator('[data-progress-total]').textContent(), /^1 of 328$/);
  // Importing a valid file merges.
  const other = exported.replace('"ch1-q5"', '"ch2-q1"');
  await page.locator('input[type="file"]').setInputFiles({ name: 'y.json', mimeType: 'application/json', buffer: Buffer.from(other) });
  await page.waitForFunction(() => document.querySelector('[data-progress-total]').textContent.startsWith('2 of'));
  // A solved exercise this version does not know is set aside; the rest stays.
  const stored = await page.evaluate(() => localStorage.getItem('ridgeline.progress.v1'));
  const withNew = stored.replace('"solved":{', '"solved":{"ch99-new":{"attempts":1,"seed":0},');
  await page.evaluate((t) => localStorage.setItem('ridgeline.progress.v1', t), withNew);
  await page.reload();
  await ready(page);
  assert.match(await page.locator('[data-notice]').textContent(), /set aside \(“ch99-new”\)/);
  assert.match(await page.locator('[data-progress-total]').textContent(), /^2 of/);
  const copies = page.locator('[data-kept-copies] li');
  assert.equal(await copies.count(), 1);
  assert.match(await copies.first().textContent(), /^\d{4}-\d\d-\d\d \d\d:\d\d UTC · progress: solved exercises this version does not know: “ch99-new”/);
  // Damaged storage: kept as a dated copy, listed, restorable; the reader is told.
  await page.evaluate(() => localStorage.setItem('ridgeline.progress.v1', '{"schema":"ridgeline-progress","version":1,"solved":{"ch1-q5":{'));
  await page.reload();
  await ready(page);
  assert.match(await page.locator('[data-notice]').textContent(), /could not be read: the saved progress is damaged.*Nothing of it is lost/);
  assert.match(await page.locator('[data-progress-total]').textContent(), /^0 of/);
  assert.equal(await copies.count(), 2);
  const keys = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('ridgeline.backup.progress.') && !k.endsWith('.why')));
  assert.equal(keys.length, 2, 'a dated copy of each');
  // The older copy (the one with ch99-new beside two known exercises) restores those two.
  await copies.nth(1).locator('[data-restore]').click();
  await page.waitForFunction(() => document.querySelector('[data-progress-total]').textContent.startsWith('2 of'));
  assert.match(await page.locator('[data-notice]').textContent(), /Restored 2 solved exercises/);
  // The damaged copy cannot be restored and says so; removing it leaves one.
  await copies.first().locator('[data-restore]').click();
  await page.waitForFunction(() => /cannot be restored/.test(document.querySelector('[data-notice]').textContent));
  await copies.first().getByRole('button', { name: 'Remove' }).click();
  assert.equal(await copies.count(), 1);
  // An imported file is named as a file, not as stored progress.
  await page.locator('input[type="file"]').setInputFiles({ name: 'z.json', mimeType: 'application/json', buffer: Buffer.from('{"schema":"ridgeline-progress","version":1,"solved":{') });
  await page.waitForFunction(() => /the file is damaged/.test(document.querySelector('[data-notice]').textContent));
  assert.deepEqual(problems, []);
  await context.close();
});

test('the note on the book\'s answer and the derivation appear only after a check', async () => {
  // Ten exercises across parts where the book's printed value differs from the
  // exact one by more than its precision (its own rounding, or a slip): they carry a note.
  const picked = [];
  const chapters = new Set();
  for (const p of PROBLEMS) {
    if (picked.length === 10) break;
    if (typeof p.answer !== 'number' || !p.book_answer_given || !(p.rel_diff > 0.05)) continue;
    if (chapters.has(p.chapter) && picked.length < 6) continue;
    chapters.add(p.chapter);
    picked.push(p);
  }
  assert.equal(picked.length, 10, 'ten exercises with a note');
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base);
  await ready(page);
  const routes = await page.locator('.parts > li.written').evaluateAll((lis) => lis.map((li) => [
    Number(li.dataset.part), new URL(li.querySelector('.part-title').href).pathname.slice(1)]));
  const routeOf = new Map(routes);
  for (const p of picked) {
    await page.goto(env.base + routeOf.get(p.chapter));
    await ready(page);
    const card = page.locator(`[data-exercise="${p.id}"]`);
    await card.scrollIntoViewIfNeeded();
    assert.equal(await card.locator('[data-solution]').count(), 0, `${p.id}: derivation before any attempt`);
    assert.equal(await card.locator('.correction', { hasText: 'Note on the book' }).count(), 0, `${p.id}: note before any attempt`);
    const r = await check(card, String(p.answer));
    const note = await card.locator('.correction', { hasText: 'Note on the book' }).count();
    if (r.verdict === 'correct') {
      assert.equal(await card.locator('[data-solution]').count(), 1, `${p.id}: no derivation after a correct answer`);
      assert.equal(note, 1, `${p.id}: the book's rounded ${p.answer} was accepted without a note`);
    } else {
      // The book's slip: a specific message, never a bare "Not quite."
      assert.ok(note === 1 || r.line.replace('Not quite.', '').trim().length > 15, `${p.id}: ${r.line}`);
    }
  }
  assert.deepEqual(problems, []);
  await context.close();
});
