/**
 * How a person states a rule or a choice to an agent in the languages besides English, for
 * knowledge-read.ts. The same two forms as in English, taken from each language's grammar, not
 * from any one transcript:
 *
 * - a rule is what outlasts the task: "always", "never", "from now on", a prohibition, or an
 *   imperative in the negative opening the sentence (es "no uses…", fr "n'utilise jamais…", de
 *   "verwende nie…", it "non usare…");
 * - a choice is said in the first person plural ("usaremos X", "on utilise X", "wir verwenden X",
 *   "…, verwenden wir X") or, in Japanese, Chinese and Korean, as the object of "use" ("X を使います",
 *   "使用 X", "X를 사용").
 *
 * An imperative before "always" is one of a language's common instructing verbs ("responde siempre",
 * "antworte immer"): with the subject dropped, "falla siempre" (it always fails) describes.
 *
 * A memory file's instructions are read by the broader markers of instruction-markers.ts (modal
 * verbs too: "debe", "muss"); in a turn those as often specify this task, so they are not read here.
 *
 * A plain imperative ("usa X", "verwende X") is not read as a choice, though English reads "use X"
 * opening a sentence: no transcript here shows how often it is a task's step in these languages.
 */

/** Rules: the markers that outlast a task, per language. */
const RULES: readonly RegExp[] = [
  // ja
  /(?:必ず|絶対に|常に|今後は|これからは|しないでください|禁止|してはいけません)|毎回.{0,30}?(?:ないで|ないように|ください|してほしい)/u,
  // zh
  /^(?:请)?(?:必须|一定要|总是|始终|永远不要|不要|禁止)|以后都|今后/u,
  // ko: always, never, from now on, forbidden, "don't …"
  /(?:항상|절대|앞으로는|앞으로\s|금지|하지\s*마(?:세요|십시오|라)?|지\s*마세요|말아\s*주세요)/u,
  // pt
  /^(?:por favor,?\s+)?(?:sempre|nunca|não)\s+(?:use|usar|faça|fazer|coloque|mude|altere|crie|escreva|apague|remova)\b|\ba partir de agora\b|\bproibido\b/i,
  // es
  /^(?:por favor,?\s+)?(?:siempre\s+(?!que(?!\p{L}))\p{L}+|(?:usa|utiliza|responde|contesta|escribe|mantén|pon|haz|añade|agrega|incluye|revisa|comprueba|verifica|ejecuta|documenta|comenta|sigue|evita|prioriza)\s+siempre|nunca\s+\p{L}+(?:es|as|ar|er|ir)|no\s+(?:uses|utilices|hagas|pongas|cambies|modifiques|crees|escribas|borres|elimines|toques|añadas|agregues|instales|subas|publiques))(?!\p{L})|(?<!\p{L})(?:a partir de ahora|de ahora en adelante|desde ahora)(?!\p{L})|(?<!\p{L})(?:está\s+)?prohibido(?!\p{L})/iu,
  // fr
  /^(?:merci de\s+|s'il te plaît,?\s+|stp,?\s+)?(?:toujours\s+\p{L}+(?:er|ir|re|ez)|jamais\s+\p{L}+(?:er|ir|re)|(?:ne\s+|n')\p{L}+\s+(?:jamais|pas|plus)(?!\p{L})|ne\s+(?:jamais|pas|plus)\s+\p{L}+(?:er|ir|re)(?!\p{L})|(?:utilise|réponds|écris|mets|ajoute|vérifie|teste|suis|garde|privilégie|commente|documente|respecte)(?:z|s)?\s+toujours(?!\p{L}))|(?<!\p{L})(?:à partir de maintenant|désormais|dorénavant)(?!\p{L})|(?<!\p{L})(?:est\s+)?interdit(?!\p{L})/iu,
  // de
  /^(?:bitte\s+)?(?:immer|nie|niemals)(?!\p{L})(?!\s+(?:noch|wieder|mehr)(?!\p{L}))|^(?:bitte\s+)?(?:verwende|benutze|nutze|schreibe|antworte|halte|füge|prüfe|teste|dokumentiere|kommentiere|vermeide|achte|nimm|gib|lass|mach|mache|committe|formatiere|führe|ändere|lösche)\s+(?:\p{L}+\s+)?(?:immer|nie|niemals|keine?n?)(?!\p{L})|^(?:du|ihr|wir)\s+(?!(?:bist|seid|sind|warst|hast|habt|haben|hattest)\s)\p{L}+(?:st|t|en)\s+(?:immer|nie|niemals)(?!\p{L})|(?<!\p{L})(?:ab jetzt|von nun an|ab sofort|künftig|in zukunft)(?!\p{L})|(?<!\p{L})verboten(?!\p{L})|(?<!\p{L})(?:du|ihr|wir)\s+(?:musst|müsst|müssen|sollst|sollt|sollen|darfst|dürft|dürfen)\s+(?:immer|nie|niemals|nicht|keine?n?)(?!\p{L})/iu,
  // es, pt, fr, it: "must" / "should" with a verb after it, as English's "X must Y"; not "should work" (an expectation)
  /(?<!\p{L})(?:(?:se\s+)?(?:debe|deben|debería|deberían)\s+(?!de\s|funcionar|ir\s|andar|quedar|haber|ser\s+(?:posible|fácil))\p{L}+(?:ar|er|ir)|(?:deve|devem|deveria|deveriam)\s+(?!funcionar|ser\s+possível|haver)\p{L}+(?:ar|er|ir)|(?:doit|doivent|devrait|devraient)\s+(?!fonctionner|marcher|être\s+possible)\p{L}+(?:er|ir|re)|(?:devono|dovrebbe|dovrebbero)\s+(?!funzionare|essere\s+possibile)\p{L}+(?:are|ere|ire))(?!\p{L})/iu,
  // "remember to …": pt, es, fr, de, it, ja, zh
  /(?<!\p{L})(?:lembre-se de|lembra de|não esqueça de|recuerda|no olvides|n'oublie pas de|pense à|denk daran|vergiss nicht|ricorda(?:ti)? di|non dimenticare di)\s+\p{L}+|忘れずに|记得要?|别忘了/iu,
  // "whenever I ask you …": a standing instruction for every request; pt, es, fr, it, de
  /^(?:quando|sempre que|toda vez que|cada vez que)\s+(?:eu\s+)?(?:te|lhe|vos)\s+(?:pedir|solicitar)(?!\p{L})|^(?:cuando|siempre que|cada vez que)\s+te\s+(?:pida|pido|solicite)(?!\p{L})|^(?:quand|lorsque|chaque fois que|à chaque fois que)\s+je\s+(?:te|vous)\s+demande(?!\p{L})|^(?:quando|ogni volta che)\s+ti\s+chiedo(?!\p{L})|^(?:immer\s+)?wenn\s+ich\s+dich\s+(?:\p{L}+\s+)?(?:bitte|frage)(?!\p{L})/iu,
  // it
  /^(?:per favore,?\s+)?(?:sempre\s+\p{L}+(?:are|ere|ire)|(?:usa|rispondi|scrivi|metti|aggiungi|includi|controlla|verifica|esegui|segui|evita|documenta|commenta)\s+sempre(?!\p{L})|mai\s+\p{L}+(?:are|ere|ire)|non\s+(?:usare|utilizzare|modificare|scrivere|cancellare|aggiungere|toccare|installare|creare))(?!\p{L})|(?<!\p{L})(?:d'ora in poi|da ora in poi|d'ora in avanti)(?!\p{L})|(?<!\p{L})vietato(?!\p{L})/iu,
];

