// End-to-end test of the reader's own model (Part 6): pasting a config.json
// changes the mapping and the numbers computed by core; a bad field is named
// and the last valid model stays.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, readyLibrary } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

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
