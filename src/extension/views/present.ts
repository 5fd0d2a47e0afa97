/**
 * How memory objects read in the UI: labels, descriptions, tooltips and the read-only episode
 * document. Shared by the trees, the search quick pick and the commands.
 */
import { codeStale } from '../../core/model/code-anchors.js';
import * as vscode from 'vscode';
import type { EntityView, EpisodeView, FactView } from '../../core/model/views.js';
import { citation, renderCode } from '../../tools/render.js';
import { EPISODE_SCHEME, FACT_SCHEME } from '../common/ids.js';
import { checkLine, confidenceText, factSaying, outcomesText, pct } from '../common/knowledge-text.js';
import { codeSpan, escapeMarkdown as esc } from '../common/markdown.js';

export { pct };
export const day = (iso: string): string => iso.slice(0, 10);
export const minute = (iso: string): string => iso.slice(0, 16).replace('T', ' ');

export function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** "uses → sql.js" seen from the subject, "uses ← Recall" seen from the object; a knowledge item by its kind and statement. */
export function factLabel(f: FactView, from?: string): string {
  if (f.kind) return factSaying(f, 100);
  if (from !== undefined && f.object.toLowerCase() === from.toLowerCase() && f.subject.toLowerCase() !== from.toLowerCase()) {
    return `${f.predicate} ← ${f.subject}`;
  }
  return from === undefined ? `${f.subject} ${f.predicate} → ${f.object}` : `${f.predicate} → ${f.object}`;
}

export const factTriple = (f: FactView): string => `${f.subject} ${f.predicate} ${f.object}`;

/** What a fact says, as a message or a prompt quotes it: an item's kind and statement, else its triple. */
export const factText = (f: FactView): string => factSaying(f, 120);

/** "confirmed" (a person's confirmation is certainty, not a percentage), else the effective confidence. */
export const factState = confidenceText;

/** Confirmed or the effective confidence, and provenance; for an ended fact, why and since when. */
export function factDescription(f: FactView): string {
  const parts = [...hooksParts(f), factState(f), f.authority, f.prior];
  if (f.status !== 'current') parts.unshift(`${f.status === 'wrong' ? 'wrong' : 'superseded'} since ${day(f.valid_to ?? '')}`);
  if (f.code && codeStale(f.code)) parts.unshift(`⚠ code ${f.code.status}`);
  return parts.join(' · ');
}

/** An item in its group: confirmed or not, who said it (its turns' speakers, else its authority) and the authority. */
export function itemDescription(f: FactView & { said_by?: string[] }): string {
  const who = f.said_by?.length ? f.said_by.join(', ') : f.authority;
  const parts = [...hooksParts(f), factState(f), `said by ${who}`, f.authority];
  if (f.code && codeStale(f.code)) parts.unshift(`⚠ code ${f.code.status}`);
  return parts.join(' · ');
}

/** A rule's check in brief and what hooks decided on it ("checked", "blocked 2, asked 1"), first so a narrow view shows them; the tooltip says it whole. */
function hooksParts(f: FactView): string[] {
  const outcomes = outcomesText(f);
  return [...(f.check ? ['checked'] : []), ...(outcomes ? [outcomes] : [])];
}

