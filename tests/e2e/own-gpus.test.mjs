// End-to-end test of the reader's own GPU and model on /gpus (issue 19, Part
// 12). A GPU defined in own-chip (an H100 with twice its NVLink bandwidth) and
// a model pasted in own-model are saved on /applied-training; on /gpus every
// GPU picker offers the GPU under "Yours" and the pipeline widget offers the
// model, core computes with them exactly as with a preset (twice the NVLink,
// half the in-node collective; the pasted LLaMA 3 8B, the preset's step), and
// the widget's link carries the GPU to a browser that never saw it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, readyLibrary, openFresh, saveChip, saveModel, LLAMA3_8B } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });


const GPU_WIDGETS = ['gpu', 'nvlink-node', 'gpu-collectives', 'gpu-parallelism'];

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
