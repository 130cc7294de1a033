// The PostgreSQL baseline of the redirect benchmark: a bare node:http server
// doing the same indexed slug lookup through a pg pool of the server's default
// size (10) and answering 302, nothing else.
import http from 'node:http';
import pg from 'pg';

const [, , dsn, port] = process.argv;
const pool = new pg.Pool({ connectionString: dsn, max: 10 });

const server = http.createServer((req, res) => {
  pool.query({ name: 'slug', text: 'SELECT url FROM links WHERE slug = $1', values: [req.url.slice(1)] }).then(
    ({ rows }) => {
      if (rows.length > 0) res.writeHead(302, { location: rows[0].url, 'cache-control': 'private, no-store' });
      else res.writeHead(404);
      res.end();
    },
    () => {
      res.writeHead(500);
      res.end();
    },
  );
});
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
