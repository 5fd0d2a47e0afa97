/**
 * The shared log in PostgreSQL: one append-only table of events, unique by (origin, origin_seq),
 * in a global order (a bigserial). Writers insert under a transaction-scoped advisory lock, so ids
 * become visible in the order they were given: a reader's `id > cursor` never skips a row that
 * commits later with a smaller id. Recall creates and migrates the schema itself.
 */
import pg from 'pg';
import type { MemoryEvent } from '../core/model/events.js';
import { SYNC_LIMITS } from '../core/model/limits.js';
import { entityKey } from '../core/store/ids.js';
import type { SyncConfig } from './config.js';
import type { RawRow } from './pulled.js';
import { signEvent, type MemberKey } from './signing.js';

/** 2: rows are signed (signature, digests) and members register their public keys. */
export const SERVER_SCHEMA_VERSION = 2;

/** A member as the server lists it: the memory (origin), who it writes as, and its public key. */
export interface MemberRow {
  origin: string;
  author: string;
  publicKey: string;
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

  /** Registers this memory's public key (the first registration of an origin stands) and returns the one the server holds. */
  async register(origin: string, author: string, publicKey: string): Promise<MemberRow> {
    await this.client.query(
      `INSERT INTO ${this.t}_members (origin, author, public_key) VALUES ($1, $2, $3) ON CONFLICT (origin) DO NOTHING`,
      [origin, author, publicKey],
    );
    const r = await this.client.query(`SELECT origin, author, public_key FROM ${this.t}_members WHERE origin = $1`, [origin]);
    return memberOf(r.rows[0]);
  }

  /** The members the server lists for these origins. */
  async members(origins: string[]): Promise<MemberRow[]> {
    if (origins.length === 0) return [];
    const r = await this.client.query(`SELECT origin, author, public_key FROM ${this.t}_members WHERE origin = ANY($1)`, [origins]);
    return r.rows.map(memberOf);
  }

  /** Rows under `origin` past `afterSeq`, in seq order: what this memory checks it wrote itself. */
  async rowsOf(origin: string, afterSeq: number, limit: number): Promise<RawRow[]> {
    const r = await this.client.query(
      `SELECT ${ROW_COLUMNS} FROM ${this.t}_events WHERE origin = $1 AND origin_seq > $2 ORDER BY origin_seq LIMIT $4`,
      [origin, afterSeq, SYNC_LIMITS.eventBytes, limit],
    );
    return r.rows.map(rawOf);
  }

  /** Removes rows by log id: rows under this memory's origin that it did not write. */
  async remove(ids: number[]): Promise<void> {
    if (ids.length) await this.client.query(`DELETE FROM ${this.t}_events WHERE id = ANY($1)`, [ids]);
  }

