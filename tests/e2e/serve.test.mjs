// The test server answers only from its root: a sibling folder whose name
// starts with the root's (`dist-secret` beside `dist`) is out of reach
// however the path is spelled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { serve } from './serve.mjs';

/// The status and body of a GET of `target`, sent exactly as written.
function get(port, target) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: target }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      })
      .on('error', reject);
  });
}

test('the test server refuses paths outside its root', async () => {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'serve-'));
  fs.mkdirSync(path.join(top, 'dist'));
  fs.mkdirSync(path.join(top, 'dist-secret'));
  fs.writeFileSync(path.join(top, 'dist', 'index.html'), '<p>home</p>');
  fs.writeFileSync(path.join(top, 'dist', '404.html'), '<p>not here</p>');
  fs.writeFileSync(path.join(top, 'dist-secret', 'key.txt'), 'SECRET');
  fs.writeFileSync(path.join(top, 'outside.txt'), 'SECRET');
  const server = await serve(path.join(top, 'dist'), 0);
  const { port } = server.address();
  try {
    assert.equal((await get(port, '/index.html')).body, '<p>home</p>');
    for (const target of [
      '/..%2Fdist-secret%2Fkey.txt',
      '/..%2F..%2F' + encodeURIComponent(path.join(top, 'dist-secret', 'key.txt').slice(1)),
      '/..%2Foutside.txt',
      '/%2e%2e%2Foutside.txt',
    ]) {
      const { status, body } = await get(port, target);
      assert.ok(!body.includes('SECRET'), `${target} served a file outside the root`);
      assert.ok(status === 403 || status === 404, `${target}: ${status}`);
    }
    assert.equal((await get(port, '/..%2Fdist-secret%2Fkey.txt')).status, 403);
  } finally {
    server.close();
    fs.rmSync(top, { recursive: true, force: true });
  }
});
