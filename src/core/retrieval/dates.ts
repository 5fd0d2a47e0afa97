/**
 * Dates a question names, and where the dated boost applies for them. Explicit calendar dates
 * ("on 16 November, 2023", "in June 2023", "in 2022") and dates said relative to when the question
 * is asked ("what broke in CI last week?", "yesterday", "three days ago", "on Monday"), read in the
 * asker's local calendar (the machine's time zone): "yesterday" is the local day before today,
 * weeks start on Monday.
 */
import { BARE_MONTH_YEARS } from '../model/limits.js';
import type { RetrievalRecipe } from './recipe.js';
import type { DateMention } from './types.js';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const DATE_PATTERNS: { re: RegExp; unit: 'day' | 'month' | 'year'; parts: (m: RegExpExecArray) => [number, number, number] }[] = [
  // 16 November, 2023
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH},?\\s+(\\d{4})\\b`, 'gi'),
    unit: 'day',
    parts: (m) => [+m[3]!, month(m[2]!), +m[1]!],
  },
  // November 16, 2023
  {
    re: new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'gi'),
    unit: 'day',
    parts: (m) => [+m[3]!, month(m[1]!), +m[2]!],
  },
  // November 2023
  { re: new RegExp(`\\b${MONTH},?\\s+(\\d{4})\\b`, 'gi'), unit: 'month', parts: (m) => [+m[2]!, month(m[1]!), 1] },
  // 2023
  { re: /\b((?:19|20)\d{2})\b/g, unit: 'year', parts: (m) => [+m[1]!, 0, 1] },
];

function month(name: string): number {
  return MONTHS.indexOf(name.toLowerCase().slice(0, 3));
}

// "in June", "during May": a month after a word that places it in time, with no day or year after it.
// ("Since June" is a span from June on, not June: it is left alone.)
const BARE_MONTH = new RegExp(`\\b(?:in|during|early|late|mid)\\s+${MONTH}\\b(?!,?\\s*\\d)`, 'gi');

/**
 * Each match of the patterns in the text, earlier patterns first, read by `read`; a match that
 * overlaps one already read is skipped, so the longest reading wins ("16 November, 2023" is not
 * also "2023"; "the day before yesterday" is not also yesterday).
 */
export function readSpans<P extends { re: RegExp }>(
  text: string,
  patterns: readonly P[],
  read: (p: P, m: RegExpExecArray) => DateMention,
): DateMention[] {
  const found: DateMention[] = [];
  const taken: [number, number][] = [];
  for (const p of patterns) {
    for (const m of text.matchAll(p.re)) {
      const [from, to] = [m.index!, m.index! + m[0].length];
      if (taken.some(([a, b]) => from < b && to > a)) continue;
      taken.push([from, to]);
      found.push(read(p, m as RegExpExecArray));
    }
  }
  return found;
}

/**
 * Explicit calendar dates in a text ("on 16 November, 2023", "in June 2023", "in 2022"), most
 * precise first; a span already read as a precise date is not read again as a vaguer one. Given
 * the years a memory spans (asked for only then), a month named without its year ("in June") is
 * that month of each of the latest BARE_MONTH_YEARS of them. Dates relative to the time of asking
 * ("last week") are relativeDates'.
 */
export function dateMentions(text: string, yearsSpanned?: () => { first: number; last: number } | undefined): DateMention[] {
  const found = readSpans(text, DATE_PATTERNS, (p, m) => {
    const [y, mo, d] = p.parts(m);
    const end = p.unit === 'day' ? Date.UTC(y, mo, d + 1) : p.unit === 'month' ? Date.UTC(y, mo + 1, 1) : Date.UTC(y + 1, 0, 1);
    return { text: m[0], start: Date.UTC(y, mo, d), end, unit: p.unit };
  });
  // The years are asked for only when a month comes without one: most questions name none.
  let years: { first: number; last: number } | undefined;
  for (const m of yearsSpanned ? text.matchAll(BARE_MONTH) : []) {
    years ??= yearsSpanned!();
    if (!years) break;
    const mo = month(m[1]!);
    for (let y = Math.max(years.first, years.last - BARE_MONTH_YEARS + 1); y <= years.last; y++)
      found.push({ text: m[0], start: Date.UTC(y, mo, 1), end: Date.UTC(y, mo + 1, 1), unit: 'month' });
  }
  return found;
}

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  'a couple of': 2,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

const COUNT = `(\\d{1,2}|a couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)`;
const UNIT = `(day|week|month|year)s?`;
const PATTERNS: { re: RegExp; read: (m: RegExpExecArray, at: Calendar) => Span }[] = [
  { re: /\b(?:today|tonight|this (?:morning|afternoon|evening))\b/gi, read: (_, at) => at.days(0, 1) },
  { re: /\bthe day before yesterday\b/gi, read: (_, at) => at.days(-2, -1) },
  { re: /\b(?:yesterday|last night)\b/gi, read: (_, at) => at.days(-1, 0) },
  {
    re: /\b(?:this|last|previous) (week|month|year)\b/gi,
    read: (m, at) => at.unit(m[0]!.toLowerCase().startsWith('this') ? 0 : -1, m[1]!),
  },
  // "The past week" is the seven days up to now, not the calendar week before this one.
  { re: /\bpast (week|month|year)\b/gi, read: (m, at) => at.past(m[1]!) },
  {
    re: new RegExp(`\\b${COUNT} ${UNIT} ago\\b`, 'gi'),
    read: (m, at) => {
      const n = /^\d/.test(m[1]!) ? Number(m[1]) : NUMBER_WORDS[m[1]!.toLowerCase()]!;
      return m[2]!.toLowerCase() === 'day' ? at.days(-n, -n + 1) : at.unit(-n, m[2]!);
    },
  },
  {
    re: new RegExp(`\\b(?:on|last|this past) (${WEEKDAYS.join('|')})\\b`, 'gi'),
    read: (m, at) => at.weekday(WEEKDAYS.indexOf(m[1]!.toLowerCase())),
  },
];

// How far back "the past week / month / year" reaches: years, months, days.
const PAST = { week: [0, 0, 7], month: [0, 1, 0], year: [1, 0, 0] } as const;

interface Span {
  start: number;
  end: number;
  unit: DateMention['unit'];
}

/** Spans of the local calendar around a moment. */
class Calendar {
  private readonly y: number;
  private readonly m: number;
  private readonly d: number;
  private readonly dow: number;

  constructor(now: number) {
    const t = new Date(now);
    [this.y, this.m, this.d, this.dow] = [t.getFullYear(), t.getMonth(), t.getDate(), t.getDay()];
  }

  /** Local days from today + `from` up to today + `to` (0 is today). */
  days(from: number, to: number): Span {
    return { start: this.day(from), end: this.day(to), unit: 'day' };
  }

  /** The week, month or year `offset` from the current one (0: this one, -1: the last). */
  unit(offset: number, name: string): Span {
    const { y, m } = this;
    switch (name.toLowerCase()) {
      case 'week': {
        const monday = -((this.dow + 6) % 7) + 7 * offset;
        return { start: this.day(monday), end: this.day(monday + 7), unit: 'week' };
      }
      case 'month':
        return { start: new Date(y, m + offset, 1).getTime(), end: new Date(y, m + offset + 1, 1).getTime(), unit: 'month' };
      default:
        return { start: new Date(y + offset, 0, 1).getTime(), end: new Date(y + offset + 1, 0, 1).getTime(), unit: 'year' };
    }
  }

  /** From this day a week, month or year ago up to the end of today. */
  past(name: string): Span {
    const unit = name.toLowerCase() as 'week' | 'month' | 'year';
    const [years, months, days] = PAST[unit];
    return { start: new Date(this.y - years, this.m - months, this.d - days).getTime(), end: this.day(1), unit };
  }

  /** The latest such weekday before today. */
  weekday(day: number): Span {
    const back = (this.dow - day + 7) % 7 || 7;
    return this.days(-back, -back + 1);
  }

  private day(offset: number): number {
    return new Date(this.y, this.m, this.d + offset).getTime();
  }
}

/** Dates the text states relative to `now` ("yesterday", "last week", "two days ago", "on Monday"), in the machine's time zone. */
export function relativeDates(text: string, now: number): DateMention[] {
  const at = new Calendar(now);
  return readSpans(text, PATTERNS, (p, m) => ({ text: m[0], ...p.read(m, at), relative: true }));
}

/** Where the dated boost applies for each date: its span, widened by the recipe's slack for its kind. */
export function dateWindows(dates: DateMention[], boosts: RetrievalRecipe['rescore']['boosts']): { since: number; until: number }[] {
  return dates.map((d) => {
    const slack = (d.relative ? boosts.relativeSlackDays : boosts.dateSlackDays) * 864e5;
    return { since: d.start - slack, until: d.end + slack };
  });
}
