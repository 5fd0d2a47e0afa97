/**
 * `<memory>/config.json`: the settings every client of one memory shares (confidence numbers,
 * extraction, embeddings). The service reads it at start; the CLI (`recall embeddings`) and the
 * extension (its settings) change it by merging keys, never by replacing the file, so keys set by
 * hand survive.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConfigOverride } from '../core/model/config.js';
import type { EmbeddingSettings } from './embeddings/vector-channel.js';
import type { SyncSettings } from '../sync/config.js';
import { checkMemoryFolder } from './rpc/folder-trust.js';

export type ServiceConfig = ConfigOverride & { embeddings?: EmbeddingSettings; sync?: SyncSettings };

type Json = Record<string, unknown>;

const configJsonPath = (memory: string): string => path.join(memory, 'config.json');

/**
 * The file's contents ({} when there is none); a clear error when it is not JSON, or when another
 * user could have written it (it names the server the memory is pushed to).
 */
export function readServiceConfig(memory: string): ServiceConfig {
  checkMemoryFolder(memory);
  const file = configJsonPath(memory);
  if (!fs.existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file} is not valid JSON (${(err as Error).message}); fix or delete it.`);
  }
  if (!isObject(parsed)) throw new Error(`${file} must hold a JSON object; fix or delete it.`);
  return parsed as ServiceConfig;
}

/**
 * Merges `changes` into config.json (objects key by key; everything else kept) and writes it
 * atomically when anything differs. Returns whether it changed, i.e. whether a running service
 * must restart to see it.
 */
export function updateServiceConfig(memory: string, changes: Json): boolean {
  const current = readServiceConfig(memory) as Json;
  const merged = deepMerge(current, changes);
  if (JSON.stringify(merged) === JSON.stringify(current)) return false;
  fs.mkdirSync(memory, { recursive: true, mode: 0o700 });
  const file = configJsonPath(memory);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(merged, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
  return true;
}

function deepMerge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    const b = out[k];
    out[k] = isObject(v) && isObject(b) ? deepMerge(b, v) : v;
  }
  return out;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
