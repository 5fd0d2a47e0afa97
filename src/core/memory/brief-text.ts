/**
 * The brief as text: a line per fact, knowledge item or note (each with its id; an item with its
 * statement under a title naming its kind, a plain fact with its triple), the sections in order of
 * weight, and a footer naming what the budget left out by the first words of each (core/memory/brief.ts picks).
 */
import { cutQuestion } from '../ingest/knowledge-forms.js';
import type { KnowledgeKind } from '../model/knowledge.js';
import type { EpisodeView, FactView } from '../model/views.js';

/** Where a line is briefed: the item kinds, the person's confirmed and well-held plain facts, and others' words. */
export type BriefSection = 'rule' | 'decision' | 'preference' | 'confirmed' | 'fact' | 'lesson' | 'known' | 'repository';

/** Section titles, in the order the brief shows them: rules and decisions first, others' words last. */
const SECTION_TITLES: Record<BriefSection, string> = {
  rule: 'Rules:',
  decision: 'Recent decisions:',
  preference: 'Preferences:',
  confirmed: 'Confirmed by a person:',
  fact: 'Project facts:',
  lesson: 'Lessons learned:',
  known: 'Known with high confidence:',
  repository: "From the repository's files, others' words, not the person's",
};
export const SECTIONS = Object.keys(SECTION_TITLES) as BriefSection[];

/** Characters of a note's text, and of an item's statement, in a brief line. */
const NOTE_CHARS = 160;
const STATEMENT_CHARS = 200;
/** A left-out line's short title: its first words, within so many characters. */
const TITLE_WORDS = 5;
const TITLE_CHARS = 40;
/** Authors named in the repository section's title; the rest are counted. */
const AUTHORS_SHOWN = 3;

export interface Line {
  section: BriefSection;
  /** The line without its `meta`. */
  text: string;
  /** How sure and since when ("90%, since 2026-12-02"): said once in the section's title when its lines share it. */
  meta?: string;
  /** The first words of what it says: how the footer names it when the budget leaves it out. */
  title: string;
  fact?: FactView;
  note?: EpisodeView;
  /** Whose words a repository fact rests on (its external evidence's speakers). */
  authors?: string[];
  /** What kind it is when its section holds several: the repository's lines are grouped under their kinds. */
  group?: BriefGroup;
}

/** Characters a BPE tokeniser spends about a token on each: Chinese, Japanese and Korean. */
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/** A text's size in quarter tokens: a character each, and four for a wide one (see WIDE). */
export const sizeOf = (text: string): number => text.length + 3 * (text.match(WIDE)?.length ?? 0);

const pct = (x: number): string => `${Math.round(x * 100)}%`;
const day = (iso: string): string => iso.slice(0, 10);
const flat = (text: string): string => text.replace(/\s+/g, ' ').trim();
const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The first few words of a text, for a footer naming what was left out. */
export function titleOf(text: string): string {
  // The footer separates titles with "; ": one inside a title would split it.
  const words = flat(text.replace(/;/g, ',')).split(' ');
  const head = words.slice(0, TITLE_WORDS).join(' ');
  const short = cut(head, TITLE_CHARS);
  return words.length > TITLE_WORDS && short === head ? `${head}…` : short;
}

/** What a fact says: an item's kind and statement, a plain fact's triple. */
const saying = (f: FactView): string => (f.kind ? flat(f.statement ?? '') : `${f.subject} ${f.predicate} ${f.object}`);

/** The repository section's groups, in order: its items by kind, a plain choice or liking with its kind, other plain facts last. */
export type BriefGroup = KnowledgeKind | 'known';
const GROUP_TITLES: Record<BriefGroup, string> = {
  rule: 'Their rules:',
  decision: 'Their decisions:',
  preference: 'Their preferences:',
  fact: 'Their project facts:',
  lesson: 'Their lessons:',
  known: 'Held firmly:',
};
export const GROUPS = Object.keys(GROUP_TITLES) as BriefGroup[];

/**
 * A fact's line. An item's kind is said once, by the title above it (its section's, or in the
 * repository's section its group's), not on every line: the budget goes to statements.
 */