// Tooltips hold memory text (anyone's, a peer's included): every string from it is escaped or a code span, and none supports theme icons.
export function factTooltip(f: FactView): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  if (f.kind) md.appendMarkdown(`**${esc(f.kind)}**: ${esc(f.statement ?? '')}  \nAbout **${esc(f.subject)}**  \n`);
  else md.appendMarkdown(`**${esc(f.subject)}** *${esc(f.predicate)}* **${esc(f.object)}**  \n`);
  md.appendMarkdown(
    `${codeSpan(f.id)} · ${esc(f.status)}${f.pinned ? `, confirmed by ${f.confirmed_by ? esc(f.confirmed_by) : 'a person'}` : ''}  \n`,
  );
  if (f.pinned) md.appendMarkdown('Confirmed: it holds until marked wrong  \n');
  else md.appendMarkdown(`Effective confidence ${pct(f.effective_confidence)} (confidence ${pct(f.confidence)} before decay)  \n`);
  md.appendMarkdown(`Established ${esc(f.prior)}, asserted by ${esc(f.authority)}, valid from ${esc(minute(f.valid_from))}`);
  if (f.valid_to) md.appendMarkdown(` to ${esc(minute(f.valid_to))}`);
  if (f.ended_reason) md.appendMarkdown(`  \nReason: ${esc(f.ended_reason)}`);
  md.appendMarkdown(`  \nEvidence: ${f.evidence.length ? f.evidence.map(codeSpan).join(', ') : 'none'}`);
  if (f.code) md.appendMarkdown(`  \n${esc(renderCode(f.code))}`);
  const hooks = checkLine(f);
  if (hooks) md.appendMarkdown(`  \n${esc(hooks)}`);
  return md;
}

/** Lets a FileDecorationProvider dim ended facts and badge confirmed ones. */
export function factUri(f: FactView, path: string): vscode.Uri {
  const code = f.code ? `&code=${f.code.status}` : '';
  return vscode.Uri.from({ scheme: FACT_SCHEME, path: `/${path}/${f.id}`, query: `status=${f.status}&pinned=${f.pinned ? 1 : 0}${code}` });
}

export function entityDescription(e: EntityView): string {
  return `${e.relationships} fact${e.relationships === 1 ? '' : 's'} · ${e.episodes} episode${e.episodes === 1 ? '' : 's'}`;
}

export function entityTooltip(e: EntityView): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${esc(e.name)}** · ${esc(e.type)}`);
  if (e.aliases.length) md.appendMarkdown(`  \nAlso known as ${e.aliases.map(esc).join(', ')}`);
  if (e.summary) md.appendMarkdown(`  \n${esc(e.summary)}`);
  md.appendMarkdown(`  \n${entityDescription(e)}`);
  return md;
}

/** "speaker: first line" (the first line that has words). */
export function episodeLabel(e: EpisodeView): string {
  const first = e.text.split('\n').find((l) => l.trim()) ?? e.text;
  return oneLine(e.speaker ? `${e.speaker}: ${first}` : first, 90);
}

export function episodeDescription(e: EpisodeView): string {
  return `${e.id} · ${minute(e.time)}`;
}

export function episodeTooltip(e: EpisodeView): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`${esc(citation(e))}\n\n`);
  md.appendMarkdown(esc(oneLine(e.text, 600)));
  if (e.entities.length) md.appendMarkdown(`\n\nMentions: ${e.entities.map(esc).join(', ')}`);
  return md;
}

export const episodeUri = (id: string): vscode.Uri => vscode.Uri.from({ scheme: EPISODE_SCHEME, path: `/${id}.md` });

export function episodeIdOf(uri: vscode.Uri): string {
  return uri.path.replace(/^\//, '').replace(/\.md$/, '');
}

/** The read-only document an episode opens as: its citation, its coordinates, the entities it mentions, its text. */
export function episodeDocument(e: EpisodeView): string {
  const rows: [string, string | null][] = [
    ['Time', minute(e.time)],
    ['Session', e.session],
    ['Source', e.ref ? `${e.source ?? ''}#${e.ref}` : e.source],
    ['Speaker', e.speaker],
    ['Role', e.role],
    ['Authority', e.authority],
    ['Mentions', e.entities.length ? e.entities.join(', ') : '(no entities)'],
  ];
  const lines = rows.filter(([, v]) => v).map(([k, v]) => `${`${k}:`.padEnd(11)}${v}`);
  return `# Episode ${e.id}\n\nCite as: ${citation(e)}\n\n${lines.join('\n')}\n\n---\n\n${e.text}\n`;
}
