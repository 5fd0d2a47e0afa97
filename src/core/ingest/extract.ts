/**
 * An offline, deterministic extractor of entities and relationships from coding-session turns.
 * No model, no I/O: the same turn always gives the same facts. Its facts are recorded at the
 * `inferred` prior; the evidence is the episode they came from.
 *
 * Precision over recall: a wrong fact in the memory costs more than a missed one. So a relationship
 * is only read from a fixed phrase pattern whose both ends are recognised entities, in a clause that
 * is not a question, a negation or a hypothetical; the assistant's first-person plans ("I'll use X",
 * "let's go with X") are never recorded as the person's choices.
 *
 * How it reads a turn:
 * 1. Fenced code blocks and URLs are set aside (too noisy to read facts from).
 * 2. Mentions are recognised and replaced by placeholders, most specific first: inline code spans,
 *    paths, scoped packages and install commands, technologies (a curated list with aliases and
 *    case rules), named components ("the settlement module"), people (by the verbs and cues around a
 *    capitalised name), code identifiers (camelCase, PascalCase, snake_case).
 * 3. Relationship patterns run over each clause of the placeholder text.
 */
import { CARRY, type Ctx, HEDGES, PATTERNS } from './extract-patterns.js';
import type { ExtractedEntity, Extraction, ExtractInput } from './extract-types.js';
import { boundaryOk, classifyCode, cleanPath, goIsLanguage, isPathLike, Mentions, PH_RE, trailing } from './mentions.js';
import {
  AGENT_ROLES,
  BRANDS,
  COMPONENT_HEADS,
  escapeRe,
  FILE_EXT,
  FUNCTION_WORDS,
  GENERIC_MODIFIERS,
  GENERIC_SPEAKERS,
  NOT_NAMES,
  PACKAGE_HEADS,
  PACKAGES_CODE_ONLY,
  PACKAGES_PLAIN,
  PERSON_CUES,
  PERSON_VERBS,
  PROJECT_HEADS,
  SPECIFIC_ALONE,
  TECH_PATTERNS,
  techOf,
} from './vocabulary.js';

export type { EntityType, ExtractedEntity, ExtractedRelationship, Extraction, ExtractInput, Predicate } from './extract-types.js';

// A dash glued to a word is part of a name ("my-app.ts"); one after a space or at a line's start is a list's bullet.
const BARE_FILE = new RegExp(
  `(?<![\\w@/.\\u27e6\\u27e7])(?<!\\S-)(?:\\w[\\w-]*(?:\\.[\\w-]+)*\\.(?:${FILE_EXT})|Dockerfile|Makefile|\\.env(?:\\.[\\w-]+)?)(?::\\d+)?(?![\\w/])`,
  'g',
);
const NAME = '([A-Z][a-z]{1,20}(?:\\s[A-Z][a-z]{1,20})?)';
const PERSON_BY_VERB = new RegExp(
  `(?<![\\w\u27e6])${NAME}(?=(?:\\s+and\\s+(?:I|[A-Z][a-z]+))?\\s+(?:(?:also|still|now|currently)\\s+)?(?:${PERSON_VERBS})\\b|'s\\s+(?:PR|branch|team|code|change)\\b)`,
  'g',
);
const PERSON_BY_CUE = new RegExp(`\\b((?:${anyCase(PERSON_CUES)})\\s+)${NAME}\\b`, 'g');

