// End-to-end tests of the widgets on /sharding (Part 3): the sharding
// notation and its derived collective, the collective player, and the
// collective matmul (round the ring, and reduce-scattering in case 3).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 3: editing the notation changes the derived collective', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'sharding');
  await ready(page);
  const widget = page.locator('[data-widget="sharding"]');
  const collective = widget.locator('[data-collective]');
  assert.match(await collective.textContent(), /^AllGather A over X/);
  const spec = widget.locator('input.spec');
  await spec.fill('A[I, J_X] · B[J_X, K] -> C[I, K_X]');
  assert.equal(await collective.textContent(), 'ReduceScatter C over X');
  await spec.fill('A[I_X, J] · B[J, K_Y] -> C[I_X, K_Y]');
  assert.equal(await collective.textContent(), 'no communication');
  // Garbage: a precise message, and the last valid plan stays on screen.
  await spec.fill('A[I_X, J] · B[J, K_Q] -> C[I_X, K_Q]');
  assert.match(await widget.locator('[data-notice]').textContent(), /Q/);
  assert.equal(await collective.textContent(), 'no communication');
  await widget.locator('select').first().selectOption({ index: 6 });
  assert.match(await collective.textContent(), /over Y/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 3: stepping the collective player changes the device view', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'sharding');
  await ready(page);
  const player = page.locator('[data-widget="collective"]');
  await player.scrollIntoViewIfNeeded();
  const ring = player.locator('svg.ring');
  const before = await ring.screenshot();
  const label = player.locator('[data-step-label]');
  assert.match(await label.textContent(), /^Before/);
  await player.locator('button[aria-label="next step"]').focus();
  await page.keyboard.press('Enter');
  assert.equal(await ring.getAttribute('data-step'), '1');
  assert.match(await label.textContent(), /AllGather/);
  const after = await ring.screenshot();
  assert.ok(!before.equals(after), 'the device view did not change');
  // Scrub with the keyboard, switch to an AllReduce on 8 devices.
  await player.locator('input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.match(await player.locator('output').textContent(), /step 2 \/ 2/);
  await player.locator('select').nth(0).selectOption('allreduce');
  await player.locator('select').nth(1).selectOption('8');
  assert.match(await player.locator('output').textContent(), /step 0 \/ \d+/);
  await player.locator('button.play').click();
  await page.waitForFunction(() => document.querySelector('[data-widget="collective"] svg.ring').getAttribute('data-step') !== '0');
  await player.locator('button.play').click();
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 3: the collective matmul steps round the ring', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'sharding');
  await ready(page);
  const w = page.locator('[data-widget="collective-matmul"]');
  await w.scrollIntoViewIfNeeded();
  const table = w.locator('table.cm-devices');
  assert.equal(await table.getAttribute('data-step'), '0');
  const row0 = w.locator('tr[data-device="0"]');
  assert.equal(await row0.locator('[data-multiplies]').textContent(), 'A0');
  assert.equal(await w.locator('[data-step-compute]').textContent(), '349 µs');
  assert.equal(await w.locator('[data-step-comms]').textContent(), '373 µs');
  await w.locator('button[aria-label="next step"]').click();
  assert.equal(await table.getAttribute('data-step'), '1');
  assert.equal(await row0.locator('[data-multiplies]').textContent(), 'A7, A1');
  assert.equal(await w.locator('[data-step-compute]').textContent(), '698 µs');
  assert.equal(await w.locator('[data-verdict]').textContent(), 'compute-bound');
  // One direction only: eight steps instead of five.
  await w.locator('input[type="checkbox"]').uncheck();
  assert.match(await w.locator('[data-position]').textContent(), /step 0 \/ 7/);
  // A thin B leaves the ring waiting on its transfers.
  const overlapped = await w.locator('[data-overlapped]').textContent();
  await w.locator('input[aria-label="columns of B per device, K"]').fill('64');
  assert.equal(await w.locator('[data-verdict]').textContent(), 'communication-bound');
  assert.notEqual(await w.locator('[data-overlapped]').textContent(), overlapped);
  await w.locator('input[aria-label="rows of A, I"]').fill('8191');
  assert.match(await w.locator('[data-notice]').textContent(), /divide/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 3: the collective matmul reduce-scatters partial sums in case 3', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'sharding');
  await ready(page);
  const widget = page.locator('[data-widget="collective-matmul"]');
  await widget.scrollIntoViewIfNeeded();
  const gather = widget.locator('[data-gather]');
  const before = await gather.textContent();
  await widget.locator('select').nth(1).selectOption('reducescatter');
  // C[8192, 4096] in bf16 over a bidirectional v5e ring: V / W_ici = 746 µs.
  assert.equal(await gather.textContent(), '746 µs');
  assert.notEqual(before, '746 µs');
  assert.match(await widget.locator('[data-case-note]').textContent(), /A\[I, J_X\]/);
  const device0 = widget.locator('tr[data-device="0"]');
  assert.equal(await device0.locator('[data-multiplies]').textContent(), '½C7, ½C1');
  assert.equal(await device0.locator('[data-held]').textContent(), 'A0, B0');
  assert.equal(await widget.locator('[data-step-compute]').textContent(), '43.6 µs');
  // The next step passes the running sums on.
  await widget.locator('button[aria-label="next step"]').click();
  assert.equal(await device0.locator('[data-sends]').textContent(), 'Σ½C7 → device 1, Σ½C1 → device 7');
  // The URL is written after the input settles, as in every widget.
  await page.waitForFunction(() => location.search.includes('case=reducescatter'), null, { timeout: 5000 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('Part 3: the four collectives side by side show who ends with what', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'sharding');
  await ready(page);
  const w = page.locator('[data-widget="collective-pieces"]');
  await w.scrollIntoViewIfNeeded();
  const after = (op, d) => w.locator(`[data-op="${op}"] [data-when="after"] [data-device="${d}"]`);
  const ops = await w.locator('[data-op]').evaluateAll((els) => els.map((e) => e.dataset.op));
  assert.deepEqual(ops, ['allgather', 'reducescatter', 'allreduce', 'alltoall']);
  const heldBy = (op, d) => after(op, d).getAttribute('data-held');
  // AllGather: everyone holds every device's piece; ReduceScatter: device 1
  // keeps piece 1 summed over devices; AllToAll: device 2 collects piece 2 of each.
  assert.equal(await heldBy('allgather', 1), 'a0 b1 c2');
  assert.equal(await heldBy('reducescatter', 1), 'a1+b1+c1');
  assert.equal(await heldBy('allreduce', 0), 'a0+b0+c0 a1+b1+c1 a2+b2+c2');
  assert.equal(await heldBy('alltoall', 2), 'a2 b2 c2');
  assert.match(await after('reducescatter', 1).textContent(), /a1\+b1\+c1/);
  // The maximum as the reduction, on four devices.
  await w.locator('select').nth(1).selectOption('max');
  await w.locator('select').nth(0).selectOption('4');
  assert.equal(await heldBy('reducescatter', 3), 'max(a3,b3,c3,d3)');
  assert.deepEqual(problems, []);
  await context.close();
});
