// End-to-end tests of "side by side" (issue #19), sixth round: a second GPU
// (`vs`) is compared figure by figure in the NVLink node view, drawn on the
// collectives chart's axes and times the pipeline's step (Part 12); a second
// TPU takes the torus explorer's slice (Part 2); a second chip times the
// collective player's collective on its own links (Part 3). Each comparison is set
// through its picker or a link, read as the reader reads it, refused for a
// chip that cannot take it, and cleared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, offerAndChoose } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

// The widget `name` on an open page, scrolled to, with readers of its
// comparison table and a check that a TPU offered as `vs` is refused.
function widgetOf(page, name) {
  const widget = page.locator(`[data-widget="${name}"]`).first();
  const table = widget.locator('[data-compare]');
  const row = (key) => table.locator(`tr[data-row="${key}"]`);
  const cells = async (key) => {
    const [own, other, ratio] = await row(key).locator('td').allTextContents();
    return { own: own.trim(), other: other.trim(), ratio: ratio.trim() };
  };
  const picker = widget.locator('select[data-vs]');
  // Offers `id` in the picker (as a stale link would) and chooses it: it
  // must be refused with a notice naming it, the picker showing `kept` again.
  const refuse = async (id, kept) => {
    await offerAndChoose(picker, id);
    assert.match(await widget.locator('[data-notice]').textContent(), new RegExp(id, 'i'));
    assert.equal(await picker.inputValue(), kept);
  };
  return { widget, table, cells, picker, refuse };
}

test('Part 12: two NVLink nodes compared, and a TPU refused', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const { widget, table, cells, picker, refuse } = widgetOf(page, 'nvlink-node');
  await widget.scrollIntoViewIfNeeded();
  assert.equal(await table.count(), 0, 'nothing is compared until a GPU is chosen');
  await picker.selectOption('b200');
  await page.waitForFunction(() => location.search.includes('nvlink-node.vs=b200'));
  // Part 12: an H100 pushes 450 GB/s into NVLink, a B200 900 GB/s.
  assert.deepEqual(await cells('per-gpu'), { own: '450 GB/s', other: '900 GB/s', ratio: '2×' });
  assert.deepEqual(await cells('gpus'), { own: '8', other: '8', ratio: 'same' });
  assert.match(await table.locator('thead').textContent(), /NVIDIA H100.*NVIDIA B200/);
  await refuse('v5e', 'b200');
  assert.equal((await cells('per-gpu')).other, '900 GB/s');
  await picker.selectOption('');
  assert.equal(await table.count(), 0);
  await page.waitForFunction(() => !location.search.includes('nvlink-node.vs='));
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: a link with gpu-collectives.vs draws the second GPU on the same axes', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus?gpu-collectives.vs=b200');
  await ready(page);
  const { widget, cells, picker, refuse } = widgetOf(page, 'gpu-collectives');
  await widget.scrollIntoViewIfNeeded();
  assert.equal(await picker.inputValue(), 'b200');
  // The chart's legend names the second curve; the table spells out the difference.
  const legend = await widget.locator('.plot svg text').allTextContents();
  assert.ok(legend.some((t) => t.includes('NVIDIA B200')), legend.join(' | '));
  const time = await cells('time');
  assert.equal(time.own, (await widget.locator('[data-total]').textContent()).trim());
  assert.notEqual(time.other, time.own);
  assert.deepEqual(await cells('regime'), { own: 'bandwidth-bound', other: 'bandwidth-bound', ratio: 'same' });
  await refuse('v5p', 'b200');
  await picker.selectOption('');
  await page.waitForFunction(() => !location.search.includes('gpu-collectives.vs='));
  const after = await widget.locator('.plot svg text').allTextContents();
  assert.ok(!after.some((t) => t.includes('NVIDIA B200')), after.join(' | '));
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: the pipeline step timed on a second GPU', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const { widget, cells, picker, refuse } = widgetOf(page, 'gpu-parallelism');
  await widget.scrollIntoViewIfNeeded();
  await picker.selectOption('b200');
  await page.waitForFunction(() => location.search.includes('gpu-parallelism.vs=b200'));
  const step = await cells('step');
  assert.equal(step.own, (await widget.locator('[data-step]').textContent()).split(' (')[0]);
  // A B200 computes faster than an H100: its forward unit is shorter.
  const forward = await cells('forward');
  assert.match(forward.ratio, /^0\.\d+×$/);
  assert.deepEqual(await cells('tp'), { own: '8', other: '8', ratio: 'same' });
  await refuse('v5p', 'b200');
  await picker.selectOption('');
  await page.waitForFunction(() => !location.search.includes('gpu-parallelism.vs='));
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 2: the torus explorer lays the same slice on a second TPU', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'tpus');
  await ready(page);
  const { widget, table, cells, picker, refuse } = widgetOf(page, 'torus');
  await widget.scrollIntoViewIfNeeded();
  await picker.selectOption('v5p');
  await page.waitForFunction(() => location.search.includes('torus.vs=v5p'));
  // 8 × 16 chips: the v5e's axis of 16 wraps around (7 + 8 hops to the
  // farthest chip); on a v5p only whole cubes wrap (7 + 15 hops).
  assert.deepEqual(await cells('wrap'), { own: 'y', other: 'none', ratio: 'differs' });
  assert.deepEqual(await cells('diameter'), { own: '15', other: '22', ratio: '1.47×' });
  // A GPU has no torus: refused, the v5p kept.
  await refuse('h100', 'v5p');
  assert.equal((await cells('diameter')).other, '22');
  await picker.selectOption('');
  assert.equal(await table.count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 3: the collective player times the same collective on a second chip', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'sharding?collective.op=allreduce&collective.n=8');
  await ready(page);
  const { widget, table, cells, picker, refuse } = widgetOf(page, 'collective');
  await widget.scrollIntoViewIfNeeded();
  await picker.selectOption('v5p');
  await page.waitForFunction(() => location.search.includes('collective.vs=v5p'));
  // The same bytes over links twice as fast (Part 2's table) take half the
  // time, but at the player's sizes the ring's hops take longer: the same
  // time on both, and the table says why.
  assert.equal((await cells('bytes')).ratio, 'same');
  assert.equal((await cells('ici')).ratio, '2×');
  assert.equal((await cells('bandwidth')).ratio, '0.5×');
  assert.equal((await cells('time')).ratio, 'same');
  assert.deepEqual(await cells('bound'), { own: 'latency-bound', other: 'latency-bound', ratio: 'same' });
  // The player still plays the v5e's ring; its cost line is the table's own column.
  const time = await cells('time');
  assert.ok((await widget.locator('dl.times').textContent()).includes(time.own), time.own);
  // A GPU has no ICI ring: refused, the v5p kept.
  await refuse('h100', 'v5p');
  await picker.selectOption('');
  assert.equal(await table.count(), 0);
  await page.waitForFunction(() => !location.search.includes('collective.vs='));
  assert.deepEqual(problems, []);
  await context.close();
});
