/**
 * The words that make a memory file's sentence an instruction, a decision or a heading of lessons,
 * preferences or decisions, in the languages people write their agents' files in besides English
 * (English lives in memory-file-items.ts with its verb list). A small set per language, taken from
 * how each language instructs, not from any one file:
 *
 * - zh: 请, 必须/务必/须, 应(该/当), 要 as a modal (not 重要, 主要, 要求…), 不要/别/勿/不许/不准/不得/
 *   不能/不可/禁止/严禁/避免, 始终/总是/一律/永远, 只(能/需/用), 优先, 尽量, 确保, 统一, 遵循/遵守;
 * - ja: ください, a closing こと (…すること: the written imperative), べき, なければならない,
 *   てはいけない/てはならない, しないで, 禁止, 必ず, 常に, 絶対, 避け…, ように;
 * - ko: 하세요/주세요/하십시오/십시오, 해야 (한다/합니다), 하지 마, 말 것, 금지, 항상, 절대, 반드시;
 * - pt, es, fr, de: modal verbs (deve, debe, doit/devez, muss/soll), "always/never" (sempre/nunca,
 *   siempre/nunca, toujours/jamais, immer/nie) and prohibitions (proibido, prohibido, interdit,
 *   verboten), plus the commonest verbs an instruction opens with, in the forms used to instruct
 *   (Use/Utilize, Usa/Utiliza, Utilisez, Verwende/Verwenden Sie…).
 * Limits: a statement written in a language's plain indicative ("我们用 X") is not an instruction
 * here; it is a fact in a list and prose in a paragraph.
 */

/** Instruction markers found anywhere in a sentence (scripts without spaces between words need no word boundary). */
const CJK_RULE = new RegExp(
  [
    // zh
    '请',
    '必须',
    '务必',
    '应该',
    '应当',
    '(?<![主重需只概摘纲])要(?![求是点素])',
    '不要',
    '不许',
    '不准',
    '不得',
    '不能',
    '不可',
    '禁止',
    '严禁',
    '切勿',
    '避免',
    '始终',
    '总是',
    '一律',
    '永远',
    '只(?:能|需|用|修改|使用)',
    '优先',
    '尽量',
    '确保',
    '统一',
    '遵循',
    '遵守',
    // ja
    'ください',
    'こと[。.]?$',
    'べき',
    'なければ(?:ならない|なりません)',
    'て(?:は|も)?(?:いけない|いけません|ならない|なりません)',
    'しないで',
    '必ず',
    '常に',
    '絶対',
    '避け',
    'ように(?:する|して|します)',
    // ko
    '(?:하세요|주세요|하십시오|십시오)',
    '해야\\s*(?:한다|합니다|함)',
    '하지\\s*(?:마|말)',
    '말\\s*것',
    '금지',
    '항상',
    '절대',
    '반드시',
  ].join('|'),
  'u',
);

/** Modal words of the Latin-script languages, as whole words. */
const LATIN_RULE =
  /(?<![\p{L}])(?:sempre|nunca|jamais|deve(?:m|rá|rão)?|precisa(?:m)? (?:ser|de)|é (?:necessário|obrigatório|proibido)|proibido|obrigatório|evite|siempre|debe(?:s|n|rá|rán)?|hay que|tiene(?:s|n)? que|es (?:necesario|obligatorio)|prohibido|obligatorio|evita|asegúrate|toujours|doi(?:t|s|vent)|devez|il faut|interdit|obligatoire|évite[zr]?|veillez|assurez-vous|immer|niemals|nie|muss|müssen|musst|soll(?:te|ten|st)?|darf nicht|dürfen nicht|verboten|vermeide[n]?|stelle sicher|achte darauf)(?![\p{L}])/iu;

/** Verbs an instruction opens with, in their instructing forms (pt/es/fr/de). */
const OPENING_VERBS = new Set(
  // pt
  (
    'use utilize mantenha adicione crie execute escreva siga prefira verifique garanta evite faça teste documente valide ' +
    'coloque remova atualize ' +
    // es
    'usa utiliza mantén mantener añade crea ejecuta escribe sigue prefiere verifica asegura evita haz prueba documenta ' +
    'valida coloca elimina actualiza ' +
    // fr
    'utilisez utilise gardez ajoutez créez exécutez écrivez suivez préférez vérifiez évitez faites testez documentez ' +
    'validez placez supprimez mettez ' +
    // de
    'verwende verwenden nutze nutzen benutze benutzen halte füge erstelle führe schreibe folge bevorzuge prüfe ' +
    'vermeide teste dokumentiere bitte'
  ).split(' '),
);

/** Headings of lessons, decisions and preferences in these languages. */
export const LESSON_HEADING_OTHER =
  /经验|教训|踩坑|注意事项|常见问题|教訓|学び|注意点|ハマり|트러블슈팅|교훈|lições|aprendizados?|lecciones|aprendizajes|leçons|enseignements|lektionen|erkenntnisse|stolperfallen/iu;
export const DECISION_HEADING_OTHER = /决定|决策|決定|決定事項|결정|decisões|decisiones|décisions|entscheidungen/iu;
export const PREFERENCE_HEADING_OTHER = /偏好|喜好|好み|선호|preferências|preferencias|préférences|präferenzen|vorlieben/iu;
/** Headings that set out what must be done: "命名约定", "硬性要求", "コーディング規約", "Regras", "Convenciones". */
export const RULES_HEADING_OTHER =
  /规则|规范|约定|要求|约束|原则|准则|边界|規則|規約|規範|ルール|制約|要件|原則|ガイドライン|규칙|규약|원칙|regras|convenções|requisitos|diretrizes|reglas|convenciones|directrices|règles|exigences|regeln|konventionen|richtlinien/iu;

/** Whether a sentence instructs in one of these languages (see above). */
export function instructsOther(body: string): boolean {
  if (CJK_RULE.test(body) || LATIN_RULE.test(body)) return true;
  const first = body
    .replace(/^[`'"¡¿]+/, '')
    .split(/\s+/)[0]
    ?.replace(/[^\p{L}-]/gu, '')
    .toLowerCase();
  return first !== undefined && OPENING_VERBS.has(first);
}

/** A heading or lead-in that forbids what its items name ("DO NOT:", "What NOT to Do", "Avoid"), not one of both ("Do's and Don'ts"). */
const FORBIDS =
  /^(?:do not|don'?t|don'?ts|never|avoid|must not|prohibited|forbidden|not allowed|anti-?patterns?)(?![\p{L}'])|\bnot to do\b|^(?:禁止|不要|不允许|してはいけない)/iu;
const BOTH = /\bdo'?s\b|\band don'?t/i;
/** An item that says its own negation first ("Do not add …", "Never run …"). */
const SAYS_NOT = /^(?:do not|don'?t|never|no|not|avoid|must not|不要|禁止|别)(?![\p{L}'])/iu;

/**
 * An item as its heading or lead-in makes it: under "DO NOT:" it names what is forbidden, so it is
 * said with the heading's words before it ("DO NOT: Commit secrets"); otherwise as written.
 */
export function underHeading(item: string, heading: string | undefined): string {
  const h = heading
    ?.replace(/[*_`]/g, '')
    .replace(/^#+\s*/, '')
    .replace(/[:：\s]+$/, '');
  const straight = (t: string): string => t.replace(/[\u2018\u2019]/g, "'");
  return h && FORBIDS.test(straight(h)) && !BOTH.test(straight(h)) && !SAYS_NOT.test(straight(item.trim())) ? `${h}: ${item}` : item;
}
