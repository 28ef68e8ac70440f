// End-to-end test of the reader's own models in the model pickers that took
// presets only before session 15 (issue 19): Mixtral 8x7B and LLaMA 3.1 70B
// pasted from their published config.json (tests/data/hf-configs) and saved
// on /applied-training are offered under "Yours" in the MoE widget and the
// layer diagram (/transformers), the weight-stationary MLP (/inference) and
// the profile viewer (/profiling); picking one puts its compact text in the
// widget's link, and core computes with it as with a preset (the MoE widget's
// key numbers equal the Mixtral preset's).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { start, watchedPage, ready, readyLibrary } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

const config = (name) => readFileSync(new URL(`../data/hf-configs/${name}.json`, import.meta.url), 'utf8');

// Saves `text` as `name` in own-model on the open /applied-training page.
async function save(page, text, name) {
  const own = page.locator('[data-widget="own-model"]');
  await own.locator('textarea').fill(text);
  await own.locator('[data-save-name]').fill(name);
  await own.locator('[data-save]').click();
  assert.match(await own.locator('[data-saved]').textContent(), new RegExp(`Saved “${name}”`));
}

// On `route`, the widget `name`'s model picker (the select offering `preset`)
// offers `mine` under "Yours"; choosing it is accepted and the link carries it.
async function pick(page, route, name, preset, mine) {
  await page.goto(env.base + route);
  await ready(page);
  const widget = page.locator(`[data-widget="${name}"]`).first();
  await widget.scrollIntoViewIfNeeded();
  const picker = widget.locator(`select:not([data-vs]):has(option[value="${preset}"])`);
  assert.equal(await picker.locator('optgroup[data-yours] option', { hasText: mine }).count(), 1, name);
  await picker.selectOption({ label: mine });
  await page.waitForFunction((n) => [...new URL(location.href).searchParams]
    .some(([k, v]) => k.startsWith(`${n}.`) && v.startsWith('m1~')), name);
  assert.equal(await widget.locator('[data-notice]').first().isHidden(), true, name);
  return { widget, picker };
}

test("Parts 4, 7 and 9: the reader's models in the MoE, layer, weight-stationary and profile pickers", async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'applied-training');
  await ready(page);
  await readyLibrary(page);
  await save(page, config('mixtral-8x7b-v0.1'), 'my Mixtral');
  await save(page, config('llama-3.1-70b'), 'my 70B');

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
