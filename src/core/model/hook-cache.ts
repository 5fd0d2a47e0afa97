/**
 * What a hook needs when the memory service is not running (or not answering in time), kept by
 * the service in the memory folder: each project's rules with checks, the global ones, and the
 * last brief a hook was given for each project. A cold hook answers from it at once instead of
 * waiting seconds for a large memory to open, and starts the service for the next call. A file
 * that does not read as this shape is not used (the hook allows, as without it). Pure.
 */
import { checkOf, CHECK_SETTERS } from './checks.js';
import { AUTHORITIES } from './config.js';
import type { CheckedRule } from './rule-decision.js';

export const HOOK_CACHE_VERSION = 1;

export interface HookCache {
  version: typeof HOOK_CACHE_VERSION;
  written_at: string;
  /** The size of the memory's journal when written: a larger (or smaller) one means a change it does not hold. */
  journal_bytes: number;
  /** Rules with checks that hold everywhere (no project). */
  global: CheckedRule[];
  /** Each project's own rules with checks (its key as the service knows it), without the global ones. */
  projects: Record<string, CheckedRule[]>;
  /** The last brief a session-start hook was given, by project key. */
  briefs: Record<string, { text: string; at: string }>;
}

/** The rules a call in `project` is weighed against: its own and the global ones. */
export function cachedRules(cache: HookCache, project: string | null): CheckedRule[] {
  return [...(project !== null ? (cache.projects[project] ?? []) : []), ...cache.global];
}

/** The cache from its JSON text, or undefined when it is not one this version wrote. */
export function parseHookCache(text: string): HookCache | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(raw) || raw.version !== HOOK_CACHE_VERSION || typeof raw.written_at !== 'string') return undefined;
  if (typeof raw.journal_bytes !== 'number') return undefined;
  if (!Array.isArray(raw.global) || !isRecord(raw.projects) || !isRecord(raw.briefs)) return undefined;
  const global = rulesOf(raw.global);
  const projects: Record<string, CheckedRule[]> = {};
  for (const [key, list] of Object.entries(raw.projects)) {
    const rules = Array.isArray(list) ? rulesOf(list) : undefined;
    if (!rules) return undefined;
    projects[key] = rules;
  }
  const briefs: HookCache['briefs'] = {};
  for (const [key, b] of Object.entries(raw.briefs)) {
    if (!isRecord(b) || typeof b.text !== 'string' || typeof b.at !== 'string') return undefined;
    briefs[key] = { text: b.text, at: b.at };
  }
  return global && { version: HOOK_CACHE_VERSION, written_at: raw.written_at, journal_bytes: raw.journal_bytes, global, projects, briefs };
}

function rulesOf(list: unknown[]): CheckedRule[] | undefined {
  const rules: CheckedRule[] = [];
  for (const r of list) {
    if (!isRecord(r) || typeof r.id !== 'string' || typeof r.statement !== 'string' || typeof r.confirmed !== 'boolean') return undefined;
    if (!AUTHORITIES.includes(r.authority as never) || !CHECK_SETTERS.includes(r.setter as never)) return undefined;
    try {
      // The same validation a check gets when it is set: a pattern the file smuggled in is refused.
      const check = checkOf(r.check);
      rules.push({
        id: r.id,
        statement: r.statement,
        authority: r.authority as CheckedRule['authority'],
        confirmed: r.confirmed,
        check,
        setter: r.setter as CheckedRule['setter'],
      });
    } catch {
      return undefined;
    }
  }
  return rules;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
