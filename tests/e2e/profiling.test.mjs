// End-to-end tests of the widgets on /profiling (Part 9): the profile viewer
// (its prose numbers, the bottleneck question, overlap, the trace window) and
// the XLA op reader, and the trace viewer that opens a reader's own trace file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { start, watchedPage, ready, verdictOf, readyLibrary, jaxTrace, openTraceTimed, ROOT } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 9: the page loads with its prose numbers and no console errors', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'profiling');
  await ready(page);
  await page.waitForSelector('[data-widget="profile"] .plot svg');
  const main = await page.locator('main').textContent();
  // The tiling blow-up of f32[3,5] in T(2,2), through value directives.
  assert.match(main, /\[4, 6\]/);
  assert.match(main, /1\.6×/);
  assert.ok(await page.locator('[data-widget="exercises"]').count() >= 1);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 9: answering the bottleneck question reveals the verdict, which follows the batch', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'profiling');
  await ready(page);
  const widget = page.locator('[data-widget="profile"]');
  await widget.locator('.plot svg').waitFor();
  assert.equal(await widget.locator('[data-verdict]').count(), 0);
  await widget.locator('input[type="radio"][value="ici"]').check();
  await widget.locator('button.reveal').click();
  assert.equal(await verdictOf(page, 'profile'), 'communication-bound');
  assert.equal(await widget.locator('[data-answer-result]').getAttribute('data-answer-result'), 'right');
  const slider = widget.locator('input[type="range"]');
  await slider.focus();
  await page.keyboard.press('End');
  assert.equal(await verdictOf(page, 'profile'), 'compute-bound');
  assert.equal(await widget.locator('[data-answer-result]').getAttribute('data-answer-result'), 'wrong');
  // A batch that is not a number: a notice, and the verdict stays.
  await widget.locator('input.batch-text').fill('lots');
  await widget.locator('input.batch-text').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /not a number/);
  assert.equal(await verdictOf(page, 'profile'), 'compute-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 9: toggling overlap redraws the trace and changes the step time', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'profiling');
  await ready(page);
  const widget = page.locator('[data-widget="profile"]');
  const trace = widget.locator('.plot .layer');
  await trace.locator('svg').waitFor();
  const drawing = () => trace.innerHTML();
  const step = widget.locator('[data-step-time]');
  const before = { svg: await drawing(), text: await step.textContent() };
  assert.equal(before.text, 'Whole step (80 layers, with overlap): 418 ms.');
  await widget.locator('input.overlap').uncheck();
  const after = { svg: await drawing(), text: await step.textContent() };
  // Without overlap every collective waits for its matmul: the step grows.
  assert.equal(after.text, 'Whole step (80 layers, without overlap): 669 ms.');
  assert.notEqual(after.svg, before.svg);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 9: the profile names its trace window and explains "of the step"', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'profiling');
  await ready(page);
  const widget = page.locator('[data-widget="profile"]');
  await widget.scrollIntoViewIfNeeded();
  const windowText = widget.locator('[data-trace-window]');
  assert.match(await windowText.textContent(), /^Trace window: the first \d+ layers? of the step's 80 layers/);
  assert.match(await windowText.textContent(), /time axis spans 0 to \d/);
  const share = widget.locator('[data-step-share]');
  assert.match(await share.textContent(), /adds up to \d+(\.\d+)?%: more than 100 %/);
  await widget.locator('input.overlap').uncheck();
  assert.match(await share.textContent(), /adds up to 100%: no more than 100 %/);
  assert.match(await windowText.textContent(), /as drawn, without overlap/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 9: the XLA op reader pads, costs and points at bad syntax', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'profiling');
  await ready(page);
  const w = page.locator('[data-widget="xla-op"]');
  await w.scrollIntoViewIfNeeded();
  assert.equal(await w.locator('[data-collective]').textContent(), 'reduce-scatter');
  assert.equal(await w.locator('[data-bytes]').textContent(), '25.17 MB');
  await w.locator('select').first().selectOption({ label: 'a small padded add' });
  assert.equal(await w.locator('[data-padded]').textContent(), '[4,6]');
  assert.equal(await w.locator('[data-bytes]').textContent(), '180 B');
  const line = w.locator('textarea');
  await line.fill('%add.7 = f32[3,7]{1,0:T(2,2)} add(f32[3,7]{1,0:T(2,2)} %a, f32[3,7]{1,0:T(2,2)} %b)');
  assert.equal(await w.locator('[data-padded]').textContent(), '[4,8]');
  assert.equal(await w.locator('[data-flops]').textContent(), '21');
  // Broken syntax: the message names the character, the last op stays.
  await line.fill('%x = f32[3,5}');
  assert.match(await w.locator('[data-notice]').textContent(), /^at character 13: .*⟨}⟩/);
  assert.equal(await w.locator('[data-padded]').textContent(), '[4,8]');
  assert.deepEqual(problems, []);
  await context.close();
});

