// End-to-end tests of the widgets on /gpus (Part 12): GPU clusters, GPU
// collectives, the NVLink node, the rooflines table, the GPU anatomy and the
// GPU pipeline (timed, and zero-bubble), and the shares of quoted peak a
// reader assumes on them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready, readyLibrary } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 12: crossing nodes costs more than staying inside one', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="gpu"]');
  const seconds = async (scope) => Number(await widget.locator(`[data-scope="${scope}"]`).getAttribute('data-seconds'));
  assert.ok(await seconds('network') > await seconds('node'));
  assert.match(await widget.locator('[data-facts]').textContent(), /128 nodes of 8/);
  await widget.locator('#gpu-count').focus();
  await page.keyboard.press('ArrowRight');
  assert.match(await widget.locator('[data-facts]').textContent(), /2,048 GPUs/);
  assert.ok(await seconds('network') > await seconds('node'));
  await widget.locator('input.gpus-text').fill('12');
  assert.match(await widget.locator('[data-notice]').textContent(), /multiple of 8/);
  assert.equal(await widget.locator('table.compare tbody tr').count(), 5);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: the zero-bubble schedule idles less than 1F1B', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="gpu-parallelism"]');
  // The pipeline planner is started late, with the library bundle.
  await readyLibrary(page, '[data-widget="gpu-parallelism"]');
  const oneF = widget.locator('[data-1f1b-bubble]');
  const zb = widget.locator('[data-zb-bubble]');
  // 4 stages, 4 microbatches: 1F1B idles 3/7 of the step.
  assert.match(await oneF.textContent(), /^42\.9%/);
  const zbBefore = Number(await zb.getAttribute('data-zb-bubble'));
  assert.ok(zbBefore >= 0.2 - 1e-9 && zbBefore < 0.3, String(zbBefore));
  assert.equal(await widget.locator('svg.zero-bubble .slot.wgt').count(), 16);
  // Eight microbatches: 1F1B's bubble falls to 3/11, and the zero-bubble one with it.
  const slider = widget.locator('input.in-microbatches');
  await slider.focus();
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
  assert.match(await oneF.textContent(), /^27\.3%/);
  const zbAfter = Number(await zb.getAttribute('data-zb-bubble'));
  assert.ok(zbAfter < zbBefore && zbAfter < 0.273, String(zbAfter));
  assert.equal(await widget.locator('svg.zero-bubble .slot.wgt').count(), 32);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: GPU collectives follow SHARP, scope and array size', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="gpu-collectives"]');
  await widget.scrollIntoViewIfNeeded();
  const total = widget.locator('[data-total]');
  // 8 x H100, 1 GB AllReduce: 0.128 ms start-up (fitted to the book's
  // measured curve) + 2 (7/8) 1 GB / 450 GB/s.
  assert.equal(await total.textContent(), '4.02 ms');
  assert.equal(await widget.locator('[data-bus-bw]').textContent(), '436 GB/s');
  assert.match(await widget.locator('[data-sharp-gain]').textContent(), /^71% more bandwidth/);
  assert.match(await widget.locator('p.sharp-book').textContent(), /predicts a 75% gain.*about 30%/);
  assert.match(await widget.locator('p.measured-here').textContent(), /8xH100/);
  const chart = widget.locator('.plot svg');
  const before = await chart.innerHTML();
  // SHARP on: each GPU sends the array once, 1 GB / 450 GB/s after the start-up.
  await widget.locator('input.sharp').check();
  assert.equal(await total.textContent(), '2.35 ms');
  assert.match(await widget.locator('p.sharp-book').textContent(), /switches take in/);
  assert.notEqual(await chart.innerHTML(), before, 'the chart did not redraw');
  // The smallest array is latency-bound, the largest bandwidth-bound.
  const regime = widget.locator('[data-regime]');
  await widget.locator('input.bytes').focus();
  await page.keyboard.press('Home');
  assert.equal(await regime.getAttribute('data-regime'), 'latency-bound');
  await page.keyboard.press('End');
  assert.equal(await regime.getAttribute('data-regime'), 'bandwidth-bound');
  // Across nodes: 16 GPUs, and the leaf level of the tree appears in the table.
  await widget.locator('input.sharp').uncheck();
  await widget.locator('select.op').selectOption('allgather');
  await widget.locator('select.scope').selectOption('network');
  assert.equal(await widget.locator('[data-gpus]').getAttribute('data-gpus'), '16');
  assert.match(await widget.locator('[data-gpus]').textContent(), /16 GPUs \(2 nodes\)/);
  assert.equal(await widget.locator('table.levels tbody tr').count(), 2);
  assert.equal(await widget.locator('table.sharded tbody tr').count(), 9);
  assert.ok(await widget.locator('[data-sharp-gain]').isHidden());
  // Text that is not a size is refused with a message, and the state stays.
  const shown = await total.textContent();
  await widget.locator('input.bytes-text').fill('abc');
  assert.match(await widget.locator('[data-notice]').textContent(), /bytes/);
  assert.equal(await total.textContent(), shown);
  // A ragged AllToAll: K = 8 of Z = 8 shards sends about 57% of a dense one.
  await widget.locator('select.op').selectOption('alltoall');
  assert.equal(await widget.locator('table.ragged tr[data-z="8"] td').first().textContent(), '57%');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: the NVLink node follows the chosen GPU', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="nvlink-node"]');
  await widget.scrollIntoViewIfNeeded();
  // 8 x H100: 18 links of 25 GB/s per GPU, split 5 + 4 + 4 + 5 over 4 NVSwitches.
  assert.equal(await widget.locator('svg rect.nvswitch').count(), 4);
  assert.equal(await widget.locator('svg rect.gpu-box').count(), 8);
  assert.deepEqual(await widget.locator('svg text.link-count').allTextContents(), ['5', '4', '4', '5']);
  assert.match(await widget.locator('[data-per-gpu]').textContent(), /^450 GB\/s = 18 × 25 GB\/s/);
  assert.equal(await widget.locator('[data-bisection]').textContent(), '3.6 TB/s');
  assert.equal(await widget.locator('[data-ratio]').textContent(), '9×');
  // The NVL72 rack: 72 GPUs under 18 switches, 64.8 TB/s inside and 50 GB/s per GPU out.
  await widget.locator('select:not([data-vs])').selectOption('gb200');
  assert.equal(await widget.locator('svg rect.gpu-box').count(), 72);
  assert.equal(await widget.locator('svg rect.nvswitch').count(), 18);
  assert.equal(await widget.locator('[data-bisection]').textContent(), '64.8 TB/s');
  assert.match(await widget.locator('[data-scale-out]').textContent(), /3\.6 TB\/s \(50 GB\/s per GPU\)/);
  assert.equal(await widget.locator('[data-ratio]').textContent(), '18×');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: the rooflines table shows all its columns at 1280 px', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(env.base + 'gpus');
  await ready(page);
  const scroll = page.locator('[data-widget="gpu"] table.compare').locator('xpath=..');
  const { scrollWidth, clientWidth } = await scroll.evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
  assert.ok(scrollWidth <= clientWidth, `the table needs ${scrollWidth} px but has ${clientWidth}`);
  // Every column is there, and each cell is inside the table's box.
  const table = page.locator('[data-widget="gpu"] table.compare');
  assert.deepEqual(await table.locator('thead th').allTextContents(), ['chip', 'peak', 'HBM ridge (FLOPs/B)', 'fast domain',
    'DP tokens per chip inside it', 'DP tokens per chip, scale-out link alone']);
  assert.deepEqual(await table.locator('tbody tr').first().locator('th, td').allTextContents(),
    ['NVIDIA H100', '990 TFLOPs/s', '296', '8 over nvlink', '2,200', '2,475']);
  const box = await scroll.boundingBox();
  const cells = await table.locator('tbody tr:first-child > *').evaluateAll((cs) => cs.map((c) => c.getBoundingClientRect().right));
  assert.ok(cells.every((right) => right <= box.x + box.width + 1), `cells end at ${cells} past ${box.x + box.width}`);
  assert.match(await page.locator('[data-widget="gpu"] [data-facts]').textContent(), /128 nodes of 8.*4 Scalable Units/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: the GPU anatomy shows each part and steps a divergent warp', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="gpu-anatomy"]');
  await widget.scrollIntoViewIfNeeded();
  assert.equal(await widget.locator('p.chip-title').textContent(), 'H100: 132 SMs');
  assert.equal(await widget.locator('[data-part-count]').textContent(), '528 on the chip, 4 per SM');
  assert.equal(await widget.locator('[data-part-rate]').textContent(), '990 TFLOP/s');
  // The H100 against a v5p: 528 Tensor Cores for 8 MXUs.
  assert.match(await widget.locator('[data-part-tpu]').textContent(), /^MXU: 8 on a TPU v5p/);
  // Selecting HBM shows its capacity and bandwidth.
  await widget.locator('button[data-part-button="hbm"]').click();
  assert.equal(await widget.locator('[data-part-capacity]').textContent(), '80 GB');
  assert.equal(await widget.locator('[data-part-bandwidth]').textContent(), '3.35 TB/s');
  // A B200 has 148 SMs and TMEM; its peak rebuilt from the parts is 2.26 PFLOP/s.
  await widget.locator('select').first().selectOption('b200');
  assert.equal(await widget.locator('p.chip-title').textContent(), 'B200: 148 SMs');
  assert.equal(await widget.locator('.sm-cell').count(), 148);
  await widget.locator('button[data-part-button="tmem"]').click();
  assert.equal(await widget.locator('[data-part]').getAttribute('data-part'), 'tmem');
  assert.match(await widget.locator('[data-peak-from-parts]').textContent(), /= 2\.26 PFLOP\/s/);
  // The warp: 8 lanes take the if, 24 the else; both paths run, 40% of lane-cycles are lost.
  const cycles = widget.locator('[data-cycles]');
  assert.equal(await cycles.textContent(), '5');
  assert.equal(await widget.locator('[data-lost]').textContent(), '40%');
  await widget.locator('button[aria-label="next step"]').click();
  assert.equal(await widget.locator('[data-position]').textContent(), 'cycle 1 / 5');
  assert.equal(await widget.locator('li[data-lane="0"]').getAttribute('class'), 'lane active');
  assert.equal(await widget.locator('li[data-lane="8"]').getAttribute('class'), 'lane masked');
  // No lane takes the if: the warp is uniform, 3 cycles, nothing lost.
  await widget.locator('input.in-taken').focus();
  await page.keyboard.press('Home');
  assert.equal(await cycles.textContent(), '3');
  assert.equal(await widget.locator('[data-lost]').textContent(), '0%');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: the GPU pipeline times its bubble, sends and reductions', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const widget = page.locator('[data-widget="gpu-parallelism"]');
  // The pipeline planner is started late, with the library bundle.
  await readyLibrary(page, '[data-widget="gpu-parallelism"]');
  const bubble = widget.locator('[data-bubble]');
  // 4 stages, 4 microbatches: (S - 1)/(M + S - 1) = 3/7.
  assert.equal(await bubble.textContent(), '42.9%');
  // The first timeline is GPipe's (the zero-bubble schedule is drawn below it).
  const svg = widget.locator('svg.gpu-pipeline').first();
  assert.equal(await svg.locator('.slot.reduce').count(), 4);
  const before = await svg.innerHTML();
  // 32 microbatches: 3/35.
  await widget.locator('input.in-microbatches').focus();
  await page.keyboard.press('End');
  assert.equal(await bubble.textContent(), '8.57%');
  assert.equal(await svg.locator('.slot.fwd').count(), 4 * 32);
  assert.notEqual(await svg.innerHTML(), before, 'the timeline did not redraw');
  // One replica: nothing to reduce, and the idle share falls to the bubble with sends.
  await widget.locator('input.in-dp').fill('1');
  await widget.locator('input.in-dp').press('Enter');
  assert.equal(await widget.locator('[data-reduce]').textContent(), 'none: one replica');
  assert.equal(await svg.locator('.slot.reduce').count(), 0);
  // A bad value is refused with a message and the state stays.
  await widget.locator('input.in-tp').fill('9');
  await widget.locator('input.in-tp').press('Enter');
  assert.match(await widget.locator('[data-notice]').textContent(), /^tp/);
  assert.equal(await bubble.textContent(), '8.57%');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: a share of quoted peak stretches the collective and the pipeline step', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'gpus');
  await ready(page);
  const coll = page.locator('[data-widget="gpu-collectives"]');
  await coll.scrollIntoViewIfNeeded();
  const total = coll.locator('[data-total]');
  const quoted = Number(await total.getAttribute('data-total'));
  const measured = await coll.locator('p.measured-here').textContent();
  // Every layer of the chart (the derated model is drawn with the moving lines).
  const chart = coll.locator('.plot');
  assert.doesNotMatch(await chart.innerHTML(), /of the quoted link bandwidth|links at/);
  // The links at the book's measured NCCL share: the transfer takes longer,
  // the dashed derated model joins the chart, the measurements stay.
  await coll.locator('[data-derate-preset="achievable"]').click();
  await page.waitForFunction(() => /gpu-collectives\.link_derate=0\.7/.test(location.search));
  const slow = Number(await total.getAttribute('data-total'));
  assert.ok(slow > 1.2 * quoted, `${slow} vs ${quoted}`);
  assert.match(await coll.locator('output[for="gpu-collectives-link-derate"]').textContent(), /^80%$/);
  // The legend names the dashed line (its long label at this width).
  assert.match(await chart.innerHTML(), /the same at 80% of the quoted link bandwidth/);
  assert.equal(await coll.locator('p.measured-here').textContent(), measured);
  await coll.locator('[data-derate-preset="peak"]').click();
  await page.waitForFunction(() => !/link_derate/.test(location.search));
  assert.equal(Number(await total.getAttribute('data-total')), quoted);
  // The pipeline: 80 % of peak FLOPs/s and the measured link share stretch
  // the step and lower the MFU.
  const pipe = page.locator('[data-widget="gpu-parallelism"]');
  await readyLibrary(page, '[data-widget="gpu-parallelism"]');
  const step = async () => Number(await pipe.locator('[data-step]').getAttribute('data-step'));
  const mfu = async () => Number(await pipe.locator('[data-mfu]').getAttribute('data-mfu'));
  const [step0, mfu0] = [await step(), await mfu()];
  await pipe.locator('[data-derate-preset="achievable"]').click();
  await page.waitForFunction(() => /gpu-parallelism\.flops_derate=0\.8/.test(location.search) && /gpu-parallelism\.link_derate=/.test(location.search));
  assert.ok(await step() > 1.2 * step0, `${await step()} vs ${step0}`);
  assert.ok(await mfu() < mfu0, `${await mfu()} vs ${mfu0}`);
  // A share above one is refused by name and the step stays.
  const kept = await step();
  await page.goto(env.base + 'gpus?gpu-parallelism.flops_derate=0.8&gpu-parallelism.link_derate=1.5');
  await ready(page);
  await readyLibrary(page, '[data-widget="gpu-parallelism"]');
  const again = page.locator('[data-widget="gpu-parallelism"]');
  assert.match(await again.locator('[data-notice]').textContent(), /the link derate must be at most 1/);
  assert.equal(await again.locator('#gpu-parallelism-flops-derate').inputValue(), '0.8');
  assert.ok(Number(await again.locator('[data-step]').getAttribute('data-step')) < kept);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 12: the static figures are drawn into the page, fit a phone, and ship no island', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(env.base + 'gpus');
  await ready(page);
  for (const name of ['cube-mesh', 'su-cabling', 'nvswitch-chip', 'megatron-table']) {
    const fig = page.locator(`[data-widget="${name}"]`);
    assert.equal(await fig.count(), 1, name);
    assert.equal(await page.locator(`[data-island="${name}"]`).count(), 0, name);
    const box = await fig.boundingBox();
    assert.ok(box.width <= 390 && box.x >= 0, `${name} fits: ${JSON.stringify(box)}`);
  }
  // Every lane of every port, every link of both cube-meshes, all nine Megatron rows.
  // Links and boxes are drawn as paths, one subpath ("M") each.
  const runs = (name, cls) => page.locator(`[data-widget="${name}"] path[class="${cls}"]`)
    .evaluateAll((ps) => ps.reduce((n, p) => n + p.getAttribute('d').split('M').length - 1, 0));
  assert.equal(await runs('nvswitch-chip', 'fig-link'), 128);
  assert.equal(await runs('su-cabling', 'fig-mesh'), 8 * 16);
  assert.equal(await runs('cube-mesh', 'fig-box'), 16);
  assert.equal(await page.locator('[data-widget="megatron-table"] tbody tr').count(), 9);
  assert.match(await page.locator('[data-widget="su-cabling"] [data-numbers]').textContent(), /127 nodes, it still fills 4 SUs/);
  assert.deepEqual(problems, []);
  await context.close();
});