/** A rule stated in a language other than English (see RULES). */
export const statesRuleOther = (s: string): boolean => RULES.some((re) => re.test(s));

/**
 * Choices said in the first person plural, in the Latin-script languages: the choice follows the
 * match; a bare imperative is not one (see the file's comment).
 */
const CHOICE_LATIN =
  /(?<!\p{L})(?:vamos usar|vamos com|vamos (?:mudar|trocar) para|usaremos|usamos|vamos a (?:usar|utilizar)|utilizaremos|utilizamos|on (?:va )?utilise[r]?|nous utilis(?:ons|erons)|utilisons|on part sur|on passe à|passons à|wir (?:verwenden|nutzen|benutzen|nehmen|setzen auf)|(?:verwenden|nutzen|benutzen|nehmen) wir|setzen wir auf|wir wechseln (?:zu|auf)|usiamo|useremo|utilizziamo|utilizzeremo|passiamo a)\s+/iu;

/** The part of a sentence after a first-person-plural choice, or undefined. */
export function choiceOtherLatin(s: string): string | undefined {
  const m = s.match(CHOICE_LATIN);
  return m && m.index !== undefined ? s.slice(m.index + m[0].length) : undefined;
}

/** Japanese: "データベースは Supabase を使います" (the database: we use Supabase). */
const CHOICE_JA =
  /^(?:(.{1,16}?)[はも]、?\s*)?(.{1,60}?)\s*を(?:使います|使う|使用します|使用する|採用します|採用する|利用します|使ってください)/u;
