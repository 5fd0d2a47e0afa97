/**
 * `@recall` in chat, for people: a question is answered from memory with citations (the cited
 * list needs no model; the chat's model, when there is one, only phrases a summary above it), facts
 * listed by kind (rules and decisions first), each with Confirm and Mark Wrong buttons, and each
 * episode a link that opens it. A question for knowledge of a kind ("what are our rules about X")
 * is answered from the project's items of that kind first. `/remember` and `/forget` are the
 * person's own writes, so they go through the `extension` connection (human authority) and the
 * same commands as the palette: Mark Wrong asks for a reason, Forget asks twice.
 */
import * as vscode from 'vscode';
import { MemoryError } from '../../core/model/errors.js';
import type { EpisodeView, FactView } from '../../core/model/views.js';
import type { QueryResult } from '../../core/memory/memory.js';
import type { RecallExtension } from '../ctx.js';
import { COMMANDS } from '../common/ids.js';
import { byKind, confidenceText, factSaying, KIND_TITLES } from '../common/knowledge-text.js';
import { codeSpan, commandLink, escapeLines, escapeMarkdown as escape } from '../common/markdown.js';
import { oneLine } from '../views/present.js';
import { knowledgeAsk, type KnowledgeAsk } from './common/knowledge-ask.js';

export const PARTICIPANT_ID = 'recall.chat';
/** Facts that get Confirm / Mark Wrong buttons (the rest are listed with their ids). */
const MAX_BUTTONED_FACTS = 5;
const MAX_EPISODES = 5;
/** Items listed when a question asks for knowledge of a kind ("what are our rules about X"). */
const MAX_ITEMS = 20;

/** The part of a ChatResponseStream the participant writes to. */
export type ChatOut = Pick<vscode.ChatResponseStream, 'markdown' | 'button' | 'progress'>;

export interface ChatAsk {
  prompt: string;
  command?: string;
  /** The chat's model, if any: used only to phrase a summary above the cited list. */
  model?: vscode.LanguageModelChat;
}

export function registerChatParticipant(ctx: RecallExtension): void {
  if (typeof vscode.chat?.createChatParticipant !== 'function') {
    ctx.log.warn('this editor has no chat participants API; @recall is not available');
    return;
  }
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, (request, _context, stream, token) =>
    answerChat(ctx, { prompt: request.prompt, command: request.command, model: request.model }, stream, token),
  );
  participant.iconPath = new vscode.ThemeIcon('book');
  ctx.push(participant);
}

export async function answerChat(
  ctx: RecallExtension,
  ask: ChatAsk,
  out: ChatOut,
  token?: vscode.CancellationToken,
): Promise<vscode.ChatResult> {
  const prompt = ask.prompt.trim();
  try {
    if (ask.command === 'remember') return await remember(ctx, prompt, out);
    if (ask.command === 'forget') {
      await vscode.commands.executeCommand(COMMANDS.forgetEntity, prompt || undefined);
      return {};
    }
    if (!prompt) {
      out.markdown(
        'Ask a question, e.g. `@recall what did we decide about auth?` or `@recall what are our rules about logging?`, or use `/remember` and `/forget`.',
      );
      return {};
    }
    out.progress('Asking Recall…');
    // A question for knowledge of a kind is answered from the project's items first, then from a search.
    const asked = knowledgeAsk(prompt);
    const listed = asked ? (await ctx.human.call('browse.items', { kinds: asked.kinds, about: asked.about, limit: MAX_ITEMS })).items : [];
    const r = await ctx.human.call('query', { query: prompt });
    if (token?.isCancellationRequested) return {};
    const shown = new Set(listed.map((f) => f.id));
    const found = { ...r, facts: r.facts.filter((f) => !shown.has(f.id)) };
    if (!listed.length && !found.facts.length && !found.episodes.length) {
      out.markdown(`Recall has nothing on "${escape(oneLine(prompt, 80))}".`);
      return {};
    }
    if (ask.model) await summarise(ctx, ask.model, { ...found, facts: [...listed, ...found.facts] }, out, token);
    if (asked) itemsAnswer(asked, listed, out, found.facts.length + found.episodes.length > 0);
    cited(found, out);
    return { metadata: { facts: [...listed, ...found.facts].map((f) => f.id), episodes: found.episodes.map((e) => e.id) } };
  } catch (err) {
    const e = err as Error;
    ctx.log.error(`@recall: ${e.stack ?? e.message}`);
    const hint = err instanceof MemoryError && err.hint ? ` ${err.hint}` : '';
    return { errorDetails: { message: `Recall: ${e.message}${hint}` } };
  }
}

async function remember(ctx: RecallExtension, text: string, out: ChatOut): Promise<vscode.ChatResult> {
  if (!text) {
    out.markdown('Write what to remember after `/remember`, e.g. `/remember we chose Postgres for billing`.');
    return {};
  }
  // The person typed it: stored through the person's connection, as their note.
  const r = await ctx.human.call('remember', { text, source: 'chat' });
  ctx.memoryChanged(0);
  out.markdown(trusted(r.duplicate ? `Already remembered as ${episodeLink(r.id)}.` : `Remembered as ${episodeLink(r.id)}.`));
  return { metadata: { remembered: r.id } };
}

