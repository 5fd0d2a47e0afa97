/**
 * The service keeps the hooks' cache (model/hook-cache.ts) in the memory folder, rewritten a
 * moment after the memory changes, so a hook that finds no service running answers at once; and
 * it takes in what such cold hooks decided (the spool): each call is weighed again against the
 * rules as they are now and recorded on them, at a hook's authority, as a warm hook's call is.
 */
import * as fs from 'node:fs';
import type { Brief } from '../../core/memory/brief.js';
import type { Memory } from '../../core/memory/memory.js';
import { HOOK_CACHE_VERSION, parseHookCache, type HookCache } from '../../core/model/hook-cache.js';
import { LIMITS } from '../../core/model/limits.js';
import { writeFileDurably } from '../../core/store/durable.js';
import { hookCachePath, hookSpoolPath, journalBytes } from './paths.js';
import { checkParams } from './params.js';
import { authorityOf } from './protocol.js';

/** Quiet time after the last write before the cache is rewritten (writes come in bursts). */
const SETTLE_MS = 500;

/** One call a cold hook weighed without the service, as it appended it to the spool. */
export interface SpooledCall {
  call: unknown;
  /** The connection's project a warm hook would have had. */
  project?: string;
  workspace?: string;
}

export class HookCacheKeeper {
  private timer?: NodeJS.Timeout;
  /** Projects a session-start hook asked for, oldest first: their briefs are kept, made anew at each write. */
  private briefProjects: string[];
  /** The briefs last made for them, with the memory's generation then. */
  private readonly made = new Map<string, { brief: Brief; generation: number; at: number }>();
  /** Counts the changes a brief can show (a hook's recorded decision is not one). */
  private generation = 0;

  constructor(
    private readonly folder: string,
    private readonly memory: Memory,
    private readonly log: (msg: string) => void,
  ) {
    // Which projects hooks ask for outlives a restart: a cold session start still has its brief.
    this.briefProjects = Object.keys(readCache(folder)?.briefs ?? {});
  }

  /** The memory changed through `method` (`sync`: pulled from the team): the cache follows. */
  changed(method: string): void {
    if (method !== 'hook.check') this.generation++;
    this.schedule();
  }

  /** The brief kept for `project` while nothing it can show has changed since (and it is not old). */
  private current(project: string): Brief | undefined {
    const kept = this.made.get(project);
    return kept && kept.generation === this.generation && Date.now() - kept.at < LIMITS.hookBriefReuseMs ? kept.brief : undefined;
  }

  /** Rewrites the cache a moment after the last change. */
  schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.write(), SETTLE_MS);
    this.timer.unref();
  }

  /**
   * A session-start hook's brief for `project`: the one made last while nothing it can show has
   * changed since (and not long ago), else made now; either way kept for the next cold start. A brief
   * costs a scan of the memory, a host starts a hook per session.
   */
  briefFor(project: string | null | undefined, make: () => Brief): Brief {
    if (!project) return make();
    const kept = this.current(project);
    if (kept) return kept;
    const brief = make();
    this.made.set(project, { brief, generation: this.generation, at: Date.now() });
    if (this.briefProjects.at(-1) !== project) {
      this.briefProjects = [...this.briefProjects.filter((p) => p !== project), project].slice(-LIMITS.hookCacheBriefs);
      this.schedule();
    }
    return brief;
  }

  write(): void {
    clearTimeout(this.timer);
    try {
      const now = new Date().toISOString();
      const journal = journalBytes(this.folder);
      const briefs: HookCache['briefs'] = {};
      // A kept brief nothing has changed since is written as it is (making one costs a scan); a
      // forget is a change, so what was forgotten leaves no copy here.
      for (const project of this.briefProjects) {
        const brief = this.current(project) ?? this.memory.brief({ project });
        if (this.made.get(project)?.brief !== brief) this.made.set(project, { brief, generation: this.generation, at: Date.now() });
        briefs[project] = { text: brief.text, at: now };
      }
      const cache: HookCache = {
        version: HOOK_CACHE_VERSION,
        written_at: now,
        journal_bytes: journal,
        ...this.memory.checkedRulesByProject(),
        briefs,
      };
      writeFileDurably(hookCachePath(this.folder), Buffer.from(JSON.stringify(cache)));
    } catch (err) {
      // Hooks then answer from the older cache (or allow): nothing a person waits on.
      this.log(`could not write the hooks' cache: ${(err as Error).message}`);
    }
  }

  /**
   * Records the calls cold hooks spooled; returns how many. The spool is renamed first, so a hook
   * appending meanwhile starts a new one; one left by a crash mid-way is taken first.
   */
  drain(): number {
    const spool = hookSpoolPath(this.folder);
    const taking = `${spool}.taking`;
    let taken = 0;
    for (const file of [taking, spool]) {
      if (!fs.existsSync(file)) continue;
      try {
        if (file === spool) fs.renameSync(spool, taking);
        taken += this.record(readBounded(taking));
        fs.rmSync(taking, { force: true });
      } catch (err) {
        this.log(`could not take in the hooks' spool: ${(err as Error).message}`);
        return taken;
      }
    }
    return taken;
  }

  private record(text: string): number {
    let recorded = 0;
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const entry = JSON.parse(line) as SpooledCall;
        const checked = checkParams('hook.check', entry.call);
        if (!checked.ok) throw checked.error;
        const project = typeof entry.project === 'string' ? entry.project : undefined;
        const workspace = typeof entry.workspace === 'string' ? entry.workspace : undefined;
        const by = { authority: authorityOf('hook'), source: 'hook', ...(project !== undefined ? { project } : {}) };
        recorded += this.memory.hookCheck(checked.params, by, workspace).recorded;
      } catch (err) {
        this.log(`a spooled hook call was not recorded: ${(err as Error).message}`);
      }
    }
    return recorded;
  }
}

/** The cache as the service last wrote it, if it reads. */
export function readCache(folder: string): HookCache | undefined {
  try {
    return parseHookCache(fs.readFileSync(hookCachePath(folder), 'utf8'));
  } catch {
    return undefined;
  }
}

/** At most the spool's limit: past it, the rest is dropped with the file (hooks were allowed anyway). */
function readBounded(file: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(fs.fstatSync(fd).size, LIMITS.hookSpoolBytes));
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}
