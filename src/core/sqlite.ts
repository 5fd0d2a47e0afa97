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