/** Chinese: "数据库使用 Firebase", "改用 X", "统一用 X". */
const CHOICE_ZH = /^(?:(.{1,12}?)(?:统一|就|都)?)(?:使用|改用|采用|选用|统一用)\s*(.{1,60}?)(?:[，。,.]|$)/u;
/** Korean: "데이터베이스는 Supabase를 사용합니다" (the database: we use Supabase). */
const CHOICE_KO =
  /^(?:(.{1,16}?)[은는]\s*)?(.{1,60}?)\s*(?:을|를|로|으로)\s*(?:사용(?:합니다|하세요|할게요|하겠습니다|해\s*주세요)|쓰(?:겠습니다|세요|자)|채택)/u;

/** A choice in Japanese, Chinese or Korean: its topic when it opens with one, and what is chosen. */
export function choiceOtherCjk(s: string): { topic?: string; choice: string } | undefined {
  const m = s.match(CHOICE_JA) ?? s.match(CHOICE_ZH) ?? s.match(CHOICE_KO);
  return m ? { ...(m[1] ? { topic: m[1] } : {}), choice: m[2]! } : undefined;
}

/**
 * What the person wants of the work, as English's "I want the script to be minimal": pt "quero que
 * o parquet seja salvo no storage", es "quiero que las funciones estén en …", fr "je veux que …",
 * de "ich möchte, dass …", it "voglio che …": a thing named after "que" (not "quero que você faça …",
 * "quero que foque …": the agent asked to do a task).
 */
const WANTED_OTHER =
  /(?:^|[,;]\s+|(?<!\p{L})(?:também|e|mas|y|pero|también|et|mais|und|aber|ma)\s+)(?:eu\s+|yo\s+)?(?:quero|queria|preciso|gostaria|quiero|quisiera|necesito|me gustaría|je veux|je voudrais|j'aimerais|ich (?:möchte|will|hätte gern),?|voglio|vorrei)\s+(?:que|dass|che)\s+(?:o|a|os|as|ao|aos|um|uma|esse|essa|este|esta|todo|toda|todos|todas|cada|el|la|los|las|al|un|una|le|les|der|die|das|den|il|lo|gli|l')(?!\p{L})/iu;

/**
 * The same in Japanese: the state wanted of the work ("基本的にはリモートとの差分がない状態にしたい",
 * "spec は PR にしたい"), or asked to be made so ("規約を守るようにしてほしい"); not "テストしたい" (a task).
 */
const WANTED_JA = /(?:ように|状態に|形に)(?:したい|してほしい|して欲しい|してください)|にしたい(?:です)?[。.]?$/u;

/** A wish for the work said in a language other than English (see WANTED_OTHER, WANTED_JA). */
export const wantedOther = (s: string): boolean => WANTED_OTHER.test(s) || WANTED_JA.test(s);
