/** The baseline of the HTTP benches: express with nothing added, answering every request with BARE_BODY as JSON on 127.0.0.1:PORT. */
import express from 'express';

const body = Buffer.from(process.env.BARE_BODY ?? '{}');
const app = express();
app.disable('x-powered-by');
app.use((_req, res) => {
  res.type('application/json').send(body);
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
