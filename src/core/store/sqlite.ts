/**
 * Loading sql.js once per process, with the wasm file found beside the bundle (dist/) or, when
 * running from source, in node_modules.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import type { Database, SqlJsStatic } from 'sql.js';

let sqlJs: Promise<SqlJsStatic> | undefined;

function wasmPath(): string {
  const beside = path.join(__dirname, 'sql-wasm.wasm');
  if (fs.existsSync(beside)) return beside;
  // Running from source (tests): the package's own copy. createRequire keeps bundlers from inlining it.
  return path.join(path.dirname(createRequire(__filename).resolve('sql.js')), 'sql-wasm.wasm');
}

export function loadSqlJs(): Promise<SqlJsStatic> {
  // useOldExtensionFunctions: false, or every legacy function call prints a deprecation warning.
  // Only the first initSqlJs config in a process counts, hence the single shared promise.
  sqlJs ??= initSqlJs({ locateFile: () => wasmPath(), useOldExtensionFunctions: false } as Parameters<typeof initSqlJs>[0]);
  return sqlJs;
}

export type { Database };

export type Row = Record<string, unknown>;

// Prepared statements are cached per database: preparing costs more than running for the small
// statements the graph issues per episode. sql.js frees every statement on export(), so the
// cache is dropped after each snapshot (forgetStatements).
type Statement = ReturnType<Database['prepare']>;
const statementCache = new WeakMap<Database, Map<string, Statement>>();
const MAX_CACHED = 256;

function prepared(db: Database, sql: string): Statement {
  let cache = statementCache.get(db);
  if (!cache) statementCache.set(db, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) {
    if (cache.size >= MAX_CACHED) {
      forgetStatements(db);
      statementCache.set(db, (cache = new Map()));
    }
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}

/** Frees the cached statements of a database (before export, or when the cache is full). */
export function forgetStatements(db: Database): void {
  const cache = statementCache.get(db);
  if (!cache) return;
  for (const stmt of cache.values()) {
    try {
      stmt.free();
    } catch {
      // Already freed by sql.js (export frees every statement).
    }
  }
  statementCache.delete(db);
}

export function run(db: Database, sql: string, params: unknown[] = []): void {
  const stmt = prepared(db, sql);
  try {
    stmt.run(params as never);
  } finally {
    stmt.reset();
  }
}

export function all(db: Database, sql: string, params: unknown[] = []): Row[] {
  const stmt = prepared(db, sql);
  try {
    stmt.bind(params as never);
    const rows: Row[] = [];
    // The rows getAsObject would give, with the column names read once, not once per row.
    let names: string[] | undefined;
    while (stmt.step()) {
      if (!names) {
        names = stmt.getColumnNames();
        // Assigning a column named __proto__ (none is) would set the prototype; getAsObject defines a field.
        if (names.includes('__proto__')) {
          do rows.push(stmt.getAsObject() as Row);
          while (stmt.step());
          return rows;
        }
      }
      const values = stmt.get();
      const row: Row = {};
      for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
      rows.push(row);
    }
    return rows;
  } finally {
    stmt.reset();
  }
}

/** Runs `fn` as one transaction (a savepoint, so it nests): whatever it wrote is undone if it throws. */
export function atomically<T>(db: Database, fn: () => T): T {
  db.exec('SAVEPOINT atomically');
  try {
    const result = fn();
    db.exec('RELEASE atomically');
    return result;
  } catch (err) {
    db.exec('ROLLBACK TO atomically');
    db.exec('RELEASE atomically');
    throw err;
  }
}

export function scalar(db: Database, sql: string, params: unknown[] = []): unknown {
  const stmt = prepared(db, sql);
  try {
    stmt.bind(params as never);
    return stmt.step() ? stmt.get()[0] : undefined;
  } finally {
    stmt.reset();
  }
}
