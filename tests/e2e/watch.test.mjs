// The live edit loop (`scripts/serve.sh --watch`, scripts/watch.mjs), on a
// copy of the chapters and of the built site: an edit to a chapter's text
// shows in the open page without a manual reload; a chapter that does not
// render, or has a number typed into prose, is shown over the page with its
// file and line while the server keeps running; fixing it reloads the page.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, DIST, launch, watchedPage, ready } from './lib.mjs';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ridgeline-watch-'));
let child;
let browser;
after(async () => {
  child?.kill();
  await browser?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

// Starts the watcher on a free port; resolves to its address once it serves.
function startWatcher(env) {
  child = spawn('node', [path.join(ROOT, 'scripts/watch.mjs'), '0'], { cwd: ROOT, env });
  let log = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      log += d;
      const m = log.match(/serving on (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (m) resolve(m[1]);
    });
    child.stderr.on('data', (d) => { log += d; });
    child.on('exit', (code) => reject(new Error(`the watcher stopped (${code}):\n${log}`)));
  });
}

test('a chapter edit reloads the open page; a broken chapter is shown in it with file and line', async () => {
  const chapters = path.join(tmp, 'chapters');
  const dist = path.join(tmp, 'dist');
  fs.cpSync(path.join(ROOT, 'chapters'), chapters, { recursive: true });
  fs.cpSync(DIST, dist, { recursive: true });
  const base = await startWatcher({ ...process.env, RIDGELINE_DIST: dist, RIDGELINE_CHAPTERS: chapters });
  browser = await launch();
  const { page, context, problems } = await watchedPage(browser, base);
  await page.goto(base + 'rooflines');
  await ready(page);

  const file = path.join(chapters, '01-rooflines.md');
  const original = fs.readFileSync(file, 'utf8');
  const at = original.indexOf('\n\n') + 2;
  const insert = (text) => fs.writeFileSync(file, original.slice(0, at) + text + '\n\n' + original.slice(at));

  // Prose: the page reloads by itself and shows it.
  const started = Date.now();
  insert('A sentence the live loop must show.');
  await page.waitForFunction(() => document.body.innerText.includes('A sentence the live loop must show.'),
    null, { timeout: 90000 });
  console.log(`# chapter edit to the open page: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await ready(page);

  // An unknown directive: shown over the page with the file and its line.
  const line = original.slice(0, at).split('\n').length;
  insert('{{no-such-value chip=v5e}}');
  const error = page.locator('#live-error');
  await error.waitFor({ timeout: 60000 });
  assert.match(await error.textContent(), new RegExp(`chapters/01-rooflines\\.md: line ${line}\\b`));
  // The server keeps running, and the page stays readable underneath.
  assert.equal((await page.request.get(base + 'rooflines')).status(), 200);
  assert.ok(await page.locator('main [data-page]').count());

  // A number typed into prose: named with its line too.
  insert('The chip has 7 cores.');
  await page.waitForFunction((l) => document.getElementById('live-error')?.textContent.includes(`line ${l}: \`7\``),
    line, { timeout: 60000 });

  // Fixed: the page reloads with the chapter as it was, and no error.
  fs.writeFileSync(file, original);
  await page.waitForFunction(() => !document.body.innerText.includes('A sentence the live loop must show.')
    && !document.getElementById('live-error'), null, { timeout: 90000 });
  await ready(page);
  assert.deepEqual(problems, []);
  await context.close();
});
