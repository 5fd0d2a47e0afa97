/**
 * What an agent's own turn can teach, read without a model (knowledge-read.ts reads the turn): a
 * lesson (a failure with its cause or its fix, in one sentence or two: "X wasn't in the public
 * folder, so the app couldn't load it"; "… So on a real device the verify link breaks.") and a
 * durable fact about the project ("the app uses X"; how to build, run and test: a command in a code
 * span, said as such; a correction: "the port is 10808, not 7890"; a fix said as the thing that fixed
 * it: "forcing xcb ... fixes the exit"), in English and Chinese, and a failure named with its cause
 * or fix in Japanese, Korean, Portuguese, Spanish, French and German. Nothing is read from a plan, an
 * offer, a guess, the agent narrating its steps or praising its work.
 */
import { LIMITS } from '../model/limits.js';
import { chosenAfter, firstEntity, stackIs, technologyIn, type FormReading, type KnowledgeReading } from './knowledge-forms.js';
import { foundWhereKept } from './places.js';

/** An agent's lesson: a failure, and its cause or its fix, in one sentence. */
const FAILURE =
  /\b(?:error|errors|fail(?:s|ed|ing|ure)?|crash(?:es|ed)?|exception|bug|broke|broken|conflict(?:s|ing)?|issue|problem|regression|panic|missing|(?:is|are|was|were)n't working|(?:does|do|did)n't work)\b/i;
