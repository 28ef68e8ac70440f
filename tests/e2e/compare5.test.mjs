// End-to-end tests of "side by side" (issue #19), fifth round: a second TPU
// times the sharding visualizer's plan, streams the Part 2 product and is
// mapped beside the first chip; a second model takes the layer diagram's
// tokens. Each test sets the second choice through the picker or the link,
// reads the compared values and verdict a reader sees, checks that an
// unsuitable choice is refused with a notice, and chooses "nothing" again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, offerAndChoose } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

// Opens `route` (with its query), waits for the islands and returns the
// widget `name`, scrolled to, with readers of its comparison table.
async function open(route, name) {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + route);
  await ready(page);
  const widget = page.locator(`[data-widget="${name}"]`).first();
  await widget.scrollIntoViewIfNeeded();
  const table = widget.locator('[data-compare]');
  const row = (key) => table.locator(`tr[data-row="${key}"]`);
  const own = async (key) => (await row(key).locator('td').first().textContent()).trim();
  const other = async (key) => (await row(key).locator('[data-vs-value]').textContent()).trim();
  const picker = widget.locator('select[data-vs]');
  // Offers `id` in the picker (as a stale link or a removed entry would)
  // and chooses it: it must be refused with a notice naming `reason`, and
  // the picker must show `kept` again.
  const refuse = async (id, reason, kept) => {
    await offerAndChoose(picker, id);
    assert.match(await widget.locator('[data-notice]').textContent(), reason);
    assert.equal(await picker.inputValue(), kept);
  };
  // Chooses "nothing": the table, the compared verdict and the URL key go.
  const clear = async (gone = async () => {}) => {
    await picker.selectOption('');
    assert.equal(await table.count(), 0);
    assert.equal(await widget.locator('[data-vs-verdict]').count(), 0);
    await page.waitForFunction((key) => !location.search.includes(key), `${name}.vs=`);
    await gone();
    assert.deepEqual(problems, []);
    await context.close();
  };
  return { page, widget, table, own, other, picker, refuse, clear };
}

test('Part 3: the sharding plan timed on a TPU v5p beside the v5e', async () => {
  const { page, widget, table, own, other, picker, refuse, clear } = await open('sharding', 'sharding');
  assert.equal(await table.count(), 0, 'nothing is compared until a chip is chosen');
  await picker.selectOption('v5p');
  await page.waitForFunction(() => location.search.includes('sharding.vs=v5p'));
  // Case 2 on the default mesh: the AllGather of A over X takes 11.7 µs on
  // the v5e's 90 GB/s links and half that on the v5p's 180 GB/s.
  assert.equal(await own('comms'), '11.7 µs');
  assert.equal(await other('comms'), '5.83 µs');
  assert.equal(await other('ici'), '180 GB/s');
  assert.equal(await other('matmul'), '585 ns');
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), 'communication-bound');
  assert.match(await table.locator('thead').textContent(), /TPU v5e.*TPU v5p/);
  // Under each step of the plan, its time on the v5p.
  const steps = widget.locator('[data-vs-step]');
  assert.equal(await steps.count(), 2);
  assert.equal(await steps.first().textContent(), 'on TPU v5p: 5.83 µs');
  // A GPU has no ICI: refused, the comparison stays.
  await refuse('h100', /ICI/, 'v5p');
  assert.equal(await other('comms'), '5.83 µs');
  await clear(async () => {
    assert.equal(await widget.locator('[data-vs-step]').count(), 0);
  });
});

test('Part 3: a link with sharding.vs opens compared; an unknown id is refused', async () => {
  const { widget, other, picker, clear } = await open('sharding?sharding.vs=v4p', 'sharding');
  assert.equal(await picker.inputValue(), 'v4p');
  assert.match(await other('comms'), /s$/);
  assert.equal(await widget.locator('[data-notice]').isHidden(), true);
  await clear();

  const bad = await open('sharding?sharding.vs=tpu-v99', 'sharding');
  assert.match(await bad.widget.locator('[data-notice]').textContent(), /tpu-v99/);
  assert.equal(await bad.table.count(), 0);
  assert.equal(await bad.picker.inputValue(), '');
  await bad.page.context().close();
});

test('Part 2: the elementwise product streamed on a TPU v5p, on the same time scale', async () => {
  const { page, widget, own, other, picker, refuse, clear } = await open('tpus', 'streaming');
  await picker.selectOption('v5p');
  await page.waitForFunction(() => location.search.includes('streaming.vs=v5p'));
  // 16 chunks of 4 MiB: HBM sets the pace on both, 820 GB/s against 2.8 TB/s.
  assert.equal(await own('total'), (await widget.locator('[data-total]').textContent()).trim());
  assert.equal(await other('total'), '36.1 µs');
  assert.equal(await other('stage-hbm'), '2.25 µs');
  assert.equal(await widget.locator('[data-vs-total]').textContent(), '36.1 µs');
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), 'bandwidth-bound (HBM)');
  // The v5p's three lanes under the v5e's, drawn to the v5e's time scale:
  // its last chunk ends under a third of the way along.
  const lanes = widget.locator('[data-vs-lane]');
  assert.equal(await lanes.count(), 3);
  assert.match(await lanes.first().locator('.lane-label').textContent(), /^TPU v5p: HBM → VMEM \(sets the pace\)$/);
  const right = await lanes.first().locator('.chunk').last().evaluate((c) => parseFloat(c.style.left) + parseFloat(c.style.width));
  assert.ok(right > 20 && right < 35, `the v5p's last chunk ends at ${right}%`);
  await refuse('h100', /not a TPU/, 'v5p');
  await clear(async () => {
    assert.equal(await widget.locator('[data-vs-lane]').count(), 0);
  });
});

