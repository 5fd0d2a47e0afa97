/**
 * The relationship patterns: fixed phrases over the placeholder text whose both ends are mentions of
 * the right kinds ("⟦0⟧ owns ⟦1⟧" with a person first). extract.ts runs them clause by clause and
 * skips a match in a hedged clause (HEDGES).
 */
import type { EntityType, ExtractedRelationship, Predicate } from './extract-types.js';
import { type Mention, type Mentions, PH, PH_RE, PHN } from './mentions.js';

const FP = "(?:I|we|We)(?:'m|'re|'ve|'d|'ll)?";
// A list of mentions: "Postgres 15, Redis and Kafka". An item followed by a verb starts a new clause
// ("we use Postgres and `OrderService` lives in …"), so it is not part of the list.
const ITEM = `${PHN}(?:\\s+v?\\d+(?:\\.\\d+)*\\+?)?`;
const NOT_SUBJECT =
  '(?!\\s+(?:lives|live|is|are|was|were|has|have|had|depends|relies|uses|runs|owns|maintains|will|would|can|could|should|does|did|sits|handles|needs)\\b)';
const LIST = `${ITEM}(?:(?:\\s*,\\s*(?:and\\s+)?|\\s+and\\s+|\\s*&\\s*|\\s*\\+\\s*|\\s+plus\\s+|\\s+as well as\\s+)${ITEM}${NOT_SUBJECT})*`;
const DET = '(?:(?:the|a|an|our|my|their|this|that)\\s+)?(?:(?:shared|new|latest|native|official|existing|internal|current|same)\\s+)?';
const ADV =
  '(?:(?:also|already|still|now|currently|mostly|mainly|primarily|just|really|strongly|generally|usually|always|definitely|finally|both|all)\\s+)*';

/** After the object of owns / works on: nothing, punctuation or a function word — "the Terraform modules" is not Terraform. */
const OBJECT_END = `(?=\\s*$|\\s*[,.;:!)]|\\s+(?:for|in|to|with|and|as|on|at|from|since|because|now|today|too|also|while|until|so|when|which|who|this|these|last|next|again|anymore|right|full-time|day-to-day|together|alone)\\b|\\s+[-–—])`;

/** Working on "the X refactor" is working on X. */
const WORK_END = `(?:\\s+(?:refactor|rewrite|migration|redesign|cleanup|port|upgrade|integration|tests|docs)\\b)?${OBJECT_END}`;

