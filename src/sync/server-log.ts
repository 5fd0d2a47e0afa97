/**
 * The shared log in PostgreSQL: one append-only table of events, unique by (origin, origin_seq),
 * in a global order (a bigserial). Writers insert under a transaction-scoped advisory lock, so ids
 * become visible in the order they were given: a reader's `id > cursor` never skips a row that
 * commits later with a smaller id. Recall creates and migrates the schema itself.
 */
import pg from 'pg';
import type { MemoryEvent } from '../core/model/events.js';
import { entityKey } from '../core/store/ids.js';
import type { SyncConfig } from './config.js';

export const SERVER_SCHEMA_VERSION = 1;

/** A row of the shared log, as pulled. */
export interface LogRow {
  id: number;
  event: MemoryEvent;
}

export class ServerLog {
  private constructor(
    private readonly client: pg.Client,
    private readonly t: string,
    /** The log's own id: a new one (a reset database) means every cursor starts again. */
    readonly logId: string,
  ) {}

  static async connect(cfg: SyncConfig, onNotify: (origin: string) => void, onError: (err: Error) => void): Promise<ServerLog> {
    const client = new pg.Client({
      connectionString: cfg.connectionString,
      ...(cfg.password ? { password: cfg.password } : {}),
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      application_name: 'recall-sync',
    });
    client.on('error', onError);
    await client.connect();
    try {
      const t = cfg.table;
      const logId = await migrate(client, t);
      client.on('notification', (n) => {
        if (n.channel === `${t}_events`) onNotify(n.payload ?? '');
      });
      await client.query(`LISTEN ${t}_events`);
      return new ServerLog(client, t, logId);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
  }

  /** The highest seq of `origin` the server holds: where pushing resumes. */
  async pushedSeq(origin: string): Promise<number> {
    const r = await this.client.query(`SELECT COALESCE(MAX(origin_seq), 0) AS s FROM ${this.t}_events WHERE origin = $1`, [origin]);
    return Number(r.rows[0].s);
  }

  /**
   * Appends events of one origin (already in their travelling form), in one transaction; rows
   * already there are left as they are. A forget among them also erases from the server what it
   * names, so the words leave the shared log too. Everyone listening is woken at commit.
   */
  async push(origin: string, events: MemoryEvent[]): Promise<void> {
    if (events.length === 0) return;
    const c = this.client;
    await c.query('BEGIN');
    try {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.t}_events`]);
      const cols = events.map((e) => {
        const { seq, ...body } = e;
        return [seq, e.by.author ?? null, e.by.authority, e.type, projectOf(e), e.at, JSON.stringify(body)] as const;
      });
      await c.query(
        `INSERT INTO ${this.t}_events (origin, origin_seq, author, authority, type, project, at, body)
         SELECT $1, x.s, x.au, x.a, x.ty, x.p, x.at::timestamptz, x.b::jsonb
           FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS x(s, au, a, ty, p, at, b)
         ON CONFLICT (origin, origin_seq) DO NOTHING`,
        [origin, ...[0, 1, 2, 3, 4, 5, 6].map((i) => cols.map((r) => r[i]))],
      );
      for (const e of events) if (e.type === 'entity.forget') await this.erase(e);
      await c.query('SELECT pg_notify($1, $2)', [`${this.t}_events`, origin]);
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }

  /** Rows after `cursor` written by other memories, in log order. */
  async pull(origin: string, cursor: number, limit: number): Promise<LogRow[]> {
    const r = await this.client.query(
      `SELECT id, origin, origin_seq, body FROM ${this.t}_events WHERE id > $1 AND origin <> $2 ORDER BY id LIMIT $3`,
      [cursor, origin, limit],
    );
    return r.rows.map((row) => ({
      id: Number(row.id),
      event: { ...(row.body as MemoryEvent), origin: String(row.origin), originSeq: Number(row.origin_seq) },
    }));
  }

  /** The last id in the log (0 when empty): how far behind a reader is. */
  async head(): Promise<number> {
    const r = await this.client.query(`SELECT COALESCE(MAX(id), 0) AS id FROM ${this.t}_events`);
    return Number(r.rows[0].id);
  }

  /** The forget's entity, episodes and facts out of the shared log (other memories' rows too). */
  private async erase(e: Extract<MemoryEvent, { type: 'entity.forget' }>): Promise<void> {
    const c = this.client;
    if (e.relationships.length)
      await c.query(
        `DELETE FROM ${this.t}_events WHERE type IN ('relationship.assert', 'relationship.evidence', 'relationship.correct') AND body->>'id' = ANY($1)`,
        [e.relationships],
      );
    await c.query(`DELETE FROM ${this.t}_events WHERE type = 'entity.upsert' AND lower(trim(body->>'name')) = $1`, [entityKey(e.name)]);
    if (e.episodes.length)
      await c.query(
        `UPDATE ${this.t}_events SET body = jsonb_set(body, '{episodes}',
           (SELECT COALESCE(jsonb_agg(x), '[]'::jsonb) FROM jsonb_array_elements(body->'episodes') x WHERE NOT (x->>'id' = ANY($1))))
         WHERE type = 'episodes.add' AND EXISTS (SELECT 1 FROM jsonb_array_elements(body->'episodes') x WHERE x->>'id' = ANY($1))`,
        [e.episodes],
      );
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => {});
  }
}

/** The project an event belongs to, when the project scope put one on it. */
export function projectOf(e: MemoryEvent): string | null {
  if (e.type === 'episodes.add') return (e.episodes[0] as { project?: string } | undefined)?.project ?? null;
  return (e as { project?: string }).project ?? null;
}

/** Creates or upgrades the server's tables (once per version, under a lock); returns the log's id. */
async function migrate(c: pg.Client, t: string): Promise<string> {
  await c.query('BEGIN');
  try {
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${t}_schema`]);
    await c.query(`CREATE TABLE IF NOT EXISTS ${t}_meta (key text PRIMARY KEY, value text NOT NULL)`);
    const v = await c.query(`SELECT value FROM ${t}_meta WHERE key = 'schema_version'`);
    const version = v.rows[0] ? Number(v.rows[0].value) : 0;
    if (version > SERVER_SCHEMA_VERSION)
      throw new Error(
        `the server's Recall schema is version ${version}, newer than this Recall knows (${SERVER_SCHEMA_VERSION}); update Recall`,
      );
    if (version < 1) {
      await c.query(`CREATE TABLE IF NOT EXISTS ${t}_events (
        id bigserial PRIMARY KEY,
        origin text NOT NULL,
        origin_seq bigint NOT NULL,
        author text,
        authority text NOT NULL,
        type text NOT NULL,
        project text,
        at timestamptz NOT NULL,
        body jsonb NOT NULL,
        received timestamptz NOT NULL DEFAULT now(),
        UNIQUE (origin, origin_seq))`);
      await c.query(`INSERT INTO ${t}_meta VALUES ('log_id', md5(random()::text || clock_timestamp()::text)) ON CONFLICT DO NOTHING`);
    }
    await c.query(`INSERT INTO ${t}_meta VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = $1`, [
      String(SERVER_SCHEMA_VERSION),
    ]);
    const id = await c.query(`SELECT value FROM ${t}_meta WHERE key = 'log_id'`);
    await c.query('COMMIT');
    return String(id.rows[0].value);
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  }
}
