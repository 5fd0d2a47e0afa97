/**
 * The `"sync"` section of a memory's config.json: where the team's PostgreSQL is and what this
 * memory shares. The password never lives here: it comes from RECALL_SYNC_PASSWORD or
 * PGPASSWORD (the extension fills the first from VS Code's SecretStorage).
 */
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';

export interface SyncSettings {
  /** postgres://user@host:5432/db?sslmode=require, without a password. */
  postgres?: string;
  /** Who this memory's events are by; default: git's user.email, else the login name. */
  author?: string;
  /** Share only these projects' episodes and facts (keys as in the project scope); absent: the whole memory. */
  projects?: string[];
  /** With `projects`: also share what belongs to no project (the person's own memory). Default false. */
  personal?: boolean;
  /** Server table prefix, so several teams can share one database. Default "recall". */
  table?: string;
}

export interface SyncConfig {
  connectionString: string;
  password?: string;
  author: string;
  projects?: string[];
  personal: boolean;
  table: string;
}

/** The URL as shown and stored: any password in it removed. */
export function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1@');
  }
}

export function passwordIn(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

/** Who a shared event is by when config names nobody: git's user.email, else the login name. */
export function defaultAuthor(cwd?: string): string {
  try {
    const email = execFileSync('git', ['config', 'user.email'], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 3000,
    }).trim();
    if (email) return email;
  } catch {
    // No git, or no email configured.
  }
  return os.userInfo().username;
}

/** The settings resolved for a running service, or undefined when sync is not configured. */
export function resolveSync(settings: SyncSettings | undefined, env: NodeJS.ProcessEnv = process.env): SyncConfig | undefined {
  if (!settings?.postgres) return undefined;
  const table = settings.table ?? 'recall';
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(table)) throw new Error(`sync.table "${table}" must be lower-case letters, digits and _.`);
  return {
    connectionString: settings.postgres,
    password: env.RECALL_SYNC_PASSWORD || passwordIn(settings.postgres) || env.PGPASSWORD || undefined,
    author: settings.author || defaultAuthor(),
    projects: settings.projects,
    personal: settings.personal ?? false,
    table,
  };
}
