// End-to-end tests of the reader's own chips and models. The forms (own-model,
// own-chip) live in the library bundle, which the page starts when the reader
// reaches them; the page's own pickers read only the compact index it writes.
//
// - A pasted config.json is mapped to the book and counted; a bad field is
//   named and the last valid model stays.
// - A model saved survives a reload and is picked in the training planner,
//   where core computes exactly what it computes for the preset; a chip
//   defined in own-chip is picked on the same page, and the planner's link
//   carries it to a fresh browser; a corrupt library file or corrupt storage
//   is reported inline and kept.
// - On /gpus, a GPU defined in own-chip (an H100 with twice its NVLink
//   bandwidth) is offered under "Yours" by every GPU picker and a pasted model
//   by the pipeline widget; core computes with them as with a preset (twice
//   the NVLink, half the in-node collective), and the link carries the GPU to
//   a browser that never saw it.
// - Mixtral 8x7B and LLaMA 3.1 70B pasted from their published config.json
//   (tests/data/hf-configs) are offered in the MoE widget and the layer
//   diagram (/transformers), the weight-stationary MLP (/inference) and the
//   profile viewer (/profiling); a chip defined in own-chip (a v5e with twice
//   its ICI and HBM bandwidth) in the KV-sharding steps (/inference) and the
//   overlap timeline (/jax). Picking one puts its compact text in the
//   widget's link, and core computes with it as with a preset (the MoE
//   widget's numbers equal the Mixtral preset's; the faster HBM shortens the
//   KV layer).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { start, watchedPage, ready, readyLibrary, openFresh, saveModel, saveChip, LLAMA3_8B } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

const GPU_WIDGETS = ['gpu', 'nvlink-node', 'gpu-collectives', 'gpu-parallelism'];

const config = (name) => readFileSync(new URL(`../data/hf-configs/${name}.json`, import.meta.url), 'utf8');

// On `route`, the widget `name`'s picker (the select offering `preset`)
// offers `mine` under "Yours"; choosing it is accepted and the link carries
// it (a compact text starting with `tag`: m1~ for a model, c1~ for a chip).
async function pick(page, route, name, preset, mine, tag = 'm1~') {
  await page.goto(env.base + route);
  await ready(page);
  const widget = page.locator(`[data-widget="${name}"]`).first();
  await widget.scrollIntoViewIfNeeded();
  const picker = widget.locator(`select:not([data-vs]):has(option[value="${preset}"])`);
  assert.equal(await picker.locator('optgroup[data-yours] option', { hasText: mine }).count(), 1, name);
  await picker.selectOption({ label: mine });
  await page.waitForFunction(([n, t]) => [...new URL(location.href).searchParams]
    .some(([k, v]) => k.startsWith(`${n}.`) && v.startsWith(t)), [name, tag]);
  assert.equal(await widget.locator('[data-notice]').first().isHidden(), true, name);
  return { widget, picker };
}

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
  assert.match(await kept.textContent(), /version 7 is newer.*a dated copy is kept in this browser/);
  const copies = await page.evaluate(() => Object.keys(localStorage)
    .filter((k) => k.startsWith('ridgeline.backup.library.') && !k.endsWith('.why'))
    .map((k) => localStorage.getItem(k)));
  assert.deepEqual(copies, ['{"ridgeline_library": 7}']);
  // Another visit keeps no second copy of the same text, and the progress page lists it.
  await page.reload();
  await ready(page);
  await page.goto(env.base + 'progress');
  await ready(page);
  const listed = page.locator('[data-kept-copies] li');
  assert.equal(await listed.count(), 1);
  assert.match(await listed.textContent(), /· library: .*version 7 is newer/);
  assert.equal(await listed.locator('[data-restore]').count(), 0);
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

