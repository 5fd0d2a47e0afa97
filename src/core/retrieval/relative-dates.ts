/**
 * Dates said relative to when the question is asked: "what broke in CI last week?", "what did we
 * decide yesterday?", "the bug from three days ago". Read in the asker's local calendar (the
 * machine's time zone): "yesterday" is the local day before today, weeks start on Monday. A date
 * the question states outright is text.ts dateMentions; these need the time of asking.
 */
import { readSpans, type DateMention } from './text.js';

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
