// A static file server for the built site, bound to loopback, that answers as
// a real static host does: `/rooflines` is served from `rooflines.html`;
// unknown paths get `404.html` with status 404; a client that accepts brotli
// or gzip gets the precompressed `X.br` or `X.gz` written at build time; and
// content-hashed files may be cached for a year, pages are revalidated.
// Usage: node serve.mjs DIR PORT  (PORT 0 picks a free one).
//
// With a `live` object (scripts/watch.mjs), it also serves the live edit loop:
// every page gets `/__live.js`, which listens on `/__live` (server-sent events
// of `live.state`) and reloads the page when a build lands or shows the
// build's error over it; pages are sent uncompressed, and `/sw.js` is a worker
// that removes itself, so no cached copy hides an edit.
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
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
};

// Names the build gives a content hash: immutable once served.
const HASHED = /(^|\/)_b\/|-[0-9a-f]{12}(_bg)?\.[a-z0-9]+$|-[0-9a-f]{16}(_bg)?\.[a-z0-9]+$/;

const isFile = (f) => fs.existsSync(f) && fs.statSync(f).isFile();

/// The file that answers `pathname`, and the status. `root` is absolute; a
/// path that leads out of it (`/..%2Fdist-old/x`, which the URL parser keeps
/// and decoding turns into `/../dist-old/x`) is refused, sibling folders whose
/// names merely start with the root's included.
export function resolve(root, pathname) {
  const file = path.join(root, pathname);
  const inside = path.relative(root, file);
  if (inside.startsWith('..') || path.isAbsolute(inside)) return { status: 403 };
  if (isFile(file)) return { file, status: 200 };
  if (pathname.endsWith('/') && isFile(path.join(file, 'index.html'))) {
    return { file: path.join(file, 'index.html'), status: 200 };
  }
  if (!path.extname(pathname) && isFile(`${file}.html`)) return { file: `${file}.html`, status: 200 };
  return { file: path.join(root, '404.html'), status: 404 };
}

// The page's side of the live edit loop: reload when a build lands, show a
// failed build's error (file and line) over the page until the next one.
const LIVE_JS = `(() => {
  navigator.serviceWorker?.getRegistrations().then((rs) => rs.forEach((r) => r.unregister()));
  let box;
  const show = (s) => {
    if (!box) {
      box = document.createElement('pre');
      box.id = 'live-error';
      box.setAttribute('role', 'alert');
      box.style.cssText = 'position:fixed;inset:auto 0 0 0;max-height:60vh;overflow:auto;margin:0;padding:1em;'
        + 'background:#7f1d1d;color:#fff;font:14px/1.4 monospace;white-space:pre-wrap;z-index:2147483647';
      document.body.append(box);
    }
    box.textContent = s.text;
  };
  let seen;
  const events = new EventSource('/__live');
  events.onmessage = (e) => {
    const s = JSON.parse(e.data);
    if (s.kind === 'error') show(s);
    else if (s.kind === 'ok' && seen !== undefined && s.build !== seen) location.reload();
    if (s.kind === 'ok') seen = s.build;
    else if (seen === undefined) seen = s.build;
  };
})();
`;

const UNREGISTER_SW = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', () => self.registration.unregister());
`;

export function serve(dir, port = 0, live = null) {
  const root = path.resolve(dir);
  const server = http.createServer((req, res) => {
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (live && pathname === '/__live') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`data: ${JSON.stringify(live.state)}\n\n`);
      live.clients.add(res);
      req.on('close', () => live.clients.delete(res));
      return;
    }
    if (live && (pathname === '/__live.js' || pathname === '/sw.js')) {
      res.writeHead(200, { 'content-type': TYPES['.js'], 'cache-control': 'no-cache' });
      res.end(pathname === '/sw.js' ? UNREGISTER_SW : LIVE_JS);
      return;
    }
    const { file, status } = resolve(root, pathname);
    if (live && file && file.endsWith('.html')) {
      let html;
      try {
        html = fs.readFileSync(file, 'utf8').replace('</head>', '<script src="/__live.js"></script></head>');
      } catch {
        res.writeHead(503, { 'retry-after': '1', 'cache-control': 'no-cache' }).end();
        return;
      }
      res.writeHead(status, { 'content-type': TYPES['.html'], 'cache-control': 'no-cache' });
      res.end(html);
      return;
    }
    if (!file) {
      res.writeHead(status).end();
      return;
    }
    const headers = {
      'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'cache-control': status === 200 && HASHED.test(path.relative(root, file).replaceAll('\\', '/'))
        ? 'public, max-age=31536000, immutable'
        : 'no-cache',
      vary: 'accept-encoding',
    };
    const accepts = String(req.headers['accept-encoding'] || '');
    let body = file;
    if (/\bbr\b/.test(accepts) && isFile(`${file}.br`)) {
      body = `${file}.br`;
      headers['content-encoding'] = 'br';
    } else if (/\bgzip\b/.test(accepts) && isFile(`${file}.gz`)) {
      body = `${file}.gz`;
      headers['content-encoding'] = 'gzip';
    }
    let size;
    try {
      size = fs.statSync(body).size;
    } catch {
      // The site is being replaced under us (a rebuild of the live loop):
      // the file went between finding it and opening it. Ask to try again.
      res.writeHead(503, { 'retry-after': '1', 'cache-control': 'no-cache' }).end();
      return;
    }
    headers['content-length'] = size;
    res.writeHead(status, headers);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    fs.createReadStream(body).on('error', () => res.destroy()).pipe(res);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir = 'dist', port = '8080'] = process.argv.slice(2);
  serve(dir, Number(port)).then((s) => console.log(`serving ${dir} on http://127.0.0.1:${s.address().port}/`));
}
