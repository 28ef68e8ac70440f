// A static file server for the built site, bound to loopback. Like a static
// host with a 404.html fallback, it answers unknown routes with 404.html (a
// copy of index.html), so deep links load the app. Usage: node serve.mjs DIR PORT  (PORT 0 picks a free one).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
};

export function serve(dir, port = 0) {
  const root = path.resolve(dir);
  const server = http.createServer((req, res) => {
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    let file = path.join(root, pathname);
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    let status = 200;
    if (!fs.existsSync(file)) {
      // Unknown routes get the app (404.html is a copy of index.html) so deep
      // links work; a missing asset (a path with an extension) is a real 404.
      file = path.join(root, '404.html');
      if (path.extname(pathname)) status = 404;
    }
    res.writeHead(status, {
      'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'cache-control': 'no-cache',
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir = 'dist', port = '8080'] = process.argv.slice(2);
  serve(dir, Number(port)).then((s) => console.log(`serving ${dir} on http://127.0.0.1:${s.address().port}/`));
}