/** Entities and relationships stated in one turn. */
export function extract(episode: ExtractInput): Extraction {
  const raw = typeof episode?.text === 'string' ? episode.text : '';
  const role = (episode.role ?? '').toLowerCase();
  const speaker = (episode.speaker ?? '').trim();
  const agentTurn = AGENT_ROLES.has(role) || AGENT_ROLES.has(speaker.toLowerCase());
  const self = agentTurn ? undefined : GENERIC_SPEAKERS.has(speaker.toLowerCase()) ? 'user' : speaker;

  const mentions = new Mentions();
  let text = raw
    .replace(/[\u27e6\u27e7]/g, ' ') // the placeholder brackets are ours
    .replace(/```[\s\S]*?(?:```|$)/g, '\n')
    .replace(/\bhttps?:\/\/[^\s)>\]]+/g, ' ')
    .replace(/\r/g, '');

  installedPackages(text, mentions);

  // 1. Inline code spans.
  text = text.replace(/`([^`\n]+)`/g, (_whole, span: string) => {
    const m = classifyCode(span);
    return m ? mentions.add(m.name, m.type) : ' ';
  });

  // 2. Paths and scoped packages.
  text = text.replace(/(?<![\w@/.\u27e6-])@[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*(?![\w/])/gi, (m) => mentions.add(m, 'package'));
  text = text.replace(/(?<![\w@/.\u27e6\u27e7-])(?:~\/|\.\.?\/|\/)?[\w@.-]+(?:\/[\w@.-]+)+\/?(?::\d+(?::\d+)?)?/g, (m) =>
    isPathLike(m) ? mentions.add(cleanPath(m), 'file') + trailing(m) : m,
  );

  // 3. Technologies, longest alias first.
  const lowered = text.toLowerCase();
  for (const { alias, lower, tech, strict, re } of TECH_PATTERNS) {
    if (!lowered.includes(lower)) continue;
    re.lastIndex = 0;
    text = text.replace(re, (m: string, offset: number, all: string) => {
      if (!boundaryOk(all, offset, offset + m.length)) return m;
      if (!strict && techOf(m) !== tech) return m; // written as another technology's strict alias
      if (alias === 'Go' && !goIsLanguage(all, offset)) return m;
      return mentions.add(tech.name, 'technology');
    });
  }

  // Bare file names (package.json, README.md, .env) and plain package names.
  text = text.replace(BARE_FILE, (m) =>
    PACKAGES_PLAIN.has(m.toLowerCase().replace(/\.js$/, '')) || PACKAGES_CODE_ONLY.has(m.toLowerCase().replace(/\.js$/, ''))
      ? mentions.add(m.toLowerCase().replace(/\.js$/, ''), 'package')
      : isPathLike(m.replace(/:\d+$/, ''))
        ? mentions.add(cleanPath(m), 'file')
        : m,
  );
  // A library written capitalised mid-sentence ("replaced Moment with date-fns") is the library.
  text = text.replace(/(?<=\b[a-z][\w']*,?\s)[A-Z][a-z]+(?:-[a-z]+)?(?![\w\u27e6-])/g, (m) =>
    PACKAGES_PLAIN.has(m.toLowerCase()) || PACKAGES_CODE_ONLY.has(m.toLowerCase()) ? mentions.add(m.toLowerCase(), 'package') : m,
  );
  text = text.replace(/(?<![\w@/.\u27e6\u27e7-])[a-z][a-z0-9]*(?:[-.][a-z0-9]+)*(?![\w/\u27e6-])/g, (m) =>
    PACKAGES_PLAIN.has(m) ? mentions.add(m, 'package') : m,
  );

  // 4. Named components and projects: "the settlement module", "the billing-api repo", "project Atlas".
  text = text.replace(
    /\b([Tt]he|[Oo]ur|[Mm]y|[Tt]his|[Tt]hat|[Tt]heir|[Yy]our)\s+((?:[A-Za-z][\w-]*|\u27e6\d+\u27e7)(?:\s+[A-Za-z][\w-]*){0,2}?)\s+(module|service|app|application|api|API|pipeline|worker|component|job|microservice|dashboard|frontend|backend|website|site|gateway|bot|cli|CLI|sdk|SDK|plugin|extension|integration|flow|library|package|crate|project|repo|repository|monorepo|codebase)\b/g,
    (whole, det: string, mod: string, head: string) => {
      const named = namedComponent(mod, head.toLowerCase(), mentions);
      return named ? `${det} ${named}` : whole;
    },
  );
  // "Project Settings", "Project Structure": a capitalised Project begins a title, unless a sentence goes on after the name.
  text = text.replace(
    /\b(?:project|(?<=^|[.!?]\s+)Project)\s+([A-Z][\w-]+)\b(?=\s+[a-z]|\s*$|\s*[,.;)](?:\s|$))/gm,
    (whole, name: string) => (NOT_NAMES.has(name) || techOf(name) ? whole : mentions.add(name, 'project')),
  );

  // 5. People: a capitalised name with a person's verb after it or a cue before it.
  text = text.replace(PERSON_BY_VERB, (m, name: string) => personMention(name, mentions) ?? m);
  text = text.replace(PERSON_BY_CUE, (m, cue: string, name: string) => {
    const p = personMention(name, mentions);
    return p ? cue + p : m;
  });
  // Compound subjects: "Ana and Leo own", "Ana and I own".
  text = text.replace(
    /(?<![\w\u27e6])([A-Z][a-z]{1,20})(?=\s+and\s+(?:I|\u27e6\d+\u27e7)\s+(?:own|maintain|work on|are working on|are responsible for)\b)/g,
    (m, name: string) => personMention(name, mentions) ?? m,
  );

  // 6. Code identifiers outside code spans: getUserById, MemoryService, parse_config, DATABASE_URL, fetchInvoices().
  text = text.replace(
    /(?<![\w\u27e6\u27e7.@/-])([a-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(\(\))?(?![\w\u27e6-])/g,
    (m, id: string) => {
      if (BRANDS.has(id) || techOf(id) || id.length < 4) return m;
      return mentions.add(id, 'identifier');
    },
  );

  // Relationships, clause by clause.
  const ctx: Ctx = { mentions, self, out: [] };
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    if (/\?\s*$/.test(sentence.trim())) continue;
    for (const part of sentence.split(/;|\s+[-–—]\s+|\bbut\b|\bwhereas\b|\balthough\b|\bthough\b|\bhowever\b/)) {
      // "Marco maintains X and prefers Y": the second verb keeps the clause's subject.
      const clause = part.replace(CARRY, (_m, lead: string, subject: string, mid: string) => `${lead}${mid}and ${subject} `);
      for (const pattern of PATTERNS) {
        if (pattern.firstPerson && !ctx.self) continue;
        pattern.re.lastIndex = 0;
        for (const m of clause.matchAll(pattern.re)) {
          const before = clause.slice(0, m.index).split(/,/).pop() ?? '';
          if (HEDGES.test(before) || HEDGES.test(m[0].replace(PH_RE, ' '))) continue;
          // "the handler in ⟦file⟧ is owned by Dana": the mention after a preposition is not the subject.
          if (
            !pattern.firstPerson &&
            m[0].startsWith('\u27e6') &&
            /\b(?:in|of|from|to|for|with|by|on|at|under|inside|than|over|into|via)\s*$/i.test(before)
          )
            continue;
          pattern.apply(ctx, m as unknown as RegExpExecArray);
        }
      }
    }
  }

  // Entities: every mention, plus the speaker when a fact is about them.
  const entities: ExtractedEntity[] = mentions.list.map((m) => ({ name: m.name, type: m.type }));
  if (
    self &&
    ctx.out.some((r) => r.subject === self || r.object === self) &&
    !entities.some((e) => e.name.toLowerCase() === self.toLowerCase())
  ) {
    entities.unshift({ name: self, type: 'person' });
  }
  return { entities, relationships: ctx.out };
}

const INSTALL =
  /(^|[`$>]\s*|\b)(?:npm\s+(?:install|i|add)|pnpm\s+(?:add|install|i)|yarn\s+add|bun\s+add|pip3?\s+install|uv\s+add|poetry\s+add|cargo\s+add|go\s+get|gem\s+install)((?:[ \t]+(?:-{1,2}[\w-]+|[@\w./-]+))+)/gm;