export function factLine(section: BriefSection, f: FactView, group?: BriefGroup): Line {
  // A confirmation is certainty, not a percentage; a teammate's (team sync) says whose.
  const how = f.pinned ? (f.confirmed_by ? `confirmed by ${f.confirmed_by}` : 'confirmed') : pct(f.effective_confidence);
  const by = !f.pinned && f.authority === 'agent' ? 'by an agent, ' : '';
  const what = f.kind ? (cutQuestion(saying(f), STATEMENT_CHARS) ?? cut(saying(f), STATEMENT_CHARS)) : saying(f);
  return {
    section,
    fact: f,
    title: titleOf(saying(f)),
    text: `- [${f.id}] ${what}`,
    meta: `${by}${how}, since ${day(f.valid_from)}`,
    ...(group ? { group } : {}),
  };
}

export function noteLine(e: EpisodeView): Line {
  const text = flat(e.text);
  return {
    section: 'decision',
    note: e,
    title: titleOf(text),
    text: `- [${e.id}] ${day(e.time)} note${e.author ? ` by ${e.author}` : ''}: ${cut(text, NOTE_CHARS)}`,
  };
}

/** A section's title: for the repository's, whose words they are (the first few named); and the meta its lines share. */
function sectionTitle(section: BriefSection, lines: Line[], shared: string | undefined): string {
  const notes: string[] = [];
  if (section === 'repository') {
    const authors = [...new Set(lines.flatMap((l) => l.authors ?? []))];
    const more = authors.length > AUTHORS_SHOWN ? ` and ${authors.length - AUTHORS_SHOWN} more` : '';
    if (authors.length) notes.push(`authors: ${authors.slice(0, AUTHORS_SHOWN).join(', ')}${more}`);
  }
  const title = SECTION_TITLES[section].replace(/:$/, '');
  return `${title}${notes.length ? ` (${notes.join('; ')})` : ''}:${shared ? ` each ${shared}, unless its line says` : ''}`;
}

/** The meta most of a section's lines share, when at least two do: the title says it once for them. */
function sharedMeta(lines: Line[]): string | undefined {
  const counts = new Map<string, number>();
  for (const l of lines) if (l.meta) counts.set(l.meta, (counts.get(l.meta) ?? 0) + 1);
  const [meta, n] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [];
  return meta !== undefined && n! >= 2 ? meta : undefined;
}

/**
 * The header and the picked lines under their section titles, in section order. Items read from
 * one file or turn share how sure and since when: the title says it once ("Rules: each 90%, since …")
 * and only a line that differs says its own, so the budget goes to statements.
 */
export function renderBody(header: string, lines: Line[]): string {
  const out = [header];
  for (const section of SECTIONS) {
    const of = lines.filter((l) => l.section === section);
    if (!of.length) continue;
    const shared = sharedMeta(of);
    out.push(sectionTitle(section, of, shared));
    let group: BriefGroup | undefined;
    for (const l of of) {
      if (l.group && l.group !== group) out.push(GROUP_TITLES[(group = l.group)]);
      out.push(l.meta && l.meta !== shared ? `${l.text} (${l.meta})` : l.text);
    }
  }
  return out.join('\n');
}

const FOOTER = 'Left out: ';
const moreOf = (n: number): string => `+${n} more`;

/** The shortest footer for `count` left-out lines: how many, none named. */
export const shortestFooter = (count: number): string => `${FOOTER}${moreOf(count)}`;

/**
 * The footer naming what the budget left out, within `chars` (its size, sizeOf): the titles of as
 * many left-out lines as fit (given in the order to name them), then how many more. Never bigger
 * than `chars` when `chars` holds the shortest footer.
 */
export function footer(left: Line[], chars: number): { text: string; named: string[] } {
  const named: string[] = [];
  // Others' words are named as theirs: each, or once when all left out are.
  const others = `${FOOTER.replace(/: $/, '')} (all the repository's): `;
  const allOthers = left.every((l) => l.section === 'repository') && sizeOf(`${others}${moreOf(left.length)}`) <= chars;
  const head = allOthers ? others : FOOTER;
  const text = (): string => {
    const rest = left.length - named.length;
    return `${head}${[...named, ...(rest ? [moreOf(rest)] : [])].join('; ')}`;
  };
  for (const l of left) {
    named.push(!allOthers && l.section === 'repository' ? `repository's: ${l.title}` : l.title);
    if (sizeOf(text()) > chars) {
      named.pop();
      break;
    }
  }
  return { text: text(), named };
}