const CAUSE_OR_FIX =
  /\b(?:because|due to|caused by|root cause|the (?:cause|reason) (?:is|was)|the (?:issue|problem|error|bug|culprit) (?:is|was)(?!\s+(?:now\s+|still\s+|also\s+)?(?:fixed|resolved|solved|gone|addressed|back|here|there)\b)|(?<!what(?:'s| is| was| might be| could be) )caus(?:es|ed|ing)|(?:fails?|failing|breaks?|crash(?:es)?|throws?) (?:when|whenever|if|because)|the fix (?:is|was)|fixed (?:it |this |the \w+ )?by|resolved (?:it |this )?by|solved (?:it |this )?by|comes from|stems from)\b/i;
/** A cause named as the cause, the failure said before it: "The root cause is that the working directory … is not a git repository". */
const ROOT_CAUSE = /^(?:the\s+)?(?:root|underlying|real|actual)\s+cause(?:\s+(?:is|was)(?:\s+that)?|\s*:)\s+\S/i;
/** The fix that worked, said as such: a lesson even when the failure was named in another sentence. */
const FIX =
  /\bthe (?:fix|solution|workaround) (?:is|was)\b(?!\s+(?:now\s+)?(?:working|in place|done|applied|complete|deployed|live|successful)\b)/i;
const NEGATED_CAUSE = /\bnot (?:caused by|due to|because)\b/i;
/**
 * A cause and what it led to in one sentence: something missing or bypassed, "so" the fix made or
 * the failure seen ("X doesn't exist in Y, so I've replaced it with Z"; "X bypasses Y, so Z isn't …").
 */
const CAUSE_SO =
  /\b(?:doesn't|does not|don't|isn't|is not|aren't|wasn't|weren't|can't|cannot|missing|not (?:found|registered|defined|installed|exported|set)|bypass(?:es|ed)?|skips|ignores)\b[^.;]{0,160}?,?\s+so\s+(?:(?:i|we)(?:'ve| have)?\s+(?:replaced|changed|switched|updated|added|removed|renamed|moved|pinned|wrapped)\b|[^.;]{0,80}\b(?:isn't|aren't|doesn't|don't|won't|can't|couldn't|wasn't|weren't|didn't|fails?|failed|breaks?|broke|crash(?:es|ed)?)\b)/i;
/** An agent's durable fact about the project: "the project uses X", "X is written in Y". */
const PROJECT_FACT =
  /\b(?:the|this|our|your) (?:project|app|application|repo|repository|codebase|backend|frontend|server|service|site|library|package) (?:uses|is built (?:with|on)|is written in|runs on|depends on|is configured (?:with|to))\s+/i;
/** A line of the project's stack as an agent lists it: "Vitest for testing", "Vite as the build tool" (its head a known technology). */
const STACK_LINE =
  /^(?:[A-Z][\w ]{1,30}:\s+)?([A-Z][\w.+#/-]*(?:\s[A-Z0-9][\w.+#/-]*){0,3})(?:\s\([^)]*\))?\s+(?:(?:for|as)\s+(?:the\s+)?[a-z]|[-—–]\s+[A-Za-z])[\w\s/&-]{2,40}\.?$/;
/** The name is a technology's, however written ("React.js", "Drizzle ORM"), not a phrase that holds one. */
const isTechnologyName = (name: string): boolean => name.toLowerCase().startsWith(technologyIn(name)?.toLowerCase() ?? '\u0000');
/** A plan or an offer, not a finding: "I'll fix", "let me", "next I will", "… if you want to increment the version". */
const PLAN =
  /\b(?:i'll|i will|let me|let's|i'm going to|i am going to|we'll|we will|shall i|do you want|if you(?:'d| would)? (?:want|like|wish))\b/i;

/** An agent's narration runs its steps together at colons: "Let me run this test: The issue is that …" is two. */
export function steps(s: string): string[] {
  const out: string[] = [];
  for (const part of s.split(/(?<=:)\s+(?=\p{Lu}\p{Ll})/u)) {
    const last = out.at(-1);
    if (last !== undefined && !PLAN.test(last)) out[out.length - 1] = `${last} ${part}`;
    else out.push(part);
  }
  return out;
}

/** What a state led to, said after it: "Your Site URL is still `localhost:3000` … So on a real device the verify link breaks." */
const SO_FAILS =
  /^so\b(?!\s+(?:far|now|yes|no)\b).{0,160}\b(?:breaks?|fails?|crash(?:es)?|errors? out|stops? working|(?:does|do|did|is|are|was|were)n't work(?:ing)?)\b/i;

/** An agent's sentence saying what the one before it (no item itself) led to, read as one lesson with it. */
export function consequence(before: string, s: string): KnowledgeReading | undefined {
  if (!SO_FAILS.test(s) || PLAN.test(s) || PLAN.test(before)) return undefined;
  const statement = `${before} ${s}`;
  return statement.length <= LIMITS.knowledgeSentenceChars ? { kind: 'lesson', statement, subject: firstEntity(statement) } : undefined;
}

/**
 * An agent narrating its own steps: "Implementing fixes: reviewing …", "Exploring the codebase …, then
 * adding failing tests"; not a label whose first word describes ("Missing `id` transformation: …").
 */
const NARRATED =
  /^(?!(?:Missing|Failing|Existing|Remaining|Pending|Outstanding|Breaking|Following|Using|Working|Matching|Corresponding)\b)\p{Lu}\p{Ll}+ing\b[^:.]{0,80}?(?::\s|,?\s+then\s+\p{Ll}+ing\b)/u;

/** An agent praising a tool or its own work ("… is a powerful tool for …", "The solution is elegant"): no fact. */
const PRAISED =
  /\b(?:is|are|was|were|'s)\s+(?:now\s+)?(?:an?\s+)?(?:very\s+|really\s+|truly\s+|so\s+)?(?:powerful|perfect|elegant|excellent|amazing|awesome|fantastic|beautiful|great|brilliant|ideal)\b/i;

const HEDGED = /\b(?:might|could|would|should|may|probably|likely|possibly)\b/i;

/** A lesson or a durable project fact stated by an agent, or nothing. */
export function agentItem(s: string): KnowledgeReading | undefined {
  if (
    PLAN.test(s) ||
    NARRATED.test(s) ||
    PRAISED.test(s) ||
    /^(?:if|when|maybe|perhaps)\b/i.test(s) ||
    // A guess hedges; a quoted error ("`Could not find the table`") or what could not happen does not.
    HEDGED.test(s.replace(/`[^`]*`/g, ' ').replace(/\bcould(?:n't| not)\b/gi, ' '))
  )
    return undefined;
  // A sentence ending in a colon introduces what follows ("Here are the changes causing the issue:"): it says nothing itself.
  const lesson = (FAILURE.test(s) && CAUSE_OR_FIX.test(s)) || FIX.test(s) || CAUSE_SO.test(s) || ROOT_CAUSE.test(s);
  if (lesson && !NEGATED_CAUSE.test(s) && !/:$/.test(s)) return { kind: 'lesson', statement: s, subject: firstEntity(s) };
  const stack = s.match(STACK_LINE);
  if (stack && isTechnologyName(stack[1]!)) return { kind: 'fact', statement: s, subject: stack[1], object: stack[1] };
  if (PROJECT_FACT.test(s)) {
    const what = chosenAfter(s, PROJECT_FACT);
    if (what) return { kind: 'fact', statement: s, subject: what, object: what };
  }
  const form = agentForm(s);
  return form && { kind: form.kind, statement: s, subject: form.subject ?? firstEntity(s) };
}

/** A command as an agent writes one in a code span: a runner or a script path, environment settings before it. */
const COMMAND =
  /`((?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:npm|pnpm|yarn|bun|bunx|npx|node|deno|python3?|pip3?|pytest|uv|poetry|tox|cargo|go|make|cmake|gradle|\.\/gradlew|mvn|dotnet|docker|docker-compose|podman|bundle|rake|rails|php|composer|mix|flutter|swift|xcodebuild|just|\.{1,2}\/[\w./-]+)(?:\s[^`]*)?)`/;
/** What a command is said to do that outlasts the turn: how to build, run, test, start, lint or install. */
const HOW_TO =
  /\b(?:build|builds|building|run|runs|test|tests|testing|start|starts|startup|lint|linting|install|deploy|serve|dev|format|typecheck|launch|command|commands|entry point)\b/i;
/** A report of work done, not how to do it: "I ran ...", "Improved help texts for the `bundle` command". */
const ONE_RUN = /\b(?:[Ii]|[Ww]e)\s+(?:ran|re-?ran|executed|tried|added|updated|improved|changed|fixed)\b|^[A-Z][a-z]+ed\b/;
/** A correction of a fact: "the proxy port is 10808, not 7890"; "需要输入 vibelife 的密码，不是 aiscend 的". */
const CORRECTION =
  /\b(?:is|are|uses|needs|requires|runs on|listens on)\s+[^,;]{1,60},\s*not\s+\S|(?:是|为|需要|要用|用).{1,40}[，,]\s*(?:而)?不是/i;
/** Where a setting or an entry lives: "OPK_DEBUG is an environment variable the app reads at startup". */
const SETTING =
  /^`?([\w./-]{2,60})`?\s+(?:is|are)\s+(?:an?|the)\s+(?:environment variables?|env vars?|config(?:uration)? files?|entry points?|build scripts?|start scripts?)\b/i;
/** The fix that worked, said as what did it: "forcing xcb ... fixes the immediate exit". */
const FIXED_BY =
  /^(?:\w+\s*[,—–-]+\s*)?(?!(?:nothing|something|anything|everything|thing|string|during|including|according|regarding|considering|following|bring)\b)[A-Za-z][a-z]+ing\b.{0,160}?\b(?:fixes|resolves|solves|prevents|avoids)\b/i;
/** A cause confirmed: "that confirms it was a Qt platform plugin issue". */
const CONFIRMED_CAUSE = /\b(?:confirms|confirmed|shows|showed|means)\s+(?:that\s+)?(?:it|this|the \w+)\s+(?:was|is)\s+(?:a|an|the)\b/i;
/** A failure and its cause in Chinese: "错误在 X 文件中", "无法访问 ..., 所以 ...". */
const FAILURE_ZH = /错误|报错|失败|异常|无法|不能|出错|崩溃|问题/u;
const CAUSE_ZH = /因为|由于|原因|所以|导致|(?:错误|问题)(?:在|出在|是)/u;
/**
 * A failure and its cause or fix in the other languages of agents' replies: Japanese, Korean,
 * Portuguese, Spanish, French and German ("O problema era X, o que quebrava Y"; "修正済みなので、X で回避できます").
 */
const FAILURE_OTHER =
  /エラー|失敗|不具合|バグ|問題|壊れ|破損|오류|에러|실패|문제|버그|(?<!\p{L})(?:erro|falha|problema|bug|exceção|quebra(?:va)?|error|fallo|falla|excepción|erreur|échec|problème|plant(?:e|ait)|fehler|problem|absturz)(?!\p{L})/iu;
const CAUSE_OTHER =
  /ので|ため|原因|修正|回避|解決|때문|원인|수정|해결|(?<!\p{L})(?:porque|devido a|causa(?:do|da)? por|o que|corrigi(?:do|da)?|resolvi(?:do|da)?|debido a|causado por|corregido|solucionado|parce que|à cause de|causé par|corrigé|résolu|weil|wegen|verursacht|behoben|gelöst)(?!\p{L})/iu;

/**
 * What does not go together, and what a step broke or lacks: "Node 18 is too old for create-vite@9", "X isn't
 * compatible with Y", "Jest hoists `jest.mock` above …, which breaks the mock factory", "The `tsconfig.json` is
 * missing the `baseUrl` … required for the `@` alias to work".
 */
const MISMATCH = [
  /\b(?:is|are)\s+too\s+(?:old|new)\s+for\b|\b(?:is|are)(?:n't|\s+not)\s+compatible\s+with\b|\bincompatible\s+with\b/i,
  /,\s*which\s+(?:breaks|broke|crashes|crashed|prevents|prevented)\b/i,
  /\b(?:is|are)\s+missing\b.{0,120}\b(?:required|needed)\s+(?:for|by)\b/i,
];

/** A lesson or a durable fact stated by an agent in one of these forms, or nothing. */
function agentForm(s: string): FormReading | undefined {
  if (
    FIXED_BY.test(s) ||
    MISMATCH.some((re) => re.test(s)) ||
    (CONFIRMED_CAUSE.test(s) && FAILURE.test(s)) ||
    (FAILURE_ZH.test(s) && CAUSE_ZH.test(s)) ||
    (FAILURE_OTHER.test(s) && CAUSE_OTHER.test(s))
  )
    return { kind: 'lesson' };
  const command = s.match(COMMAND);
  if (command && HOW_TO.test(s) && !ONE_RUN.test(s)) {
    const runner = command[1]!.replace(/^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*/, '').split(/\s/)[0];
    return { kind: 'fact', ...(runner ? { subject: runner } : {}) };
  }
  const setting = s.match(SETTING)?.[1] ?? stackIs(s);
  if (setting) return { kind: 'fact', subject: setting };
  if (CORRECTION.test(s)) return { kind: 'fact' };
  return foundWhereKept(s) ? { kind: 'fact' } : undefined;
}

/** A sentence that says what the one before it shows: "This suggests there are requests that never finish". */
const EXPLAINS =
  /^(?:this|that|which)\s+(?:suggests|means|indicates|implies|explains|is because|happens because|is why)\b|^that's why\b|^(?:since|without (?:it|this|that|them))\b[^.]*\b(?:couldn't|could not|can't|cannot|wasn't|didn't|fell back|falling back|unable)\b/i;

/** A sentence that goes on with a lesson: names a failure, a cause or a fix, or explains it (joined to the lesson before it). */
export function lessonGoesOn(s: string): boolean {
  return (
    EXPLAINS.test(s) ||
    FAILURE.test(s) ||
    CAUSE_OR_FIX.test(s) ||
    FIXED_BY.test(s) ||
    FAILURE_ZH.test(s) ||
    CAUSE_ZH.test(s) ||
    FAILURE_OTHER.test(s) ||
    CAUSE_OTHER.test(s)
  );
}
