/**
 * Where things live in a project, said with a path or a file name: the forms the turn reader
 * (knowledge-forms.ts, knowledge-agent.ts) and the memory-file reader (memory-file-items.ts) share.
 */

/** A place named by its path or its file: "test/e2e/", "src\\cron\\", "`PrefsManager.kt`", "@acfr.py". */
const PLACE = String.raw`(?:inside(?:\s+of)?|in|at|under)(?:\s+|(?=@))(?:the\s+)?[\`@]?(?:\.{0,2}[\\/]?[\w.-]+[\\/][\w.\\/-]*|[\w-]+\.(?:[a-z]{1,4}|json|yaml|toml|html|scss|swift|dart|java|sql)\b)`;
const KEPT = 'lives?|resides?|sits?|stays?|belongs?|(?:is|are) (?:located|stored|kept|collected|vendored|placed|housed)';
/**
 * Where something lives, said with its path or file: "the e2e tests live in test/e2e/", "cron jobs
 * defined at src\\cron\\…", "Conversion logic is located in @acfr.py", "my routes should be in routes.py",
 * "Tests go in the tests/ folder".
 */
const LIVES_IN = new RegExp(String.raw`\b(?:${KEPT}|go|goes|is defined|are defined|defined|should (?:be|live|go))\s+${PLACE}`, 'i');
/**
 * Where something lives, as an agent found it, in its main clause: "The hooks live in `.git/hooks/`",
 * "Shared settings persistence lives in `PrefsManager.kt`" (not "what lives in X", nor "if defined in X").
 */
const FOUND_LIVING = new RegExp(String.raw`^(?:the\s+|our\s+|your\s+)?[\w\`.\s/'’+#-]{2,60}?\s+(?:${KEPT})\s+${PLACE}`, 'i');
/** A folder named first, then what it holds: "`scripts/` holds host utilities such as …". */
const FOLDER_HOLDS = /(?:^|,\s*(?:while|and|whereas)\s+)`[\w.-]*\/[\w./-]*`\s+(?:holds|contains|houses|stores|keeps)\s+\S/i;

/** Said where something lives or is defined: "the e2e tests live in test/e2e/", "my routes should be in routes.py". */
export const saysWhereKept = (s: string): boolean => LIVES_IN.test(s);

/** A layout said with a bare copula: "Android resources are in `app/src/main/res`" (a file's prose; in a turn, "the bug is in x.ts" is no layout). */
const ARE_IN = new RegExp(String.raw`^(?:the\s+|our\s+)?[\w\`.\s/'’+#-]{2,60}?\s+(?:is|are)\s+${PLACE}`, 'i');

/** Where something lives, said in its main clause (brackets aside), or a folder with what it holds; `layout`: a bare "are in" too. */
export const foundWhereKept = (s: string, layout = false): boolean => {
  const main = s.replace(/\([^()]*\)/g, '');
  return FOUND_LIVING.test(main) || FOLDER_HOLDS.test(main) || (layout && ARE_IN.test(main));
};
