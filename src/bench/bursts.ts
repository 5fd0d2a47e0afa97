/**
 * LoCoMo as people type (`bench locomo --bursts`): in every other session each turn is sent as
 * its sentences, one message each, as people do in a chat ("omg" / "I got the job!" / "at the
 * museum") and as agents' transcripts split one answer into several messages. LoCoMo's own turns
 * always alternate speakers, so they never ask for a statement whose words are in the message
 * before it. A question's evidence becomes the messages of its evidence turns that share a word
 * with the answer, or all of a turn's messages when none does.
 */
import type { EpisodeInput } from '../core/model/events.js';
import type { LocomoConversation } from '../core/ingest/locomo.js';
import { STOP_WORDS, tokenize } from '../core/retrieval/text.js';

// A sentence ends at . ! or ? and the space after them; an ellipsis or "Dr." may split early, as a person's typing would.
const SENTENCE_END = /(?<=[.!?])\s+(?=\S)/;

export function splitTurns(conv: LocomoConversation): LocomoConversation {
  const sessions = [...new Set(conv.episodes.map((e) => e.session ?? ''))];
  const split = new Set(sessions.filter((_, i) => i % 2 === 0));
  const pieces = new Map<string, EpisodeInput[]>();
  const episodes = conv.episodes.flatMap((e): EpisodeInput[] => {
    const sentences = e.text.split(SENTENCE_END).filter((s) => s.trim());
    if (!split.has(e.session ?? '') || sentences.length < 2 || !e.ref) return [e];
    const messages = sentences.map((text, i) => ({ ...e, text, ref: `${e.ref}/${i + 1}` }));
    pieces.set(e.ref, messages);
    return messages;
  });
  const qa = conv.qa.map((q) => ({
    ...q,
    evidence: [
      ...new Set(
        q.evidence.flatMap((ev) => {
          const messages = pieces.get(ev);
          if (!messages) return [ev];
          const answering = messages.filter((m) => sharesWord(m.text, q.answer));
          return (answering.length > 0 ? answering : messages).map((m) => m.ref!);
        }),
      ),
    ],
  }));
  return { ...conv, episodes, qa };
}

function contentWords(text: string): string[] {
  return tokenize(text).filter((w) => w.length > 2 && !STOP_WORDS.has(w));
}

// "painted" answers "painting": words alike in their first five letters count as one.
function sharesWord(text: string, answer: string): boolean {
  const said = contentWords(text).map((w) => w.slice(0, 5));
  return contentWords(String(answer)).some((w) => said.includes(w.slice(0, 5)));
}
