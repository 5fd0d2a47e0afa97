/**
 * An instructions file that tells Copilot to read the brief before a task and to ask Recall when
 * the past matters. VS Code 1.104 has no contribution point for chat instructions (only the
 * workspace's `.github/instructions/*.instructions.md` files, which `applyTo` attaches), so the
 * extension offers to write that file: from a command, and once from a first-run prompt. Nothing is
 * written without the person's yes.
 */
import * as vscode from 'vscode';
import { TOOLS } from '../../tools/catalogue.js';
import type { RecallExtension } from '../ctx.js';

export const INSTRUCTIONS_PATH = '.github/instructions/recall.instructions.md';
/** globalState key: the first-run prompt was answered (added or declined), so it never asks again. */
const OFFER_ANSWERED = 'recall.instructionsOffer.answered';

const ref = (name: (typeof TOOLS)[number]['name']): string => `#${TOOLS.find((t) => t.name === name)!.toolReferenceName}`;

/** The file's text; the tool references are the LM tools' toolReferenceName, read from the catalogue. */
export function instructionsText(): string {
  return [
    '---',
    "applyTo: '**'",
    "description: 'Use Recall, the long-term memory of this project, at the start of a task and when the past matters.'",
    '---',
    `- Before starting a task, call ${ref('recall_brief')}: it lists what a person confirmed, recent decisions and`,
    '  preferences, with ids. Follow them unless the person says otherwise.',
    `- When an answer depends on earlier sessions (why something is the way it is, what was decided, what the person`,
    `  prefers), call ${ref('recall_query')} with the question as it comes up, and cite the ids (rel_…, ep_…) you use.`,
    `- When the person states a decision or a preference worth keeping, store it with ${ref('recall_remember')}.`,
    '',
  ].join('\n');
}

function target(folder: vscode.WorkspaceFolder): vscode.Uri {
  return vscode.Uri.joinPath(folder.uri, ...INSTRUCTIONS_PATH.split('/'));
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  return vscode.workspace.fs.stat(uri).then(
    () => true,
    () => false,
  );
}

async function write(ctx: RecallExtension, folder: vscode.WorkspaceFolder): Promise<vscode.Uri> {
  const uri = target(folder);
  await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(uri, '..'));
  await vscode.workspace.fs.writeFile(uri, Buffer.from(instructionsText(), 'utf8'));
  ctx.log.info(`wrote ${uri.fsPath}`);
  return uri;
}

/** "Recall: Add Instructions for Copilot…": shows where and what, writes only on "Add". */
export async function addInstructions(ctx: RecallExtension): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (!folders.length) {
    void vscode.window.showInformationMessage('Recall: open a folder first; the instructions file goes in its .github/instructions.');
    return;
  }
  const folder =
    folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Add the file to which folder?' });
  if (!folder) return;
  const uri = target(folder);
  if (await exists(uri)) {
    await vscode.window.showTextDocument(uri);
    void vscode.window.showInformationMessage(`Recall: ${INSTRUCTIONS_PATH} is already there; it is open to edit.`);
    return;
  }
  const answer = await vscode.window.showInformationMessage(
    `Add ${INSTRUCTIONS_PATH} to ${folder.name}?`,
    {
      modal: true,
      detail: `Copilot reads it with every chat in this workspace. It says:\n\n${instructionsText().split('---\n')[2]}`,
    },
    'Add',
  );
  if (answer !== 'Add') return;
  await vscode.window.showTextDocument(await write(ctx, folder));
  await ctx.extension.globalState.update(OFFER_ANSWERED, true);
}

/** Once per installation, and only with a folder open that lacks the file: asks; remembers either answer. */
export async function offerInstructions(ctx: RecallExtension): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder || ctx.extension.globalState.get<boolean>(OFFER_ANSWERED) || (await exists(target(folder)))) return;
  const answer = await vscode.window.showInformationMessage(
    `Recall: add ${INSTRUCTIONS_PATH} so Copilot reads the Recall brief before a task and asks Recall when the past matters?`,
    'Add File',
    'No Thanks',
  );
  if (answer === undefined) return; // dismissed: ask again next time
  await ctx.extension.globalState.update(OFFER_ANSWERED, true);
  if (answer === 'Add File' && !(await exists(target(folder)))) await vscode.window.showTextDocument(await write(ctx, folder));
}