/** A clause with one of these is a negation, a doubt or a plan: no fact is read from it. */
export const HEDGES =
  /\b(?:not|n't|never|no longer|if|whether|could|might|maybe|perhaps|should|would|shall|considering|consider|thinking|wondering|unless|instead of|think|guess|believe|suppose|probably|sure|wish|hope|want to|plan to|planning|trying|try|avoid|stop|stopped)\b/i;

export interface Ctx {
  mentions: Mentions;
  /** Who "I"/"we" is, when the turn is the person's; undefined in the assistant's turns. */
  self?: string;
  out: ExtractedRelationship[];
}

function ids(s: string): number[] {
  return [...s.matchAll(PH_RE)].map((m) => Number(m[1]));
}

// Every placeholder names a mention (a turn's own brackets are blanked first); should one not, a
// nameless stand-in reaches no fact, as emit() ignores empty names.
const NOBODY: Mention = { name: '', type: 'identifier' };

function entity(ctx: Ctx, i: number): Mention {
  return ctx.mentions.get(i) ?? NOBODY;
}

function emit(ctx: Ctx, subject: string, predicate: Predicate, object: string): void {
  if (!subject || !object || subject.toLowerCase() === object.toLowerCase()) return;
  if (!ctx.out.some((r) => r.subject === subject && r.predicate === predicate && r.object === object))
    ctx.out.push({ subject, predicate, object });
}

const TOOLISH: EntityType[] = ['technology', 'package', 'project', 'identifier'];
const THINGS: EntityType[] = ['technology', 'package', 'project', 'identifier', 'file'];
const isType = (m: Mention, types: EntityType[]): boolean => types.includes(m.type);

interface Pattern {
  re: RegExp;
  /** Uses the speaker as subject ("I", "we", "let's"): only in the person's own turns. */
  firstPerson?: boolean;
  apply: (ctx: Ctx, m: RegExpExecArray) => void;
}

const each = (ctx: Ctx, list: string, types: EntityType[], f: (m: Mention) => void): void => {
  for (const i of ids(list)) {
    const m = entity(ctx, i);
    if (isType(m, types)) f(m);
  }
};

export const PATTERNS: Pattern[] = [
  // replaces: switch/move/migrate from X to Y; replace X with Y; Y replaces X; drop X in favour of Y.
  {
    re: new RegExp(
      `\\b(?:switch|switched|switching|move|moved|moving|migrate|migrated|migrating|port|ported|porting|convert|converted|converting|go|went|going)\\s+(?:[\\w\u27e6\u27e7-]+\\s+){0,4}?from\\s+${DET}${PH}\\s+(?:to|over to|onto)\\s+${DET}${PH}`,
      'gi',
    ),
    apply: (ctx, m) => {
      const a = entity(ctx, Number(m[1])),
        b = entity(ctx, Number(m[2]));
      if (isType(a, TOOLISH) && isType(b, TOOLISH)) emit(ctx, b.name, 'replaces', a.name);
    },
  },
  {
    re: new RegExp(`\\b(?:replace|replaced|replacing|swap|swapped|swapping)\\s+${DET}${PH}\\s+(?:with|for|by)\\s+${DET}${PH}`, 'gi'),
    apply: (ctx, m) => {
      const a = entity(ctx, Number(m[1])),
        b = entity(ctx, Number(m[2]));
      if (isType(a, TOOLISH) && isType(b, TOOLISH)) emit(ctx, b.name, 'replaces', a.name);
    },
  },
  {
    re: new RegExp(`${PH}\\s+(?:replaces|replaced|has replaced|is replacing|will replace|supersedes|superseded)\\s+${DET}${PH}`, 'g'),
    apply: (ctx, m) => {
      const a = entity(ctx, Number(m[1])),
        b = entity(ctx, Number(m[2]));
      if (isType(a, TOOLISH) && isType(b, TOOLISH)) emit(ctx, a.name, 'replaces', b.name);
    },
  },
  {
    re: new RegExp(`\\b(?:drop|dropped|dropping|ditch|ditched|remove|removed)\\s+${DET}${PH}\\s+in fav(?:ou)?r of\\s+${DET}${PH}`, 'gi'),
    apply: (ctx, m) => {
      const a = entity(ctx, Number(m[1])),
        b = entity(ctx, Number(m[2]));
      if (isType(a, TOOLISH) && isType(b, TOOLISH)) emit(ctx, b.name, 'replaces', a.name);
    },
  },
  // decided: let's go with X; we decided to use X; we chose / went with / settled on / standardized on X.
  {
    re: new RegExp(
      `\\b(?:let's|lets|let us)\\s+${ADV}(?:go with|use|pick|choose|adopt|stick with|standardi[sz]e on|switch to|move to|migrate to|keep)\\s+${DET}(${LIST})`,
      'gi',
    ),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'decided', o.name)),
  },
  {
    re: new RegExp(
      `\\b${FP}\\s+${ADV}(?:have\\s+|had\\s+)?(?:decided|agreed)\\s+(?:to\\s+(?:use|go with|adopt|switch to|move to|migrate to|keep|stick with|standardi[sz]e on)|on)\\s+${DET}(${LIST})`,
      'g',
    ),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'decided', o.name)),
  },
  {
    re: new RegExp(
      `\\b${FP}\\s+${ADV}(?:have\\s+)?(?:went with|chose|picked|settled on|standardi[sz]ed on|are going with|'re going with|will go with|'ll go with|will use|'ll use|are going to use|'re going to use|are sticking with|'re sticking with|will stick with|'ll stick with|'re standardi[sz]ing on|are standardi[sz]ing on)\\s+${DET}(${LIST})`,
      'g',
    ),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'decided', o.name)),
  },
  // prefers: I prefer X (over Y); I'd rather use/keep X; my preference is X.
  {
    re: new RegExp(`\\b${FP}\\s+${ADV}(?:do\\s+)?(?:prefer|favou?r)\\s+${DET}(${LIST})`, 'g'),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'prefers', o.name)),
  },
  {
    re: new RegExp(`\\b${FP}\\s+(?:would\\s+)?rather\\s+(?:use|keep|stick with|go with|have)\\s+${DET}(${PHN})`, 'g'),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'prefers', o.name)),
  },
  {
    re: new RegExp(`\\b(?:my|our) preference is\\s+${DET}(${PHN})`, 'gi'),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'prefers', o.name)),
  },
  {
    re: new RegExp(`${PH}\\s+(?:also\\s+|really\\s+|strongly\\s+)?(?:prefers|preferred)\\s+${DET}(${LIST})`, 'g'),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1]));
      if (s.type === 'person') each(ctx, m[2]!, TOOLISH, (o) => emit(ctx, s.name, 'prefers', o.name));
    },
  },
  // uses: we use X; we're using X; our <thing> uses / runs on X.
  {
    re: new RegExp(
      `\\b${FP}\\s+${ADV}(?:are\\s+|have been\\s+|'ve been\\s+)?(?:use|using|run|running|rely on|relying on|deploy to|deploy on|build with|code in|write in|are on|'re on)\\s+${DET}(${LIST})`,
      'g',
    ),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'uses', o.name)),
  },
  {
    re: new RegExp(
      `\\b(?:our|Our)\\s+(?:[\\w-]+\\s+){0,2}?(?:uses|is using|runs on|is built (?:with|on)|is written in|deploys to|relies on)\\s+${DET}(${LIST})((?:\\s+(?:for|to)\\s+[\\w ]{1,30}?)?\\s+and\\s+(?:(?:uses|deploys to|runs on)\\s+)?${DET}${PH})?`,
      'g',
    ),
    firstPerson: true,
    apply: (ctx, m) => {
      each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'uses', o.name));
      if (m[2]) each(ctx, m[2], ['technology'], (o) => emit(ctx, ctx.self!, 'uses', o.name));
    },
  },
  {
    re: new RegExp(`\\b(?:our|Our)\\s+(?:[\\w-]+\\s+){0,2}?runs on\\s+${DET}(${PHN})\\s+and\\s+deploys to\\s+${DET}(${PHN})`, 'g'),
    firstPerson: true,
    apply: (ctx, m) => {
      each(ctx, m[1]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'uses', o.name));
      each(ctx, m[2]!, TOOLISH, (o) => emit(ctx, ctx.self!, 'uses', o.name));
    },
  },
  {
    re: new RegExp(
      `${PH}\\s+(?:(?:also|still|now|already)\\s+)?(?:uses|is using|is built with|is built on|is written in|runs on)\\s+${DET}(${LIST})`,
      'g',
    ),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1]));
      if (isType(s, ['project', 'package', 'identifier', 'file', 'person']))
        each(ctx, m[2]!, TOOLISH, (o) => emit(ctx, s.name, 'uses', o.name));
    },
  },
  // depends_on: X depends on / relies on / requires Y; Y is a dependency of X.
  {
    re: new RegExp(
      `(${LIST})\\s+(?:(?:also|still|now|both|all)\\s+)?(?:depends on|depend on|relies on|rely on|requires|has a (?:hard |runtime |peer )?dependency on|is built on top of|imports)\\s+${DET}(${LIST})`,
      'g',
    ),
    apply: (ctx, m) => {
      for (const si of ids(m[1]!)) {
        const s = entity(ctx, si);
        if (!isType(s, THINGS)) continue;
        each(ctx, m[m.length - 1]!, THINGS, (o) => emit(ctx, s.name, 'depends_on', o.name));
      }
    },
  },
  {
    re: new RegExp(`${PH}\\s+is a (?:hard |runtime |peer )?dependency of\\s+${DET}${PH}`, 'g'),
    apply: (ctx, m) => {
      const a = entity(ctx, Number(m[1])),
        b = entity(ctx, Number(m[2]));
      if (isType(a, THINGS) && isType(b, THINGS)) emit(ctx, b.name, 'depends_on', a.name);
    },
  },
  // owns: Dana owns / maintains / is the owner of X; X is owned by Dana; I own X.
  {
    re: new RegExp(
      `(${PHN}(?:\\s+and\\s+(?:I|${PHN}))?)\\s+(?:(?:also|still|now)\\s+)?(?:owns|own|maintains|maintain|is the owner of|are the owners of|is the maintainer of|is responsible for|are responsible for)\\s+${DET}(${LIST})${OBJECT_END}`,
      'g',
    ),
    apply: (ctx, m) => {
      const subjects = ids(m[1]!)
        .map((i) => entity(ctx, i))
        .filter((s) => s.type === 'person')
        .map((s) => s.name);
      if (/\band\s+I\b/.test(m[1]!) && ctx.self) subjects.push(ctx.self);
      for (const s of subjects) each(ctx, m[m.length - 1]!, THINGS, (o) => emit(ctx, s, 'owns', o.name));
    },
  },
  {
    re: new RegExp(
      `\\bI\\s+(?:also\\s+|still\\s+)?(?:own|maintain|am the owner of|am responsible for)\\s+${DET}(${LIST})${OBJECT_END}`,
      'g',
    ),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, THINGS, (o) => emit(ctx, ctx.self!, 'owns', o.name)),
  },
  {
    re: new RegExp(`${PH}\\s+(?:is|are)\\s+(?:owned|maintained)\\s+by\\s+${PH}`, 'g'),
    apply: (ctx, m) => {
      const o = entity(ctx, Number(m[1])),
        s = entity(ctx, Number(m[2]));
      if (s.type === 'person' && isType(o, THINGS)) emit(ctx, s.name, 'owns', o.name);
    },
  },
  // works_on: Priya is working on X; I'm working on the X refactor; I work on X.
  {
    re: new RegExp(
      `${PH}\\s+(?:is\\s+)?(?:(?:currently|still|now|also)\\s+)?(?:working on|works on|hacking on|is assigned to)\\s+${DET}(${PHN})${WORK_END}`,
      'g',
    ),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1])),
        o = entity(ctx, ids(m[2]!)[0]!);
      if (s.type === 'person' && isType(o, THINGS)) emit(ctx, s.name, 'works_on', o.name);
    },
  },
  {
    re: new RegExp(
      `\\b(?:I'm|I am|I|we're|we are|we)\\s+(?:(?:currently|still|now|also|mostly)\\s+)?(?:working on|work on|hacking on|assigned to)\\s+${DET}(${PHN})${WORK_END}`,
      'g',
    ),
    firstPerson: true,
    apply: (ctx, m) => each(ctx, m[1]!, THINGS, (o) => emit(ctx, ctx.self!, 'works_on', o.name)),
  },
  // located_in: X lives in / is in / is defined in F; X in F (code); added/moved X to F; X is exported from F.
  {
    re: new RegExp(
      `${PH}\\s+(?:\\w+\\s+)?(?:lives|live|is|are|sits|sit|resides|is located|are located|is defined|are defined|is declared|is implemented|are implemented|is kept|are kept|is stored|can be found|now lives|still lives)\\s+(?:in|under|inside)\\s+${DET}${PH}`,
      'g',
    ),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1])),
        f = entity(ctx, Number(m[2]));
      if (f.type === 'file' && isType(s, ['identifier', 'project', 'package', 'file'])) emit(ctx, s.name, 'located_in', f.name);
    },
  },
  {
    re: new RegExp(`${PH}\\s+(?:\\w+\\s+)?(?:is|are)\\s+exported\\s+from\\s+${PH}`, 'g'),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1])),
        f = entity(ctx, Number(m[2]));
      if (f.type === 'file' && isType(s, ['identifier'])) emit(ctx, s.name, 'located_in', f.name);
    },
  },
  {
    re: new RegExp(`\\b(?:added|moved|put|extracted)\\s+${DET}${PH}\\s+(?:to|into|in)\\s+${PH}`, 'gi'),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1])),
        f = entity(ctx, Number(m[2]));
      if (f.type === 'file' && isType(s, ['identifier', 'project', 'package'])) emit(ctx, s.name, 'located_in', f.name);
    },
  },
  {
    // `fetchInvoices` in src/billing/client.ts; `getToken` from src/auth/token.ts — a code identifier placed in a file.
    re: new RegExp(`${PH}\\s+(?:in|from)\\s+${PH}`, 'g'),
    apply: (ctx, m) => {
      const s = entity(ctx, Number(m[1])),
        f = entity(ctx, Number(m[2]));
      if (f.type === 'file' && s.type === 'identifier' && /\.[A-Za-z]+$/.test(f.name)) emit(ctx, s.name, 'located_in', f.name);
    },
  },
];

/** "Marco maintains X and prefers Y": the clause's subject, carried to the second verb. */
export const CARRY = new RegExp(
  `^(\\s*(?:(?:[Tt]he|[Oo]ur)\\s+)?(${PHN}))((?:(?!\\band\\b).)*?)\\band\\s+(?=(?:also\\s+)?(?:uses|prefers|owns|maintains|depends on|relies on|lives in|works on|is working on|is written in|is built with)\\b)`,
);