// The committed traces (tests/data/traces/README.md gives the numbers, summed
// with Python's json module).
const TRACES = path.join(ROOT, 'tests/data/traces');

// /profiling with its trace viewer live (the viewer comes with the library
// bundle, started when the reader nears it); `init`, if given, runs in the
// page before its own scripts.
async function openViewer(init) {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  if (init) await page.addInitScript(init);
  await page.goto(env.base + 'profiling');
  await ready(page);
  await readyLibrary(page, '[data-widget="trace-viewer"]');
  const viewer = page.locator('[data-live] > [data-widget="trace-viewer"]');
  await viewer.waitFor();
  return { page, context, problems, viewer };
}

test('Part 9: a reader\'s trace opens in the page (JAX gzip, PyTorch JSON), and bad files are refused inline', async () => {
  const { page, context, problems, viewer } = await openViewer();
  assert.match(await viewer.locator('[data-trace-showing]').textContent(), /the sample trace/);
  const input = viewer.locator('input[type="file"][data-trace-file]');
  const error = viewer.locator('[data-trace-error]');
  const refused = (name) => page.waitForFunction(
    (n) => (document.querySelector('[data-widget="trace-viewer"] [data-trace-error]')?.textContent ?? '').includes(`${n} was not opened`), name);
  const showing = (name) => page.waitForFunction(
    (n) => (document.querySelector('[data-widget="trace-viewer"] [data-trace-showing]')?.textContent ?? '').includes(`your file ${n}`), name);
  const jax = fs.readFileSync(path.join(TRACES, 'jax-sharded-matmul-8cpu.json.gz'));

  // A gzip cut short, and a file that is not JSON: a reason each, nothing else changes.
  await input.setInputFiles({ name: 'cut.json.gz', mimeType: 'application/gzip', buffer: jax.subarray(0, 4000) });
  await refused('cut.json.gz');
  assert.match(await error.textContent(), /truncated or corrupt/);
  await input.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
  await refused('notes.txt');
  assert.match(await error.textContent(), /not a JSON file/);
  assert.match(await viewer.locator('[data-trace-showing]').textContent(), /the sample trace/);

  // The real JAX trace: eight devices' XLA Ops lanes first, then host threads.
  await input.setInputFiles({ name: 'perfetto_trace.json.gz', mimeType: 'application/gzip', buffer: jax });
  await showing('perfetto_trace.json.gz');
  assert.equal(await error.isHidden(), true);
  const lanes = await viewer.locator('[data-trace-lanes] > li').evaluateAll((ls) => ls.map((l) => l.dataset.lane));
  assert.deepEqual(lanes.slice(0, 8), [0, 1, 2, 3, 4, 5, 6, 7].map((d) => `device ${d} · XLA Ops`));
  assert.ok(lanes.slice(8).length > 0 && lanes.slice(8).every((l) => !l.includes('XLA Ops')), `${lanes}`);
  assert.equal(await viewer.locator('[data-trace-lanes] > li').first().locator('.trace-lane-name').textContent(), 'device 0 · XLA Ops');
  // 72 op events (3 ops × 8 devices × 3 steps), each drawn on its device's lane.
  assert.equal(await viewer.locator('[data-trace-lanes] > li[data-kind="ops"] rect').count(), 72);
  // The op table: the second matmul's fusion on top, 24 runs, 56.1% of op time.
  const rows = viewer.locator('[data-trace-ops] tbody tr');
  assert.deepEqual(await rows.evaluateAll((rs) => rs.map((r) => r.dataset.op)), ['ynn_fusion', 'ynn_fusion.1', 'wrapped_tanh']);
  assert.equal(await rows.first().locator('td').nth(1).textContent(), '24');
  assert.equal(await rows.first().locator('[data-share]').textContent(), '56.1%');
  assert.match(await viewer.locator('[data-trace-steps]').textContent(), /^3 steps, mean [\d.]+ ms: train 0 \(10\.2 ms\)/);

  // PyTorch's Chrome trace: the GPU stream first, the sgemm kernel on top.
  await input.setInputFiles({ name: 'trace.json', mimeType: 'application/json', buffer: fs.readFileSync(path.join(TRACES, 'pytorch-mlp-minimal.json')) });
  await showing('trace.json');
  assert.match(await viewer.locator('[data-trace-summary]').textContent(), /^PyTorch trace/);
  assert.equal(await viewer.locator('[data-trace-lanes] > li').first().getAttribute('data-lane'), 'GPU 0 · stream 7');
  assert.equal(await rows.first().getAttribute('data-op'), 'ampere_sgemm_128x64_tn');
  // 460.5 of 572 µs.
  assert.equal(await rows.first().locator('[data-share]').textContent(), '80.5%');
  assert.match(await viewer.locator('[data-trace-steps]').textContent(), /^2 steps/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 9: without JavaScript the trace viewer shows the sample and says opening a file needs JavaScript', async () => {
  const context = await env.browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(env.base + 'profiling');
  const viewer = page.locator('[data-widget="trace-viewer"]');
  assert.match(await viewer.locator('[data-trace-nojs]').textContent(), /needs JavaScript/);
  assert.equal(await viewer.locator('input[type="file"]').count(), 0);
  assert.equal(await viewer.locator('[data-trace-lanes] > li').first().getAttribute('data-lane'), 'device 0 · XLA Ops');
  assert.equal(await viewer.locator('[data-trace-ops] tbody tr').first().getAttribute('data-op'), 'ynn_fusion');
  await context.close();
});

test('Part 9: the trace viewer puts the heavy ops on a chip\'s roofline and sets the step beside its budget', async () => {
  const { page, context, problems, viewer } = await openViewer();
  const rows = viewer.locator('[data-trace-roof] tbody tr');
  const placed = () => rows.evaluateAll((rs) => rs.map((r) => [r.dataset.roofOp, r.dataset.onRoof]));
  // The sample and its HLO text: every op placed. ynn_fusion runs 24 times
  // 2·64·512·512 FLOPs in 60,930.183 µs (13.2 GFLOP/s) at 25.6 FLOPs per byte,
  // where the v5e's roof is 25.6 × 8.2e11 B/s = 21 TFLOP/s: 0.063% of it.
  assert.deepEqual(await placed(), [['ynn_fusion', 'true'], ['ynn_fusion.1', 'true'], ['wrapped_tanh', 'true']]);
  const first = rows.first().locator('td');
  assert.equal(await first.nth(4).textContent(), 'HLO');
  assert.equal(await first.nth(5).textContent(), '13.2 GFLOP/s');
  assert.equal(await first.nth(6).textContent(), '25.600');
  assert.equal(await rows.first().locator('[data-roof-share]').textContent(), '0.063% of 21 TFLOP/s');
  // Its dot on the chart, numbered as in the table.
  assert.ok((await viewer.locator('.plot svg text').allTextContents()).map((t) => t.trim()).includes('1'));
  // The budget of the sample's step (2 × 2·64·512·512 FLOPs and 2.62 MB per
  // device on a v5e: 3.54 µs) beside the trace's mean step (11.1 ms).
  const budget = viewer.locator('[data-budget]');
  assert.match(await budget.textContent(), /^Budget on TPU v5e: 6\.71e7 FLOPs per device .* 3\.54 µs a step\. The trace's mean step is 11\.1 ms: 3150× the budget\.$/);
  // Another chip: the roof and the budget follow.
  await viewer.locator('select').first().selectOption('h100');
  await page.waitForFunction(() => document.querySelector('[data-widget="trace-viewer"] [data-budget]')?.textContent.startsWith('Budget on NVIDIA H100'));
  // A batch of 0 is refused with the reason.
  const batch = viewer.locator('input[aria-label="batch B over all devices"]');
  await batch.fill('0');
  await batch.press('Enter');
  assert.match(await budget.textContent(), /^No budget: the batch/);

  // The transformer step: its trace alone names no FLOPs or bytes, and no op is guessed...
  await viewer.locator('input[type="file"][data-trace-file]').setInputFiles(path.join(TRACES, 'jax-transformer-8cpu.json.gz'));
  await page.waitForFunction(() => document.querySelector('[data-widget="trace-viewer"] [data-trace-showing]')?.textContent.includes('jax-transformer-8cpu'));
  assert.ok((await placed()).every(([, on]) => on === 'false'));
  assert.match(await rows.first().locator('[data-roof-share]').textContent(), /^no FLOPs or bytes/);
  // ...its HLO text places the matmuls; the all-reduce (a tuple) stays unplaced.
  await viewer.locator('input[type="file"][data-hlo-file]').setInputFiles(path.join(TRACES, 'jax-transformer-8cpu.hlo.txt.gz'));
  await page.waitForFunction(() => document.querySelector('[data-widget="trace-viewer"] [data-roof-op="ynn_fusion.18"]')?.dataset.onRoof === 'true');
  const top = await placed();
  assert.deepEqual(top.slice(0, 2), [['all-reduce.10', 'false'], ['ynn_fusion.18', 'true']]);
  assert.deepEqual(problems, []);
  await context.close();
});

// Issue 38: "the page never frozen". A 40 MB trace is read in a worker: the
// page's thread is never busy for long meanwhile (on the page's own thread
// the parse alone holds it for over a second), another widget's control
// answers while the file is being read, and the trace then shows.
test('Part 9: a 40 MB trace is read without freezing the page, and then shows', async () => {
  const { page, context, problems, viewer } = await openViewer();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ridgeline-trace-'));
  const file = path.join(dir, 'big_trace.json');
  const bytes = jaxTrace(40e6);
  fs.writeFileSync(file, bytes);
  try {
    // The profile's overlap box, clicked 150 ms into the reading: it must
    // answer (its step time redrawn) while the trace is still being read.
    const profile = page.locator('[data-widget="profile"]');
    const probe = page.evaluate(() => new Promise((resolve) => {
      const error = document.querySelector('[data-widget="trace-viewer"] [data-trace-error]');
      const reading = () => !error.hidden && error.textContent.startsWith('reading big_trace.json');
      const o = new MutationObserver(() => {
        if (!reading()) return;
        o.disconnect();
        setTimeout(() => {
          const step = document.querySelector('[data-widget="profile"] [data-step-time]');
          const before = step.textContent;
          const t0 = performance.now();
          const wasReading = reading();
          const answered = new MutationObserver(() => {
            answered.disconnect();
            resolve({ ms: performance.now() - t0, wasReading, stillReading: reading() });
          });
          answered.observe(step, { childList: true, subtree: true, characterData: true });
          document.querySelector('[data-widget="profile"] input.overlap').click();
          if (step.textContent !== before) resolve({ ms: 0, wasReading, stillReading: reading() });
        }, 150);
      });
      o.observe(error, { childList: true, subtree: true, characterData: true, attributes: true });
    }));
    await profile.locator('.plot svg').waitFor();
    const timed = await openTraceTimed(page, file);
    const probed = await probe;
    assert.ok(probed.wasReading && probed.stillReading && probed.ms < 100, `the overlap box answered in ${Math.round(probed.ms)} ms (reading when clicked: ${probed.wasReading}, when answered: ${probed.stillReading})`);
    assert.ok(timed.shown, timed.said);
    assert.ok(timed.stall < 400, `the page's thread was busy for ${Math.round(timed.stall)} ms while the trace was read`);
    // The whole trace is summarised: 8 device lanes of ops, then the python thread.
    const lanes = await viewer.locator('[data-trace-lanes] > li').evaluateAll((ls) => ls.map((l) => l.dataset.lane));
    assert.deepEqual(lanes, [...[0, 1, 2, 3, 4, 5, 6, 7].map((d) => `device ${d} · XLA Ops`), '/host:CPU · python']);
    assert.match(await viewer.locator('[data-trace-showing]').textContent(), new RegExp(`your file big_trace\\.json \\(${bytes.length.toLocaleString('en')} bytes\\)`));
    assert.equal(await viewer.locator('[data-trace-error]').isHidden(), true);
    assert.deepEqual(problems, []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await context.close();
  }
});

test('Part 9: where no worker can start, the trace is read on the page\'s thread, and the page says so', async () => {
  const { page, context, problems, viewer } = await openViewer(() => { delete window.Worker; });
  // Every notice the viewer shows on the way.
  await page.evaluate(() => {
    window.traceNotices = [];
    const error = document.querySelector('[data-widget="trace-viewer"] [data-trace-error]');
    new MutationObserver(() => window.traceNotices.push(error.textContent))
      .observe(error, { childList: true, subtree: true, characterData: true });
  });
  const timed = await openTraceTimed(page, path.join(TRACES, 'jax-transformer-8cpu.json.gz'));
  assert.ok(timed.shown, timed.said);
  const notices = await page.evaluate(() => window.traceNotices);
  assert.ok(notices.includes('reading jax-transformer-8cpu.json.gz on this page\'s own thread (this browser cannot start a module worker): the page may not answer until it is read…'), `${notices}`);
  assert.equal(await viewer.locator('[data-trace-error]').isHidden(), true);
  assert.deepEqual(problems, []);
  await context.close();
});
