/**
 * The MCP hosts `recall setup` knows: where each keeps its servers (per scope), in which format, and
 * the entry it expects for a stdio server. Each shape is the host's documented one:
 * - Claude Code: `.mcp.json` (project) and `~/.claude.json` (user), `mcpServers.<name>` with
 *   `type: "stdio"`, `command`, `args`, `env` (what `claude mcp add` writes);
 * - Cursor: `.cursor/mcp.json` and `~/.cursor/mcp.json`, `mcpServers.<name>` `{command, args}`;
 * - Codex: `.codex/config.toml` (trusted projects) and `$CODEX_HOME/config.toml` (default
 *   `~/.codex`), a `[mcp_servers.<name>]` table with `command` and `args`;
 * - VS Code: `.vscode/mcp.json` and the profile's `mcp.json`, `servers.<name>` with `type: "stdio"`;
 * - Windsurf: `~/.codeium/windsurf/mcp_config.json` only, `mcpServers.<name>`;
 * - Cline: `cline_mcp_settings.json` in its VS Code global storage only, `mcpServers.<name>`;
 * - Continue: `~/.continue/config.yaml` (a `mcpServers` list of `{name, command, args}`) and, for a
 *   project, a block file `.continue/mcpServers/<name>.yaml` of its own.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { jsonFormat, tomlFormat, yamlFormat, type ConfigFormat, type Entry } from './setup-edit.js';

export type Scope = 'user' | 'project';
export const SCOPES: readonly Scope[] = ['user', 'project'];

/** How a host starts the server: a program and its arguments. */
export interface Launch {
  command: string;
  args: string[];
}

export interface Host {
  id: string;
  title: string;
  /** The file for each scope the host has (a host without project configuration has no `project`). */
  files: Partial<Record<Scope, (where: Where, name: string) => string>>;
  format: (scope: Scope) => ConfigFormat;
  /** Why this host's file cannot take the entry here (said instead of writing), if it cannot. */
  refuse?: (where: Where, scope: Scope) => string | undefined;
  entry: (launch: Launch, name: string) => Entry;
  /** Said after a change: how the host picks it up. */
  reload: string;
}

/** What the paths depend on: the home folder, the environment, the platform, the project's root. */
export interface Where {
  home: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  project: string;
}

export function where(project: string): Where {
  return { home: os.homedir(), env: process.env, platform: process.platform, project };
}

/** VS Code's user folder (stable build): Cline keeps its settings in its global storage there. */
function codeUserDir(w: Where): string {
  if (w.platform === 'win32') return path.join(w.env.APPDATA ?? path.join(w.home, 'AppData', 'Roaming'), 'Code', 'User');
  if (w.platform === 'darwin') return path.join(w.home, 'Library', 'Application Support', 'Code', 'User');
  return path.join(w.env.XDG_CONFIG_HOME || path.join(w.home, '.config'), 'Code', 'User');
}

const commandAndArgs = (l: Launch): Entry => ({ command: l.command, args: l.args });
const mcpServers = jsonFormat('mcpServers');
// What Continue's own first config.yaml starts with, and a block file's header.
const CONTINUE_HEADERS: Record<Scope, string> = {
  user: 'name: Local Config\nversion: 1.0.0\nschema: v1\n',
  project: 'name: Recall\nversion: 0.0.1\nschema: v1\n',
};

export const HOSTS: readonly Host[] = [
  {
    id: 'claude-code',
    title: 'Claude Code',
    files: {
      user: (w) => path.join(w.home, '.claude.json'),
      project: (w) => path.join(w.project, '.mcp.json'),
    },
    format: () => mcpServers,
    entry: (l) => ({ type: 'stdio', ...commandAndArgs(l), env: {} }),
    reload: 'Start a new Claude Code session (or run /mcp) to connect; a project .mcp.json asks for approval once.',
  },
  {
    id: 'cursor',
    title: 'Cursor',
    files: {
      user: (w) => path.join(w.home, '.cursor', 'mcp.json'),
      project: (w) => path.join(w.project, '.cursor', 'mcp.json'),
    },
    format: () => mcpServers,
    entry: commandAndArgs,
    reload: 'Cursor lists it under Settings > MCP; turn it on there if it is off.',
  },
  {
    id: 'codex',
    title: 'Codex',
    files: {
      user: (w) => path.join(w.env.CODEX_HOME || path.join(w.home, '.codex'), 'config.toml'),
      project: (w) => path.join(w.project, '.codex', 'config.toml'),
    },
    format: () => tomlFormat('mcp_servers'),
    entry: commandAndArgs,
    reload: 'Start a new Codex session; `codex mcp list` shows it (a project file counts only in a trusted project).',
  },
  {
    id: 'vscode',
    title: 'VS Code',
    files: {
      user: (w) => path.join(codeUserDir(w), 'mcp.json'),
      project: (w) => path.join(w.project, '.vscode', 'mcp.json'),
    },
    format: () => jsonFormat('servers'),
    entry: (l) => ({ type: 'stdio', ...commandAndArgs(l) }),
    reload:
      'VS Code offers to start it in the MCP servers list. The Recall extension provides the same server itself (recall.chat.toolSurface = mcp).',
  },
  {
    id: 'windsurf',
    title: 'Windsurf',
    files: { user: (w) => path.join(w.home, '.codeium', 'windsurf', 'mcp_config.json') },
    format: () => mcpServers,
    entry: commandAndArgs,
    reload: 'Press Refresh in Windsurf’s MCP settings (Cascade > MCP servers).',
  },
  {
    id: 'cline',
    title: 'Cline',
    files: {
      user: (w) => path.join(codeUserDir(w), 'globalStorage', 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json'),
    },
    format: () => mcpServers,
    entry: commandAndArgs,
    reload: 'Cline reloads its MCP settings file by itself (MCP Servers > Installed).',
  },
  {
    id: 'continue',
    title: 'Continue',
    files: {
      user: (w) => path.join(w.home, '.continue', 'config.yaml'),
      project: (w, name) => path.join(w.project, '.continue', 'mcpServers', `${name}.yaml`),
    },
    format: (scope) => yamlFormat('mcpServers', CONTINUE_HEADERS[scope]),
    // Continue reads config.json only while there is no config.yaml: creating one would hide it.
    refuse: (w, scope) =>
      scope === 'user' &&
      !fs.existsSync(path.join(w.home, '.continue', 'config.yaml')) &&
      fs.existsSync(path.join(w.home, '.continue', 'config.json'))
        ? 'Continue reads ~/.continue/config.json here (its older format), and a new config.yaml would take its place. Move to config.yaml first (Continue converts it), or use --scope project.'
        : undefined,
    entry: (l, name) => ({ name, ...commandAndArgs(l) }),
    reload: 'Continue uses MCP servers in agent mode; reload its config (or the window) to connect.',
  },
];

export function findHost(id: string): Host | undefined {
  return HOSTS.find((h) => h.id === id);
}