// Ids, authority and texts can come from a peer (team sync) or an attacker's file: escaped or code spans, in markdown trusted for openEpisode alone.
const episodeLink = (id: string): string => commandLink(id, COMMANDS.openEpisode, [id]);

function trusted(text: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(text);
  md.isTrusted = { enabledCommands: [COMMANDS.openEpisode] };
  return md;
}

function factLine(f: FactView): string {
  const evidence = f.evidence.length ? ` · evidence ${f.evidence.slice(0, 3).map(episodeLink).join(', ')}` : '';
  return `- ${codeSpan(f.id)} **${escape(factSaying(f, 300))}** (${confidenceText(f)}, by ${escape(f.authority)}${evidence})`;
}

/** Facts under a heading per kind (rules and decisions first), plain facts last; the first few with Confirm and Mark Wrong. */
function factList(facts: FactView[], out: ChatOut): void {
  let buttoned = 0;
  for (const group of byKind(facts)) {
    out.markdown(trusted(`\n**${group.kind ? KIND_TITLES[group.kind] : 'Facts'}**\n\n`));
    for (const f of group.facts) {
      out.markdown(trusted(`${factLine(f)}\n`));
      if (buttoned++ >= MAX_BUTTONED_FACTS) continue;
      if (!f.pinned) out.button({ command: COMMANDS.confirm, arguments: [f.id], title: `Confirm ${f.id}` });
      out.button({ command: COMMANDS.markWrong, arguments: [f.id], title: `Mark ${f.id} Wrong` });
    }
  }
}

/** "What are our rules about X": the project's items of the kinds asked, by kind, or that it holds none. */
function itemsAnswer(asked: KnowledgeAsk, items: FactView[], out: ChatOut, more: boolean): void {
  const kinds = asked.kinds.map((k) => KIND_TITLES[k].toLowerCase()).join(' or ');
  const topic = asked.about ? ` about "${escape(oneLine(asked.about, 80))}"` : '';
  if (items.length === 0) {
    out.markdown(`No ${kinds}${topic} in this project's memory.${more ? ' What was said:' : ''}\n`);
    return;
  }
  const cut = items.length === MAX_ITEMS ? ` (the first ${MAX_ITEMS}: ask about something narrower for the rest)` : '';
  const what = items.length === 1 ? asked.kinds.join(' or ') : kinds;
  out.markdown(`${items.length} ${what}${topic} in force in this project${cut}:\n`);
  factList(items, out);
  if (more) out.markdown('\n**Also found**\n');
}

function episodeLine(e: EpisodeView): string {
  const where = [e.session && `session ${escape(e.session)}`, escape(e.time.slice(0, 10)), e.speaker && escape(e.speaker)]
    .filter(Boolean)
    .join(' · ');
  return `- ${episodeLink(e.id)} ${where}: ${escape(oneLine(e.text, 160))}`;
}

/** The cited answer: facts by kind (with buttons for the first few) and the episodes they rest on. */
function cited(r: QueryResult, out: ChatOut): void {
  factList(r.facts, out);
  if (r.episodes.length) {
    out.markdown(trusted(`\n**Episodes**\n\n${r.episodes.slice(0, MAX_EPISODES).map(episodeLine).join('\n')}\n`));
  }
}

/** A short answer phrased by the chat's model from the cited evidence only; skipped when the model fails. */
async function summarise(
  ctx: RecallExtension,
  model: vscode.LanguageModelChat,
  r: QueryResult,
  out: ChatOut,
  token?: vscode.CancellationToken,
): Promise<void> {
  const evidence = [
    ...r.facts.map((f) => `${f.id}: ${factSaying(f, 300)} (${confidenceText(f)})`),
    ...r.episodes
      .slice(0, MAX_EPISODES)
      .map((e) => `${e.id} (${e.time.slice(0, 10)}${e.speaker ? `, ${e.speaker}` : ''}): ${oneLine(e.text, 400)}`),
  ].join('\n');
  const prompt =
    `Answer the question in two or three sentences using only the evidence below, citing ids in brackets like [rel_3]. ` +
    `If the evidence does not answer it, say so.\n\nQuestion: ${r.query}\n\nEvidence:\n${evidence}`;
  try {
    const response = await model.sendRequest([vscode.LanguageModelChatMessage.User(prompt)], {}, token);
    let said = '';
    for await (const chunk of response.text) said += chunk;
    // Phrased from evidence anyone may have written, so it may carry links or images it was told to: shown as text.
    if (said.trim()) out.markdown(new vscode.MarkdownString(`${escapeLines(said.trim())}\n\n`));
  } catch (err) {
    ctx.log.info(`@recall: no summary (${(err as Error).message}); the cited list follows`);
  }
}
