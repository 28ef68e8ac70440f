// End-to-end tests of the reader's own models and chips in the pickers that
// took presets only before session 15 (issue 19). Mixtral 8x7B and LLaMA 3.1
// 70B pasted from their published config.json (tests/data/hf-configs) and
// saved on /applied-training are offered under "Yours" in the MoE widget and
// the layer diagram (/transformers), the weight-stationary MLP (/inference)
// and the profile viewer (/profiling); a chip defined in own-chip (a v5e with
// twice its ICI and HBM bandwidth) in the KV-sharding steps (/inference) and
// the overlap timeline (/jax). Picking one puts its compact text in the
// widget's link, and core computes with it as with a preset (the MoE widget's
// numbers equal the Mixtral preset's; the faster HBM shortens the KV layer).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { start, watchedPage, ready, readyLibrary, saveChip, saveModel } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

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
  const v5e = await kv.locator('[data-total]').textContent();
  const { widget } = await pick(page, 'inference', 'kv-sharding', 'v5e', 'wide v5e', 'c1~');
  // At these sizes the AllToAlls are latency-bound (4 µs on either chip);
  // twice the HBM bandwidth shortens the cache loads, and so the layer.
  const wide = await widget.locator('[data-total]').textContent();
  assert.notEqual(wide, v5e);
  const { widget: loop } = await pick(page, 'jax', 'overlap-timeline', 'v5e', 'wide v5e', 'c1~');
  assert.match(await loop.locator('[data-overlapped]').textContent(), /s$/);
  assert.deepEqual(problems, []);
  await context.close();
});
