/**
 * The language model Recall's model paths use (the background extraction, items said twice): the one
 * of the family the settings name (recall.extraction.modelFamily), else the first VS Code offers;
 * and one prompt's answer, read as far as it is wanted.
 */
import * as vscode from 'vscode';
import type { Settings } from './config.js';

/** Why no model is asked, with what the person can do about it. */
export function noModelText(settings: Settings): string {
  const family = settings.extraction.modelFamily;
  return `no language model${family ? ` of family "${family}"` : ''} is available (install GitHub Copilot Chat or another model provider${family ? ', or clear recall.extraction.modelFamily' : ''})`;
}

/** Where the person lets Recall use a model VS Code refused it. */
export const ALLOW_MODEL = 'allow it in the Accounts menu, under "Manage Language Model Access"';

/** The opening of an answer that was not the JSON asked for, for the log. */
export const answerOpening = (answer: string): string => answer.replace(/\s+/g, ' ').trim().slice(0, 80);

/** The configured model, if VS Code offers one (editors without the language-model API offer none). */
export async function configuredModel(settings: Settings): Promise<vscode.LanguageModelChat | undefined> {
  if (typeof vscode.lm?.selectChatModels !== 'function') return undefined;
  const family = settings.extraction.modelFamily;
  return (await vscode.lm.selectChatModels(family ? { family } : undefined))[0];
}

/**
 * The model's answer to one prompt, at most `maxChars` (the rest is not waited for); undefined when
 * cancelled. Throws what the model throws (refused, blocked, failed).
 */
export async function answerOf(
  model: vscode.LanguageModelChat,
  prompt: string,
  opts: { justification: string; maxChars: number },
  token: vscode.CancellationToken,
): Promise<string | undefined> {
  const response = await model.sendRequest([vscode.LanguageModelChatMessage.User(prompt)], { justification: opts.justification }, token);
  let text = '';
  for await (const chunk of response.text) {
    text += chunk;
    if (text.length >= opts.maxChars || token.isCancellationRequested) break;
  }
  return token.isCancellationRequested ? undefined : text;
}
