/**
 * Names as people use them, learned from the conversation itself: in a session of two speakers,
 * a turn that opens by greeting or thanking someone by a name ("Hey Jo!", "Thanks, Mel.") or
 * ends a sentence with it ("See you Friday, Jo!") names the other speaker. That name becomes an
 * alias of the other speaker's entity, so "what does Jo like?" finds Joanna's turns. It is an
 * inference, not the person's word: stored at agent authority, and shown with the entity so a
 * person can see and correct it.
 */

export interface AliasTurn {
  text: string;
  speaker?: string;
  session?: string;
}

// Openings that put the name of the one spoken to right after them.
const OPENING =
  /^\s*(?:hey|hi|hiya|heya|hello|yo|morning|good (?:morning|afternoon|evening)|thanks|thank you|thx|ty|congrats|congratulations|aw+|wow|omg|oh|haha|lol|yeah|yes|sorry|dear|welcome back|happy birthday)[\s,!.]+(\p{Lu}[\p{L}'-]{1,30})(?=[\s]*[,!.?:;)]|\s*$|\s+[\p{Emoji_Presentation}\p{Extended_Pictographic}])/iu;
// A name ending a sentence after a comma ("See you Friday, Jo!"): capitalised mid-sentence, it is
// the one spoken to, not the start of a sentence.
const CLOSING = /,\s+(\p{Lu}[\p{L}'-]{1,30})(?=\s*(?:[!?.]|$))/gu;
// Words people address anyone by: not anyone's name.
const NOT_NAMES = new Set(
  (
    'there all everyone everybody guys folks team friend friends buddy bud dude man mate girl girls boys babe baby dear love honey sweetie ' +
    'sir madam ma am you so too much lot both for the it that this ' +
    // The openings themselves ("Wow, thanks!")
    'hey hi hiya heya hello yo morning thanks thank thx ty congrats congratulations wow omg oh haha lol yeah yes sorry welcome happy'
  ).split(' '),
);

/**
 * True when `called` shortens `name`: its start ("Jo" for Joanna), or a pet form of its start
 * ("Annie" for Anna, "Jonny" for Jonathan, "Joey" for Joseph: -ie, -y, -ey or -i after the start,
 * its last consonant doubled or not).
 */
export function shortens(name: string, called: string): boolean {
  const full = name.toLowerCase();
  const short = called.toLowerCase();
  if (full.startsWith(short)) return true;
  const start = /^(.+?)(?:ie|ey|y|i)$/.exec(short)?.[1];
  if (start === undefined) return false;
  // Undoubled, the start must keep three letters: "Annie" is not a pet form of Andrew.
  const single = start.replace(/([b-df-hj-np-tv-z])\1$/, '$1');
  return (start.length >= 2 && full.startsWith(start)) || (single !== start && single.length >= 3 && full.startsWith(single));
}

/**
 * Aliases by speaker: for each turn of a two-speaker session that opens or ends a sentence by
 * addressing someone by a name that is neither speaker's name nor a word of it, the other speaker gets that name, when
 * it shortens their name or is used so at least twice in these turns.
 * `speakersOf` gives a session's speakers (those stored before as well as these turns').
 */
export function learnAliases(turns: AliasTurn[], speakersOf: (session: string) => string[]): Map<string, Set<string>> {
  const learned = new Map<string, Set<string>>();
  const seen = new Map<string, number>();
  for (const turn of turns) {
    if (!turn.speaker || !turn.session) continue;
    const called = [OPENING.exec(turn.text)?.[1], ...[...turn.text.matchAll(CLOSING)].map((m) => m[1])];
    // Once per turn: a name both opening and closing a turn is one use.
    for (const found of new Set(called.flatMap((n) => (n ? [n.replace(/'s$/i, '')] : [])))) {
      // The opening matches in any case; a name is written capitalised.
      if (!/^\p{Lu}/u.test(found) || NOT_NAMES.has(found.toLowerCase())) continue;
      const speakers = speakersOf(turn.session);
      if (speakers.length !== 2 || !speakers.includes(turn.speaker)) continue;
      const other = speakers.find((s) => s !== turn.speaker)!;
      const own = (s: string): string[] => s.toLowerCase().split(/\s+/);
      if ([...own(other), ...own(turn.speaker), other.toLowerCase()].includes(found.toLowerCase())) continue;
      const key = `${other}\u0000${found}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      // Once is enough for a shortening of the name ("Jo" for Joanna); any other name must be used twice.
      if (!shortens(other, found) && seen.get(key)! < 2) continue;
      let names = learned.get(other);
      if (!names) learned.set(other, (names = new Set()));
      names.add(found);
    }
  }
  return learned;
}
