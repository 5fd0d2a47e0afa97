/**
 * The LoCoMo conversation format (snap-research/locomo): a list of samples, each
 * `{ sample_id, conversation: { speaker_a, speaker_b, session_N: turns[], session_N_date_time }, qa }`
 * with turns `{ speaker, dia_id: "D<session>:<turn>", text, blip_caption? }`.
 * Each turn becomes one episode; the questions come along so a benchmark can score retrieval.
 */
import type { EpisodeInput } from '../model/events.js';

export interface LocomoQuestion {
  question: string;
  answer: string;
  /** dia_ids of the turns that hold the answer, normalised, and only ids of turns that exist. */
  evidence: string[];
  /** 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial (no answer exists). */
  category: number;
}

export interface LocomoConversation {
  id: string;
  speakers: string[];
  episodes: EpisodeInput[];
  qa: LocomoQuestion[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const SESSION_KEY = /^session_(\d+)$/;

/** True when the JSON looks like LoCoMo: one sample or a list of samples with a `conversation` of sessions. */
export function isLocomo(json: unknown): boolean {
  const samples = Array.isArray(json) ? json : [json];
  return (
    samples.length > 0 &&
    samples.every(
      (s) =>
        isObj(s) &&
        isObj(s.conversation) &&
        typeof s.conversation.speaker_a === 'string' &&
        Object.entries(s.conversation).some(([k, v]) => SESSION_KEY.test(k) && Array.isArray(v)),
    )
  );
}

/** Parses LoCoMo JSON into conversations; `source` (usually the file name) is stamped on every episode. */
export function parseLocomo(json: unknown, source: string): LocomoConversation[] {
  if (!isLocomo(json)) throw new Error(`${source} is not in the LoCoMo format (samples with a "conversation" of session_N turns).`);
  const samples = (Array.isArray(json) ? json : [json]) as Obj[];
  return samples.map((sample, i) => parseSample(sample, source, i));
}

function parseSample(sample: Obj, source: string, index: number): LocomoConversation {
  const conv = sample.conversation as Obj;
  const id = typeof sample.sample_id === 'string' ? sample.sample_id : `conv-${index + 1}`;
  const sessions = Object.keys(conv)
    .map((k) => SESSION_KEY.exec(k))
    .filter((m): m is RegExpExecArray => m !== null && Array.isArray(conv[m[0]]))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const episodes: EpisodeInput[] = [];
  for (const n of sessions) {
    const dateText = conv[`session_${n}_date_time`];
    const time = typeof dateText === 'string' ? parseLocomoDate(dateText) : undefined;
    for (const turn of conv[`session_${n}`] as unknown[]) {
      if (!isObj(turn) || typeof turn.text !== 'string') continue;
      const speaker = typeof turn.speaker === 'string' ? turn.speaker : undefined;
      // The photo itself is gone; its caption is the only trace of what was shown.
      const caption =
        typeof turn.blip_caption === 'string' && turn.blip_caption.trim() ? ` [shares a photo: ${turn.blip_caption.trim()}]` : '';
      const text = (turn.text.trim() + caption).trim();
      if (!text) continue;
      episodes.push({
        text,
        speaker,
        session: `${id}:session_${n}`,
        ref: typeof turn.dia_id === 'string' ? (normaliseDiaId(turn.dia_id) ?? turn.dia_id) : undefined,
        time,
        source,
        entities: speaker ? [speaker] : undefined,
      });
    }
  }
  const refs = new Set(episodes.map((e) => e.ref));
  const qa = (Array.isArray(sample.qa) ? sample.qa : []).filter(isObj).map((q): LocomoQuestion => ({
    question: String(q.question ?? ''),
    answer: String(q.answer ?? q.adversarial_answer ?? ''),
    evidence: [...new Set(evidenceIds(q.evidence).filter((e) => refs.has(e)))],
    category: Number(q.category),
  }));
  const speakers = [conv.speaker_a, conv.speaker_b].filter((s): s is string => typeof s === 'string');
  return { id, speakers, episodes, qa };
}

/** Evidence lists in the wild hold strays such as "D8:6; D9:17" or "D:11:26": split and normalise them. */
function evidenceIds(v: unknown): string[] {
  const items = Array.isArray(v) ? v : [];
  return items
    .flatMap((x) => String(x).split(/[;,\s]+/))
    .map(normaliseDiaId)
    .filter((x): x is string => x !== undefined);
}

function normaliseDiaId(s: string): string | undefined {
  const m = /^D:?(\d+):(\d+)$/i.exec(s.trim());
  return m ? `D${Number(m[1])}:${Number(m[2])}` : undefined;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" -> "2023-05-08T13:56:00.000Z" (no zone is given: read as UTC). */
export function parseLocomoDate(s: string): string | undefined {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i.exec(s.trim());
  if (!m) {
    const ms = Date.parse(s);
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
  }
  const month = MONTHS.findIndex((name) => name.startsWith(m[5]!.toLowerCase().slice(0, 3)));
  if (month < 0) return undefined;
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}
