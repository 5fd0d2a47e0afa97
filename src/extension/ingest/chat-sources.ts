/**
 * Where each agent that runs in VS Code keeps its chat sessions, as auto-ingest reads them: the
 * folder, which files in it are transcripts, what is watched, and where the stamps of stored files
 * are kept. The parsers recognise every format by content, so a source only has to find files.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { projectOfFolder } from '../../core/model/project.js';
import type { RecallExtension } from '../ctx.js';
import { TRANSCRIPT_PATTERNS, type TranscriptPattern } from './common/transcript-files.js';

export type SourceKey = keyof typeof TRANSCRIPT_PATTERNS;
export const SOURCE_KEYS: readonly SourceKey[] = ['copilotChat', 'claudeCode', 'cline', 'rooCode', 'codex', 'specstory'];

/** Sources of this workspace alone: read by "Ingest Chat Sessions Now" whatever their setting says. */
export const WORKSPACE_SOURCES: readonly SourceKey[] = ['copilotChat', 'specstory'];

export interface Source extends TranscriptPattern {
  key: SourceKey;
  label: string;
  /** Transcripts are the files of the pattern `depth` folders below `folder`. */
  folder: string;
  /** What is watched: a folder that exists whenever the source does, and a pattern inside it. */
  watch: { folder: string; glob: string };
  /** Where the stamps of stored files are kept: a workspace's own sessions per workspace, the others globally. */
  state: vscode.Memento;
}

/**
 * The project a transcript's turns belong to. This workspace's own sessions (Copilot Chat,
 * SpecStory) are the connection's, the workspace's (undefined); a transcript that names its folder
 * (Claude Code, Codex) is that folder's project; any other is named after its source.
 */
export function transcriptProject(key: SourceKey, cwd: string | undefined): string | undefined {
  if (WORKSPACE_SOURCES.includes(key)) return undefined;
  if (cwd) return projectOfFolder(cwd);
  return `source:${key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}`;
}

/** Extension ids of the Cline family: same task layout under their globalStorage folders. */
const CLINE_EXTENSIONS = { cline: ['Cline', 'saoudrizwan.claude-dev'], rooCode: ['Roo Code', 'rooveterinaryinc.roo-cline'] } as const;

/** The source, or undefined when it cannot exist here (no workspace, storage not on this machine). */
export function chatSource(ctx: RecallExtension, key: SourceKey): Source | undefined {
  const { extension, settings } = ctx;
  switch (key) {
    case 'copilotChat': {
      // Copilot Chat writes `chatSessions/` into this workspace's storage folder, the parent of ours
      // (seen in code-server 1.104, where both sit on the server). In a remote window whose
      // extension host cannot see the workbench's folder, nothing arrives and nothing breaks. That
      // folder exists while a workspace is open, so it is the one watched: a watcher on
      // `chatSessions` itself would stay silent until the first chat creates it. The folder's own
      // creation counts as a write: a file made right after it can come before the watcher sees
      // into the new folder, and the settled scan finds it anyway.
      const storage = extension.storageUri;
      if (!storage || storage.scheme !== 'file' || !vscode.workspace.workspaceFolders?.length) return undefined;
      const workspaceStorage = path.dirname(storage.fsPath);
      return {
        key,
        label: 'Copilot Chat',
        folder: path.join(workspaceStorage, 'chatSessions'),
        ...TRANSCRIPT_PATTERNS.copilotChat,
        watch: { folder: workspaceStorage, glob: '{chatSessions,chatSessions/*.json,chatSessions/*.jsonl}' },
        state: extension.workspaceState,
      };
    }
    case 'claudeCode': {
      const folder = settings.autoIngest.claudeCodeFolder;
      // A new project's folder counts too (see above).
      const watch = { folder, glob: '{*,*/*.jsonl}' };
      return { key, label: 'Claude Code', folder, ...TRANSCRIPT_PATTERNS.claudeCode, watch, state: extension.globalState };
    }
    case 'cline':
    case 'rooCode': {
      // VS Code's globalStorage root is the parent of ours; each extension has its folder there.
      const storage = extension.globalStorageUri;
      if (storage.scheme !== 'file') return undefined;
      const [label, id] = CLINE_EXTENSIONS[key];
      const own = path.join(path.dirname(storage.fsPath), id);
      return {
        key,
        label,
        folder: path.join(own, 'tasks'),
        ...TRANSCRIPT_PATTERNS[key],
        watch: { folder: own, glob: '{tasks,tasks/*,tasks/*/api_conversation_history.json}' },
        state: extension.globalState,
      };
    }
    case 'codex': {
      const folder = settings.autoIngest.codexFolder;
      const watch = { folder, glob: '{*,*/*,*/*/*,*/*/*/*.jsonl}' };
      return { key, label: 'Codex', folder, ...TRANSCRIPT_PATTERNS.codex, watch, state: extension.globalState };
    }
    case 'specstory': {
      const ws = vscode.workspace.workspaceFolders?.[0]?.uri;
      if (!ws || ws.scheme !== 'file') return undefined;
      return {
        key,
        label: 'SpecStory',
        folder: path.join(ws.fsPath, '.specstory', 'history'),
        ...TRANSCRIPT_PATTERNS.specstory,
        watch: { folder: ws.fsPath, glob: '{.specstory,.specstory/history,.specstory/history/*.md}' },
        state: extension.workspaceState,
      };
    }
  }
}
