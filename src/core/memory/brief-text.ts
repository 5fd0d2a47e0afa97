/**
 * The brief as text: a line per fact, knowledge item or note (each with its id; an item with its
 * kind and statement, a plain fact with its triple), the sections in order of weight, and a footer
 * naming what the budget left out by the first words of each (core/memory/brief.ts picks).
 */
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
  text: string;
  /** The first words of what it says: how the footer names it when the budget leaves it out. */
  title: string;
  fact?: FactView;
  note?: EpisodeView;
  /** Whose words a repository fact rests on (its external evidence's speakers). */
  authors?: string[];
}

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

export function factLine(section: BriefSection, f: FactView): Line {
  // A confirmation is certainty, not a percentage; a teammate's (team sync) says whose.
  const how = f.pinned ? (f.confirmed_by ? `confirmed by ${f.confirmed_by}` : 'confirmed') : pct(f.effective_confidence);
  const by = !f.pinned && f.authority === 'agent' ? 'by an agent, ' : '';
  const what = f.kind ? `${f.kind}: ${cut(saying(f), STATEMENT_CHARS)}` : saying(f);
  // A left-out line of others' words is named as theirs too.
  const title = `${section === 'repository' ? "repository's: " : ''}${titleOf(saying(f))}`;
  return { section, fact: f, title, text: `- [${f.id}] ${what} (${by}${how}, since ${day(f.valid_from)})` };
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

/** The repository section's title: whose words they are, the first few named. */
function repositoryTitle(lines: Line[]): string {
  const authors = [...new Set(lines.flatMap((l) => l.authors ?? []))];
  const named = authors.slice(0, AUTHORS_SHOWN).join(', ');
  const more = authors.length > AUTHORS_SHOWN ? ` and ${authors.length - AUTHORS_SHOWN} more` : '';
  return `${SECTION_TITLES.repository}${authors.length ? ` (authors: ${named}${more})` : ''}:`;
}

/** The header and the picked lines under their section titles, in section order. */
export function renderBody(header: string, lines: Line[]): string {
  const out = [header];
  for (const section of SECTIONS) {
    const of = lines.filter((l) => l.section === section);
    if (of.length) out.push(section === 'repository' ? repositoryTitle(of) : SECTION_TITLES[section], ...of.map((l) => l.text));
  }
  return out.join('\n');
}

const FOOTER = 'Left out: ';
const moreOf = (n: number): string => `+${n} more`;

/** The shortest footer for `count` left-out lines: how many, none named. */
export const shortestFooter = (count: number): string => `${FOOTER}${moreOf(count)}`;

/**
 * The footer naming what the budget left out, within `chars`: the titles of as many left-out lines
 * as fit (given in the order to name them), then how many more. Never longer than `chars` when
 * `chars` holds the shortest footer.
 */
export function footer(left: Line[], chars: number): { text: string; named: string[] } {
  const named: string[] = [];
  const text = (): string => {
    const rest = left.length - named.length;
    return `${FOOTER}${[...named, ...(rest ? [moreOf(rest)] : [])].join('; ')}`;
  };
  for (const l of left) {
    named.push(l.title);
    if (text().length > chars) {
      named.pop();
      break;
    }
  }
  return { text: text(), named };
}