test('Part 0: a link with streaming.vs opens with the second TPU on the introduction', async () => {
  const { widget, other, picker, clear } = await open('introduction?streaming.vs=v5p', 'streaming');
  assert.equal(await picker.inputValue(), 'v5p');
  assert.equal(await widget.locator('[data-vs-lane]').count(), 3);
  assert.equal(await widget.locator('[data-vs-verdict]').textContent(), await other('verdict'));
  // The book gives the v6e no VPU figure, so it cannot stream an
  // elementwise product: refused with the reason, the v5p kept.
  await picker.selectOption('v6e');
  assert.match(await widget.locator('[data-notice]').textContent(), /on TPU v6e: .*no VPU figure in the book/);
  assert.equal(await picker.inputValue(), 'v5p');
  assert.equal(await widget.locator('[data-vs-lane]').count(), 3);
  await clear();
});

test('Part 4: LLaMA 3 8B takes the same 4,096 tokens beside LLaMA 3 70B', async () => {
  const { page, widget, table, own, other, picker, refuse, clear } = await open('transformers', 'layer-diagram');
  await picker.selectOption('llama3-8b');
  await page.waitForFunction(() => location.search.includes('layer-diagram.vs=llama3-8b'));
  // W_in: 2 × 4096 tokens × D × F, with D × F = 8192 × 28672 against 4096 × 14336.
  assert.equal(await own('op-flops'), '1.92e12');
  assert.equal(await other('op-flops'), '4.81e11');
  assert.equal(await other('params'), '218,112,000');
  assert.match(await table.locator('thead').textContent(), /LLaMA 3 70B.*LLaMA 3 8B/);
  // A column beside every matmul, and the selected operation in the 8B.
  assert.equal(await widget.locator('td[data-vs-flops]').count(), 9);
  assert.equal(await widget.locator('tr[data-matrix="W_in"] td[data-vs-flops]').textContent(), '4.81e11');
  assert.match(await widget.locator('[data-vs-op]').textContent(), /58,720,256 parameters, 4\.81e11 FLOPs/);
  // Choosing another operation moves the compared rows with it.
  await widget.locator('button[data-op="W_Q"]').click();
  await page.waitForFunction(() => document.querySelector('[data-widget="layer-diagram"] tr[data-row="op-flops"] th')?.textContent.startsWith('W_Q'));
  assert.equal(await other('op-flops'), '1.37e11');
  // A model with latent attention is refused; the comparison stays.
  await refuse('deepseek-v3', /latent attention/, 'llama3-8b');
  await clear(async () => {
    assert.equal(await widget.locator('td[data-vs-flops]').count(), 0);
  });
});

test('Part 0: a link with layer-diagram.vs opens compared on the introduction', async () => {
  const { widget, other, clear } = await open('introduction?layer-diagram.vs=llama3-70b', 'layer-diagram');
  // The introduction's layer is LLaMA 3 8B's; 70B's W_in is four times its.
  assert.equal(await other('op-flops'), '1.92e12');
  assert.equal(await widget.locator('td[data-vs-flops]').count(), 9);
  await clear();
});

test('Part 2: the chip map of a TPU v5e under the v5p, bar by bar on one scale', async () => {
  const { page, widget, own, other, picker, refuse, clear } = await open('tpus', 'chip-map');
  await picker.selectOption('v5e');
  await page.waitForFunction(() => location.search.includes('chip-map.vs=v5e'));
  // 1 GB over HBM: 357 µs at 2.8 TB/s, 1.22 ms at 820 GB/s.
  assert.equal(await own('path-hbm'), '357 µs');
  assert.equal(await other('path-hbm'), '1.22 ms');
  assert.deepEqual([await own('ici-links'), await other('ici-links')], ['6', '4']);
  assert.equal(await widget.locator('tr[data-vs-path="hbm"] [data-vs-time]').textContent(), '1.22 ms');
  assert.match(await widget.locator('[data-vs-part]').textContent(), /holds 16 GB/);
  // On one scale the v5e's HBM bar is shorter than the v5p's.
  const width = (sel) => widget.locator(sel).evaluate((b) => b.getBoundingClientRect().width);
  assert.ok(await width('tr[data-vs-path="hbm"] .bar') < await width('tr[data-path="hbm"] .bar'));
  await refuse('b200', /not a TPU/, 'v5e');
  await clear(async () => {
    assert.equal(await widget.locator('[data-vs-path]').count(), 0);
  });
});