  /**
   * Appends events of one origin (already in their travelling form), signed, in one transaction.
   * A row already there under one of these seqs stays if this memory wrote it (`isOwn`: an earlier
   * push whose answer was lost); if not (a row forged in the meantime), it is replaced. A forget
   * among them also erases from the server what it names, so the words leave the shared log too.
   * Everyone listening is woken at commit. Returns how many forged rows were replaced.
   */
  async push(origin: string, key: MemberKey, author: string, events: MemoryEvent[], isOwn: (r: RawRow) => boolean): Promise<number> {
    if (events.length === 0) return 0;
    const c = this.client;
    await c.query('BEGIN');
    try {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.t}_events`]);
      const cols = events.map((e) => {
        const { body, signature, digests } = signEvent(key, origin, author, e);
        return [
          e.seq,
          author,
          e.by.authority,
          e.type,
          projectOf(e),
          e.at,
          JSON.stringify(body),
          signature,
          JSON.stringify(digests),
        ] as const;
      });
      const insert = async (rows: (typeof cols)[number][]): Promise<Set<number>> => {
        const r = await c.query(
          `INSERT INTO ${this.t}_events (origin, origin_seq, author, authority, type, project, at, body, signature, digests)
           SELECT $1, x.s, x.au, x.a, x.ty, x.p, x.at::timestamptz, x.b::jsonb, x.sig, x.d::jsonb
             FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
               AS x(s, au, a, ty, p, at, b, sig, d)
           ON CONFLICT (origin, origin_seq) DO NOTHING RETURNING origin_seq`,
          [origin, ...[0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => rows.map((row) => row[i]))],
        );
        return new Set(r.rows.map((row) => Number(row.origin_seq)));
      };
      const inserted = await insert(cols);
      const clashed = cols.filter((row) => !inserted.has(row[0]));
      let replaced = 0;
      if (clashed.length) {
        const there = await this.rowsAt(
          origin,
          clashed.map((row) => row[0]),
        );
        const forged = there.filter((r) => !isOwn(r));
        await this.remove(forged.map((r) => r.id));
        const again = new Set(forged.map((r) => r.originSeq));
        await insert(clashed.filter((row) => again.has(row[0])));
        replaced = forged.length;
      }
      for (const e of events) if (e.type === 'entity.forget') await this.erase(e);
      await c.query('SELECT pg_notify($1, $2)', [`${this.t}_events`, origin]);
      await c.query('COMMIT');
      return replaced;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }

  /** Rows of `origin` at these seqs. */
  private async rowsAt(origin: string, seqs: number[]): Promise<RawRow[]> {
    const r = await this.client.query(`SELECT ${ROW_COLUMNS} FROM ${this.t}_events WHERE origin = $1 AND origin_seq = ANY($2::bigint[])`, [
      origin,
      seqs,
      SYNC_LIMITS.eventBytes,
    ]);
    return r.rows.map(rawOf);
  }

  /**
   * Rows after `cursor` written by other memories, in log order, as many as fit in the pull's byte
   * budget (at least one). A row over the event limit comes without its body: it is never downloaded.
   */
  async pull(origin: string, cursor: number, limit: number): Promise<RawRow[]> {
    const r = await this.client.query(
      `WITH next AS (
         SELECT id, octet_length(body::text) AS bytes FROM ${this.t}_events WHERE id > $1 AND origin <> $2 ORDER BY id LIMIT $3),
       sized AS (
         SELECT id, bytes, SUM(CASE WHEN bytes <= $4 THEN bytes ELSE 0 END) OVER (ORDER BY id) AS upto FROM next)
       SELECT e.id, e.origin, e.origin_seq, e.author, e.authority, e.type, e.project, e.signature, e.digests, s.bytes,
              CASE WHEN s.bytes <= $4 THEN e.body END AS body
         FROM sized s JOIN ${this.t}_events e ON e.id = s.id
        WHERE s.upto <= $5 OR s.id = (SELECT MIN(id) FROM next)
        ORDER BY e.id`,
      [cursor, origin, limit, SYNC_LIMITS.eventBytes, SYNC_LIMITS.pullBytes],
    );
    return r.rows.map(rawOf);
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
        `DELETE FROM ${this.t}_events WHERE type IN ('relationship.assert', 'relationship.evidence', 'relationship.correct', 'relationship.check', 'check.outcome', 'relationship.retract') AND body->>'id' = ANY($1)`,
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

/** A row as RawRow reads it; `$3` is the event size limit (a bigger body is not sent). */
const ROW_COLUMNS = `id, origin, origin_seq, author, authority, type, project, signature, digests,
  octet_length(body::text) AS bytes, CASE WHEN octet_length(body::text) <= $3 THEN body END AS body`;

function memberOf(row: Record<string, unknown>): MemberRow {
  return { origin: String(row.origin), author: String(row.author), publicKey: String(row.public_key) };
}

function rawOf(row: Record<string, unknown>): RawRow {
  return {
    id: Number(row.id),
    origin: String(row.origin),
    originSeq: Number(row.origin_seq),
    author: row.author === null ? null : String(row.author),
    authority: String(row.authority),
    type: String(row.type),
    project: row.project === null ? null : String(row.project),
    body: row.body ?? null,
    bytes: Number(row.bytes),
    signature: row.signature === null ? null : String(row.signature),
    digests: row.digests ?? null,
  };
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
    if (version < 2) {
      // Rows written before signing stay (peers that applied them keep them); a peer that has not quarantines them.
      await c.query(`ALTER TABLE ${t}_events ADD COLUMN IF NOT EXISTS signature text, ADD COLUMN IF NOT EXISTS digests jsonb`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${t}_members (
        origin text PRIMARY KEY,
        author text NOT NULL,
        public_key text NOT NULL,
        registered timestamptz NOT NULL DEFAULT now())`);
      // A row's size is bounded on the server too; rows already there are not re-checked.
      await c.query(
        `ALTER TABLE ${t}_events ADD CONSTRAINT ${t}_events_body_size CHECK (octet_length(body::text) <= ${SYNC_LIMITS.eventBytes}) NOT VALID`,
      );
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
