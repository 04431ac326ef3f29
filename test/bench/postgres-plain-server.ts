/**
 * The PostgreSQL bench's baseline (postgres-bench.ts), in a process of its own as the server under test is: plain
 * Express over TLS, the least work that gives the same answers. `GET /v1/forms/:id` sends the form's JSON from
 * memory; `POST /v1/submissions` inserts one row into the same database's `submissions` table through `pg` and
 * answers 201 with the body the full stack gave for the same submission.
 *
 * Started with `fork`; told `{ databaseUrl, formJson, created, workspaceId }` over IPC, it answers `{ port }`.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import selfsigned from 'selfsigned';
import { newId } from '../../src/ids.js';

interface Setup {
  databaseUrl: string;
  formJson: string;
  created: Record<string, unknown>;
  workspaceId: string;
}

process.once('message', async (message) => {
  const { databaseUrl, formJson, created, workspaceId } = message as Setup;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json());
  app.get('/v1/forms/:id', (_req, res) => void res.type('application/json').send(formJson));
  app.post('/v1/submissions', async (req, res) => {
    const at = new Date().toISOString();
    const id = newId('sub');
    await pool.query(
      `INSERT INTO submissions (id, workspace_id, environment, form_id, form_version, status, answers, hidden, visited_steps,
         score, grade, score_breakdown, scored_at, created_at, updated_at)
       VALUES ($1, $2, 'live', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $12)`,
      [
        id,
        workspaceId,
        req.body.form_id,
        created.form_version,
        created.status,
        JSON.stringify(req.body.answers),
        JSON.stringify(req.body.hidden ?? {}),
        JSON.stringify(created.visited_steps),
        created.score,
        created.grade,
        JSON.stringify(created.score_breakdown),
        at,
      ],
    );
    res.status(201).json({ ...created, id, created_at: at, updated_at: at, scored_at: at });
  });
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec' });
  const server = https.createServer({ key: pems.private, cert: pems.cert }, app);
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.once('disconnect', () => {
    server.close();
    void pool.end();
  });
});