/**
 * Install commands name packages: npm i -D zod, pip install httpx, cargo add serde. Written as a
 * command (a line of its own, a code span, after a prompt) every word on its line is a package;
 * in a sentence ("npm install failed due to a conflict") only a word written as a package is
 * (one the vocabulary knows, or with a dash, a scope, a dot or a digit).
 */
function installedPackages(text: string, mentions: Mentions): void {
  for (const m of text.matchAll(INSTALL)) {
    const command = m[1] !== '' || /^\s*$/.test(text.slice(text.lastIndexOf('\n', m.index) + 1, m.index));
    for (const word of m[2]!.trim().split(/\s+/)) {
      const name = word.replace(/`/g, '').replace(/(?<=.)@[\w.^~-]+$/, '');
      if (!name || name.startsWith('-') || !/^[@\w][\w./@-]*$/.test(name)) continue;
      const tech = techOf(name);
      const known = tech !== undefined || PACKAGES_PLAIN.has(name) || PACKAGES_CODE_ONLY.has(name);
      if (!command && !known && !/[-@/.\d]/.test(name)) break;
      mentions.add(tech ? tech.name : name, tech ? 'technology' : 'package');
    }
  }
}

/** A word that describes rather than names: a participle ("the requested CLI") or a degree ("the most efficient API"). */
const DESCRIBING = /^(?:\w{3,}[^e\W]ed|most|more|less|least|very)$/i;

function namedComponent(mod: string, head: string, mentions: Mentions): string | undefined {
  const words = mod.split(/\s+/);
  // A placeholder modifier: "the `ledger-cli` crate" names the package; "the React app" names nothing new.
  if (words.length === 1 && /^\u27e6\d+\u27e7$/.test(words[0]!)) {
    const m = mentions.get(Number(words[0]!.slice(1, -1)));
    if (!m) return undefined;
    if (m.type === 'package' && PACKAGE_HEADS.has(head)) return words[0];
    if (m.type === 'package' && PROJECT_HEADS.has(head)) {
      m.type = 'project'; // "the `billing-api` repo" is a project, not an npm package
      return words[0];
    }
    return undefined;
  }
  if (words.some((w) => /\u27e6/.test(w))) return undefined;
  // A function word inside is a clause, not a name: "the user selects this backend", "that sets up a project".
  if (words.some((w) => FUNCTION_WORDS.has(w.toLowerCase()))) return undefined;
  // Words before a capitalised name describe it: "the relevant Minsky CLI" is the Minsky CLI.
  const capital = words.findIndex((w) => /^[A-Z]/.test(w));
  if (capital > 0) words.splice(0, capital);
  while (
    words.length > 0 &&
    (GENERIC_MODIFIERS.has(words[0]!.toLowerCase()) || DESCRIBING.test(words[0]!)) &&
    !(words.length === 1 && SPECIFIC_ALONE.has(words[0]!.toLowerCase()))
  )
    words.shift();
  if (words.length === 0) return undefined;
  if (words.some((w) => techOf(w))) return undefined;
  const name = words.join(' ');
  // A repository is named as written ("billing-api", "Atlas"); "the target repo" names none.
  if (PROJECT_HEADS.has(head)) return /^[a-z]+$/.test(name) ? undefined : mentions.add(name, 'project');
  if (PACKAGE_HEADS.has(head) && head !== 'module' && words.length === 1 && /^[a-z0-9][\w.-]*$/.test(name))
    return mentions.add(name, 'package');
  if (!COMPONENT_HEADS.has(head)) return undefined;
  return mentions.add(
    `${name} ${head}`.replace(/\b(api|cli|sdk)$/i, (h) => h.toUpperCase()),
    'project',
  );
}

function personMention(name: string, mentions: Mentions): string | undefined {
  const parts = name.split(/\s+/);
  if (parts.some((p) => NOT_NAMES.has(p))) {
    // "Yesterday Dana said": keep the name after a word that is not one.
    if (parts.length === 2 && NOT_NAMES.has(parts[0]!) && !NOT_NAMES.has(parts[1]!)) {
      const p = personMention(parts[1]!, mentions);
      return p ? `${parts[0]} ${p}` : undefined;
    }
    return undefined;
  }
  if (parts.some((p) => techOf(p) || BRANDS.has(p))) return undefined;
  return mentions.add(name, 'person');
}

/** "ask|ping" -> "[Aa]sk|[Pp]ing": the first letter in either case, the rest as written. */
function anyCase(alternatives: string): string {
  return alternatives
    .split('|')
    .map((a) => `[${a[0]!.toUpperCase()}${a[0]!.toLowerCase()}]${escapeRe(a.slice(1))}`)
    .join('|');
}