test('Part 6: a pasted config.json is mapped to the book and counted', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  await readyLibrary(page);
  const widget = page.locator('[data-widget="own-model"]');
  const total = widget.locator('[data-total]');
  const kv = widget.locator('[data-kv]');
  // LLaMA 3-70B: 7.055e10 parameters, 2·80·8·128·2 = 327,680 bytes of KV per token.
  assert.equal(await total.textContent(), '7.055e10');
  assert.equal(await kv.textContent(), '328 kB');
  assert.equal(await widget.locator('tr[data-field="hidden_size"] [data-symbol]').textContent(), 'D');
  const text = widget.locator('textarea');
  // Mistral 7B's published config.json, as a reader would paste it.
  await text.fill(JSON.stringify({
    architectures: ['MistralForCausalLM'], model_type: 'mistral', hidden_size: 4096,
    intermediate_size: 14336, max_position_embeddings: 32768, num_attention_heads: 32,
    num_hidden_layers: 32, num_key_value_heads: 8, rope_theta: 10000.0, sliding_window: 4096,
    tie_word_embeddings: false, vocab_size: 32000,
  }));
  assert.equal(await total.textContent(), '7.242e9');
  assert.equal(await kv.textContent(), '131 kB');
  assert.equal(await widget.locator('tr[data-field="sliding_window"] [data-value]').textContent(), '4096');
  assert.equal(await widget.locator('[data-ignored="rope_theta"]').count(), 1);
  // A bad field: named in the notice, and the Mistral numbers stay.
  await text.fill('{"model_type": "mistral", "hidden_size": 0}');
  assert.match(await widget.locator('[data-notice]').textContent(), /hidden_size/);
  assert.equal(await total.textContent(), '7.242e9');
  // Choosing a preset replaces the text with core's export of it.
  await widget.locator('select').selectOption('mixtral-8x7b');
  assert.equal(await total.textContent(), '4.67e10');
  assert.deepEqual(problems, []);
  await context.close();
});

test("Part 12: the reader's GPU and model in every GPU widget, and in a link", async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  await readyLibrary(page, '[data-widget="own-chip"]');
  await saveChip(page, 'h100', { link: ['450 GB/s', '900 GB/s'] }, 'fast H100');
  await readyLibrary(page);
  await saveModel(page, LLAMA3_8B, 'my 8B');

  await page.goto(env.base + 'gpus');
  await ready(page);
  await readyLibrary(page, '[data-widget="gpu-parallelism"]');
  // Every GPU picker, and every "compare with" picker, offers the reader's GPU.
  for (const name of GPU_WIDGETS) {
    const widget = page.locator(`[data-widget="${name}"]`).first();
    for (const picker of [widget.locator('select:not([data-vs]):has(option[value="h100"])'), widget.locator('select[data-vs]')]) {
      assert.equal(await picker.locator('optgroup[data-yours] option', { hasText: 'fast H100' }).count(), 1, name);
    }
  }
  // The cluster widget: twice the NVLink bandwidth halves the collective in one node.
  const gpu = page.locator('[data-widget="gpu"]');
  await gpu.scrollIntoViewIfNeeded();
  const inNode = gpu.locator('[data-scope="node"][data-seconds]');
  const h100 = Number(await inNode.getAttribute('data-seconds'));
  await gpu.locator('select:not([data-vs]):has(option[value="h100"])').selectOption({ label: 'fast H100' });
  await page.waitForFunction(() => new URL(location.href).searchParams.get('gpu.gpu')?.startsWith('c1~fast H100~n~'));
  const fast = Number(await inNode.getAttribute('data-seconds'));
  assert.ok(Math.abs(h100 / fast - 2) < 1e-9, `${h100} against ${fast}`);
  const link = page.url();

  // The pipeline widget: the pasted LLaMA 3 8B gives the preset's step.
  const pipeline = page.locator('[data-widget="gpu-parallelism"]');
  await pipeline.scrollIntoViewIfNeeded();
  const models = pipeline.locator('select:has(option[value="llama3-70b"])');
  assert.equal(await models.locator('optgroup[data-yours] option', { hasText: 'my 8B' }).count(), 1);
  const step = pipeline.locator('[data-step]');
  await models.selectOption('llama3-8b');
  const preset = await step.getAttribute('data-step');
  await models.selectOption('llama3-70b');
  assert.notEqual(await step.getAttribute('data-step'), preset);
  await models.selectOption({ label: 'my 8B' });
  await page.waitForFunction(() => new URL(location.href).searchParams.get('gpu-parallelism.model')?.startsWith('m1~my 8B~'));
  assert.equal(await step.getAttribute('data-step'), preset);
  // The reader's GPU there too, as the step's GPU.
  await pipeline.locator('select:not([data-vs]):has(option[value="h100"])').selectOption({ label: 'fast H100' });
  assert.equal(await pipeline.locator('[data-notice]').isHidden(), true);
  assert.deepEqual(problems, []);
  await context.close();

  // A fresh browser with empty storage reads the GPU from the link alone.
  const fresh = await openFresh(env, link);
  const there = fresh.page.locator('[data-widget="gpu"]');
  assert.equal(Number(await there.locator('[data-scope="node"][data-seconds]').getAttribute('data-seconds')), fast);
  assert.equal(await there.locator('select:not([data-vs]):has(option[value="h100"]) option:checked').textContent(), 'fast H100');
  assert.deepEqual(fresh.problems, []);
  await fresh.context.close();
});

