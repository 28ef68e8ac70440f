// End-to-end tests of Parts 2 and 3: the TPU page and the sharding page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { start, watchedPage, ready } from './lib.mjs';

let env;
before(async () => { env = await start(); });
after(async () => { await env.close(); });

test('Part 2: the spec table comes from the registry and the torus answers clicks', async () => {
  const { page, context, problems } = await watchedPage(env.browser, env.base);
  await page.goto(env.base + 'tpus');
  await ready(page);
  const v5e = page.locator('[data-widget="spec-table"] tr[data-chip="v5e"]');
  assert.match(await v5e.textContent(), /1\.97e14.*16 GB.*8\.2e11.*240/);
  assert.equal(await page.locator('[data-widget="spec-table"] tbody tr').count(), 11);
  const facts = page.locator('[data-widget="torus"] [data-facts]');
  assert.match(await facts.textContent(), /128 chips on 16 hosts/);
  assert.match(await facts.textContent(), /x = 8 \(no wraparound\), y = 16 \(wraps around\)/);
  await page.locator('[data-widget="torus"] button.chip').nth(5 * 16 + 7).click();
  assert.match(await facts.textContent(), /chip \(5, 7, 0\) has 4 neighbours/);
  // The link table: PCIe is the bottleneck at B = 1024 on a v6e.
  const pcie = page.locator('[data-widget="link-roofline"] tr[data-link="pcie"] [data-verdict]');
  assert.equal(await pcie.textContent(), 'communication-bound');
  await page.locator('[data-widget="link-roofline"] input[type="range"]').focus();
  await page.keyboard.press('End');
  assert.equal(await pcie.textContent(), 'compute-bound');
  assert.deepEqual(problems, []);
  await context.close();
});

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
