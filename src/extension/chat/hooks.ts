/**
 * VS Code's agent hooks for the workspace: the brief at every session start and the person's
 * rules checked before a tool runs. The extension offers them once (like the instructions file)
 * and from "Recall: Install Agent Hooks"; the file is the one `recall hooks install --vscode
 * --project` writes, through the same code (service/hook-files.ts): merged with what is there,
 * and "Recall: Remove Agent Hooks" takes out exactly Recall's entries. Nothing is written without
 * the person's yes, and nothing in a workspace that is not trusted.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { hookCommand, install, repoint, targetOf, uninstall, type Target } from '../../service/hook-files.js';
import type { RecallExtension } from '../ctx.js';

export const HOOKS_PATH = '.github/hooks/recall.json';
/** globalState key: the offer was answered (installed or declined), so it never asks again. */
const OFFER_ANSWERED = 'recall.hooksOffer.answered';

const WHAT = [
  'At each agent session start: the Recall brief of this project (rules, decisions, confirmed facts).',
  'Before each tool call: your rules that carry a check (a command pattern, a path glob, a tool name) ask or deny, naming the rule.',
  'After each tool call: a call Recall asked about that then ran is counted as let through.',
].join('\n');

/** The lean hook bundle beside this installation's CLI. */
const hookScript = (ctx: RecallExtension): string => path.join(path.dirname(ctx.cliScript), 'hook.js');

/** The workspace folder's VS Code hook file, its entries running this extension's hook bundle on this memory. */
export function hooksTarget(
  ctx: RecallExtension,
  folder: vscode.WorkspaceFolder,
): { target: Target; command: Parameters<typeof install>[1] } {
  return {
    target: targetOf('vscode', 'project', folder.uri.fsPath, ''),
    command: (event) => hookCommand(event, 'vscode', { memory: ctx.memory, script: hookScript(ctx) }),
  };
}

async function pickFolder(verb: string): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (!folders.length) {
    void vscode.window.showInformationMessage(`Recall: open a folder first; agent hooks go in its ${HOOKS_PATH}.`);
    return undefined;
  }
  return folders.length === 1
    ? folders[0]
    : vscode.window.showWorkspaceFolderPick({ placeHolder: `${verb} Recall's agent hooks in which folder?` });
}

/** Whether a trusted workspace: hooks run commands, so an untrusted one gets none (the person is told why). */
function trusted(): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window
    .showInformationMessage(
      'Recall: agent hooks are written once you trust this workspace (it is in Restricted Mode).',
      'Manage Workspace Trust',
    )
    .then((a) => a && vscode.commands.executeCommand('workbench.trust.manage'));
  return false;
}

function write(ctx: RecallExtension, folder: vscode.WorkspaceFolder): string[] {
  const script = hookScript(ctx);
  // A hook that cannot start would only warn in every session: none is written.
  if (!fs.existsSync(script)) throw new Error(`this installation of Recall lacks ${script}; reinstall the extension.`);
  const { target, command } = hooksTarget(ctx, folder);
  const added = install(target, command);
  ctx.log.info(
    added.length ? `added Recall's ${added.join(', ')} hooks to ${target.file}` : `${target.file}: Recall's hooks are already there`,
  );
  return added;
}

async function told(ctx: RecallExtension, folder: vscode.WorkspaceFolder, added: string[]): Promise<void> {
  const file = hooksTarget(ctx, folder).target.file;
  const text = added.length
    ? `Recall: agent hooks added to ${HOOKS_PATH} (${added.join(', ')}). "Recall: Remove Agent Hooks" takes them out again.`
    : `Recall: the agent hooks are already in ${HOOKS_PATH}.`;
  const open = await vscode.window.showInformationMessage(text, 'Open File');
  if (open) await vscode.window.showTextDocument(vscode.Uri.file(file));
}

/** "Recall: Install Agent Hooks": says where and what in a dialog, writes only on "Install". */
export async function installHooks(ctx: RecallExtension): Promise<void> {
  if (!trusted()) return;
  const folder = await pickFolder('Install');
  if (!folder) return;
  const answer = await vscode.window.showInformationMessage(
    `Add Recall's agent hooks to ${HOOKS_PATH} in ${folder.name}?`,
    {
      modal: true,
      detail: `${WHAT}\n\nOther hooks in the file stay as they are. Agents that read .github/hooks (VS Code's agent hooks, Preview) run them.`,
    },
    'Install',
  );
  if (answer !== 'Install') return;
  const added = write(ctx, folder);
  await ctx.extension.globalState.update(OFFER_ANSWERED, true);
  await told(ctx, folder, added);
}

/** "Recall: Remove Agent Hooks": takes out exactly Recall's entries (and the file, when it leaves it empty). */
export async function removeHooks(ctx: RecallExtension): Promise<void> {
  if (!trusted()) return;
  const folder = await pickFolder('Remove');
  if (!folder) return;
  const { target } = hooksTarget(ctx, folder);
  const removed = uninstall(target);
  ctx.log.info(
    removed.length ? `removed Recall's ${removed.join(', ')} hooks from ${target.file}` : `${target.file}: no hooks of Recall's`,
  );
  void vscode.window.showInformationMessage(
    removed.length
      ? `Recall: agent hooks removed from ${HOOKS_PATH} (${removed.join(', ')}).`
      : `Recall: ${HOOKS_PATH} holds no hooks of Recall's.`,
  );
}

/**
 * At activation in a trusted workspace: Recall's hooks that run a script an update took away (the
 * extension's folder names its version) run this installation's instead; others are left alone.
 */
export function repointHooks(ctx: RecallExtension): void {
  const script = hookScript(ctx);
  if (!vscode.workspace.isTrusted || !fs.existsSync(script)) return;
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== 'file') continue;
    const { target, command } = hooksTarget(ctx, folder);
    const moved = repoint(target, command);
    if (moved.length) ctx.log.info(`re-pointed Recall's ${moved.join(', ')} hooks in ${target.file} at ${script}`);
  }
}

/** Once per installation, in a trusted workspace whose file lacks them: asks; remembers either answer. */
export async function offerHooks(ctx: RecallExtension): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder || !vscode.workspace.isTrusted || ctx.extension.globalState.get<boolean>(OFFER_ANSWERED)) return;
  const answer = await vscode.window.showInformationMessage(
    `Recall: add agent hooks to ${HOOKS_PATH}, so agents get the Recall brief at session start and your rules are checked before a tool runs?`,
    'Install Hooks',
    'No Thanks',
  );
  if (answer === undefined) return; // dismissed: ask again next time
  await ctx.extension.globalState.update(OFFER_ANSWERED, true);
  if (answer === 'Install Hooks' && vscode.workspace.isTrusted) await told(ctx, folder, write(ctx, folder));
}
