/**
 * Every catalogue tool as a native VS Code language-model tool (Copilot agent mode, `#recallQuery`
 * references). They run through the `lm` connection, so whatever a model stores is recorded at
 * agent authority; package.json's `languageModelTools` is generated from the same catalogue
 * (scripts/sync-manifest.mjs).
 */
import * as vscode from 'vscode';
import { TOOL_LIST, type RecallTool, type ToolName } from '../../tools/catalogue.js';
import { invokeTool } from '../../tools/invoke.js';
import type { RecallExtension } from '../ctx.js';
import { codeBlock, codeSpan } from '../common/markdown.js';
import { oneLine } from '../views/present.js';

type Input = Record<string, unknown>;

const quote = (v: unknown, max = 80): string => `"${oneLine(String(v ?? ''), max)}"`;

/** What the chat shows while a tool runs. One per tool: a new catalogue tool must add its own. */
const INVOCATION_MESSAGES: Record<ToolName, (input: Input) => string> = {
  recall_query: (i) => `Asking Recall ${quote(i.query)}`,
  recall_search: (i) => `Finding ${quote(i.query)} in Recall`,
  recall_episodes: (i) =>
    [
      'Listing Recall episodes',
      i.query && `matching ${quote(i.query)}`,
      i.session && `of session ${quote(i.session)}`,
      i.since && `since ${String(i.since)}`,
      i.until && `until ${String(i.until)}`,
    ]
      .filter(Boolean)
      .join(' '),
  recall_traverse: (i) => `Exploring ${quote(i.entity)} in Recall`,
  recall_status: () => 'Checking Recall',
  recall_overview: () => 'Reading what Recall knows about',
  recall_remember: () => 'Remembering a note in Recall',
  recall_brief: () => 'Reading the Recall brief',
};

export function invocationMessage(name: string, input: Input): string {
  return INVOCATION_MESSAGES[name as ToolName]?.(input ?? {}) ?? `Running ${name}`;
}

/**
 * recall_remember asks first, showing exactly what would be stored and how it will count. The note
 * is the model's text (maybe steered by what it read): a code block shows it whole, markup and all.
 */
export function confirmation(tool: RecallTool, input: Input): vscode.LanguageModelToolConfirmationMessages | undefined {
  if (tool.annotations.readOnlyHint) return undefined;
  const md = new vscode.MarkdownString();
  md.appendMarkdown('Recall will store this note:');
  md.appendMarkdown(codeBlock(String(input?.text ?? '')));
  const entities = Array.isArray(input?.entities) ? (input.entities as unknown[]).map(String) : [];
  if (entities.length) md.appendMarkdown(`About: ${entities.map(codeSpan).join(', ')}. `);
  if (input?.session) md.appendMarkdown(`Session: ${codeSpan(String(input.session))}. `);
  md.appendMarkdown("It is recorded as the agent's observation (low-weight evidence); you can correct it later in the Recall view.");
  return { title: 'Remember this in Recall?', message: md };
}

export function registerLmTools(ctx: RecallExtension): void {
  if (typeof vscode.lm?.registerTool !== 'function') {
    ctx.log.warn('this editor has no language-model tools API; the recall_* tools are available over MCP only');
    return;
  }
  for (const tool of TOOL_LIST) {
    ctx.push(
      vscode.lm.registerTool<Input>(tool.name, {
        prepareInvocation: (options) => ({
          invocationMessage: invocationMessage(tool.name, options.input),
          confirmationMessages: confirmation(tool, options.input),
        }),
        invoke: async (options, token) => {
          const started = Date.now();
          const outcome = await invokeTool(tool, ctx.lm, options.input);
          if (token.isCancellationRequested) throw new vscode.CancellationError();
          ctx.log.info(`LM tool ${tool.name}${outcome.isError ? ' failed' : ''} in ${Date.now() - started} ms`);
          if (!tool.annotations.readOnlyHint && !outcome.isError) ctx.memoryChanged();
          return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(outcome.text)]);
        },
      }),
    );
  }
}
