// The baseline of the redirect benchmark: a bare node:http server doing the
// same indexed slug lookup in better-sqlite3 and answering 302, nothing else.
import http from 'node:http';
import Database from 'better-sqlite3';

const [, , dbPath, port] = process.argv;
const db = new Database(dbPath, { readonly: true });
db.pragma('journal_mode = WAL');
const lookup = db.prepare('SELECT url FROM links WHERE slug = ?');

const server = http.createServer((req, res) => {
  const row = lookup.get(req.url.slice(1));
  if (row) {
    res.writeHead(302, { location: row.url, 'cache-control': 'private, no-store' });
  } else {
    res.writeHead(404);
  }
  res.end();
});
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