test("Parts 4, 7 and 9: the reader's models in the MoE, layer, weight-stationary and profile pickers", async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  await readyLibrary(page);
  await saveModel(page, config('mixtral-8x7b-v0.1'), 'my Mixtral');
  await saveModel(page, config('llama-3.1-70b'), 'my 70B');

  // The MoE widget: the pasted Mixtral gives the preset's numbers.
  const { widget: moe, picker } = await pick(page, 'transformers', 'moe', 'mixtral-8x7b', 'my Mixtral');
  const numbers = async () => (await moe.locator('.moe-results').textContent()).replace(/\s+/g, ' ');
  const mine = await numbers();
  await picker.selectOption('mixtral-8x7b');
  assert.equal(await numbers(), mine);
  // A dense model is not offered there.
  assert.equal(await picker.locator('option', { hasText: 'my 70B' }).count(), 0);

  await pick(page, 'transformers', 'layer-diagram', 'llama3-70b', 'my 70B');
  await pick(page, 'inference', 'weight-stationary', 'llama3-70b', 'my 70B');
  const { widget: profile } = await pick(page, 'profiling', 'profile', 'llama3-70b', 'my 70B');
  assert.match(await profile.locator('.model-select option:checked').textContent(), /my 70B/);
  assert.deepEqual(problems, []);
  await context.close();
});

test("Parts 7 and 10: the reader's chip in the KV-sharding steps and the overlap timeline", async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  await readyLibrary(page, '[data-widget="own-chip"]');
  await saveChip(page, 'v5e', { link: ['90 GB/s', '180 GB/s'], hbm_bw: ['820 GB/s', '1.64 TB/s'] }, 'wide v5e');

  await page.goto(env.base + 'inference');
  await ready(page);
  const kv = page.locator('[data-widget="kv-sharding"]');
  await kv.scrollIntoViewIfNeeded();
  assert.equal(await kv.locator('[data-total]').textContent(), '68.5 µs');
  const { widget } = await pick(page, 'inference', 'kv-sharding', 'v5e', 'wide v5e', 'c1~');
  // At these sizes the AllToAlls are latency-bound (4 µs on either chip);
  // twice the HBM bandwidth shortens the cache loads, and so the layer.
  assert.equal(await widget.locator('[data-total]').textContent(), '42.2 µs');
  // Twice the ICI bandwidth: the collective matmul's loop on the reader's chip
  // (the registry's v5e blocks for 45.1 µs, and overlapped takes 40.7 µs).
  const { widget: loop } = await pick(page, 'jax', 'overlap-timeline', 'v5e', 'wide v5e', 'c1~');
  assert.equal(await loop.locator('[data-blocking]').textContent(), '33.5 µs');
  assert.equal(await loop.locator('[data-overlapped]').textContent(), '22.9 µs');
  assert.equal(await loop.locator('[data-matmul]').textContent(), '21.8 µs');
  assert.deepEqual(problems, []);
  await context.close();
});
