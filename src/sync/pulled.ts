/**
 * A row pulled from the shared log, judged before anything of it is applied: signed by the member
 * it names, consistent with its own columns, each field of the event's shape, type and size (the
 * same bounds a local write is held to), times no later than now plus an allowed skew, and no
 * authority inside it above the event's own. A row that fails is quarantined with the reason.
 */
import { AUTHORITIES, authorityRank, PRIOR_KINDS, type Authority } from '../core/model/config.js';
import { CHECK_OUTCOMES, checkOf, type Check } from '../core/model/checks.js';
import { validAnchors, type CodeAnchor } from '../core/model/code-anchors.js';
import type { EventBody, MemoryEvent } from '../core/model/events.js';
import { ID_RE } from '../core/model/id-shape.js';
import { KNOWLEDGE_KINDS } from '../core/model/knowledge.js';
import { LIMITS, SYNC_LIMITS } from '../core/model/limits.js';
import { verifyRow } from './signing.js';

/** A row as the server holds it. */
export interface RawRow {
  id: number;
  origin: string;
  originSeq: number;
  author: string | null;
  authority: string;
  type: string;
  project: string | null;
  /** Null when the row is over the size limit (the server did not send it). */
  body: unknown;
  bytes: number;
  signature: string | null;
  digests: unknown;
}

export type Judged = { ok: true; event: MemoryEvent } | { ok: false; reason: string };

export interface Judge {
  /** The public key this memory trusts for an origin, or why it trusts none. */
  keyOf(origin: string, author: string): { key: string } | { reason: string };
  maxTextChars: number;
  /** Now, as this machine reads its clock: peers' times are clamped to it plus the allowed skew. */
  now: number;
}

class Bad extends Error {}
const fail = (why: string): never => {
  throw new Bad(why);
};

/** Authorities a turn or a reading of one may carry: a person's correction is an event's, never a turn's. */
const TURN_AUTHORITIES: readonly Authority[] = ['user', 'external', 'agent'];

export function judgeRow(row: RawRow, judge: Judge): Judged {
  try {
    return { ok: true, event: check(row, judge) };
  } catch (err) {
    if (err instanceof Bad) return { ok: false, reason: err.message };
    throw err;
  }
}

function check(row: RawRow, judge: Judge): MemoryEvent {
  if (row.body === null || row.bytes > SYNC_LIMITS.eventBytes)
    fail(`${row.bytes} bytes, over the ${SYNC_LIMITS.eventBytes}-byte limit of one event`);
  const body = obj(row.body, 'the event');
  if (!row.author) fail('no author');
  const trusted = judge.keyOf(row.origin, row.author!);
  if ('reason' in trusted) fail(trusted.reason);
  const signed = { origin: row.origin, originSeq: row.originSeq, author: row.author!, body };
  if (!verifyRow(signed, row.signature, row.digests, (trusted as { key: string }).key))
    fail(`its signature does not hold for ${row.author}'s key: not written by that member, or changed since`);
  const by = obj(body.by, 'by');
  const authority = oneOf(by.authority, AUTHORITIES, 'by.authority');
  if (by.author !== row.author) fail(`the event names author ${str(by.author, 'by.author')} but the row ${row.author}`);
  if (authority !== row.authority) fail(`the event claims authority ${authority} but the row ${row.authority}`);
  if (body.type !== row.type) fail(`the event is a ${String(body.type)} but the row a ${row.type}`);
  const at = clampTime(body.at, 'at', judge.now);
  // A request id means something only to the memory that wrote it; the connection's project is its own too.
  const source = optStr(by.source, 'by.source', LIMITS.sourceChars);
  const session = optStr(by.session, 'by.session', LIMITS.sessionChars);
  // seq is this memory's, given when the event is appended.
  const event: MemoryEvent = {
    ...checkBody(body, row.origin, authority, judge),
    seq: 0,
    at,
    by: { authority, author: row.author!, ...(source !== undefined ? { source } : {}), ...(session !== undefined ? { session } : {}) },
    origin: row.origin,
    originSeq: row.originSeq,
  };
  return event;
}

function checkBody(b: Record<string, unknown>, origin: string, authority: Authority, judge: Judge): EventBody {
  const human = (what: string): void => {
    if (authority !== 'human') fail(`${what} is a person's act, but the event is at ${authority} authority`);
  };
  const below = (a: Authority, what: string): Authority => {
    if (authorityRank(a) > authorityRank(authority)) fail(`${what} is at ${a} authority, above the event's own (${authority})`);
    return a;
  };
  switch (b.type) {
    case 'episodes.add': {
      const episodes = list(b.episodes, 'episodes', SYNC_LIMITS.episodesPerEvent);
      if (episodes.length === 0) fail('an episodes.add with no episodes');
      return {
        type: 'episodes.add',
        episodes: episodes.map((x, i) => {
          const ep = obj(x, `episodes[${i}]`);
          const text = str(ep.text, `episodes[${i}].text`);
          if (!text.trim() || text.length > judge.maxTextChars)
            fail(`episodes[${i}].text is ${text.length} characters; a turn is 1 to ${judge.maxTextChars}`);
          const { salt: _salt, ...kept } = ep;
          return {
            ...kept,
            id: ownId('ep', ep.id, origin, `episodes[${i}].id`),
            hash: token(ep.hash, `episodes[${i}].hash`),
            text,
            time: clampTime(ep.time, `episodes[${i}].time`, judge.now),
            authority: below(oneOf(ep.authority, TURN_AUTHORITIES, `episodes[${i}].authority`), `episodes[${i}]`),
            speaker: optStr(ep.speaker, 'speaker', LIMITS.nameChars),
            role: optStr(ep.role, 'role', LIMITS.nameChars),
            source: optStr(ep.source, 'source', LIMITS.sourceChars),
            session: optStr(ep.session, 'session', LIMITS.sessionChars),
            ref: optStr(ep.ref, 'ref', LIMITS.sourceChars),
            entities: ep.entities === undefined ? undefined : list(ep.entities, 'entities', LIMITS.noteEntities * 5).map(name),
            project: project(ep.project),
            sessionTitle: optStr(ep.sessionTitle, 'sessionTitle', LIMITS.sessionTitleChars),
            redactions: ep.redactions === undefined ? undefined : count(ep.redactions, 'redactions'),
          };
        }),
      } as EventBody;
    }
    case 'entity.upsert':
      return {
        type: 'entity.upsert',
        name: name(b.name),
        entityType: optStr(b.entityType, 'entityType', 40),
        aliases: b.aliases === undefined ? undefined : list(b.aliases, 'aliases', 50).map(name),
        summary: optStr(b.summary, 'summary', LIMITS.noteChars),
      };
    case 'entity.unalias':
      human('unaliasing');
      return { type: 'entity.unalias', name: name(b.name), alias: name(b.alias) };
    case 'relationship.assert':
      return {
        type: 'relationship.assert',
        id: ownId('rel', b.id, origin, 'id'),
        subject: name(b.subject),
        predicate: name(b.predicate),
        object: name(b.object),
        prior: oneOf(b.prior, PRIOR_KINDS, 'prior'),
        evidence: b.evidence === undefined ? undefined : list(b.evidence, 'evidence', LIMITS.episodeIds).map((x) => anyId('ep', x)),
        assertedBy: b.assertedBy === undefined ? undefined : below(oneOf(b.assertedBy, TURN_AUTHORITIES, 'assertedBy'), 'assertedBy'),
        extractedBy: optStr(b.extractedBy, 'extractedBy', LIMITS.nameChars),
        project: b.project === undefined ? undefined : project(b.project),
        kind: b.kind === undefined ? undefined : oneOf(b.kind, KNOWLEDGE_KINDS, 'kind'),
        statement: optStr(b.statement, 'statement', LIMITS.statementChars),
        check: b.check === undefined ? undefined : peerCheck(b.check),
      };
    case 'relationship.evidence':
      if (b.polarity !== 1 && b.polarity !== -1) fail('polarity must be 1 or -1');
      return {
        type: 'relationship.evidence',
        id: anyId('rel', b.id),
        episode: b.episode === undefined ? undefined : anyId('ep', b.episode),
        polarity: b.polarity as 1 | -1,
        extractedBy: optStr(b.extractedBy, 'extractedBy', LIMITS.nameChars),
      };
    case 'relationship.correct':
      human('a correction');
      return {
        type: 'relationship.correct',
        id: anyId('rel', b.id),
        verdict: oneOf(b.verdict, ['wrong', 'confirm'] as const, 'verdict'),
        reason: optStr(b.reason, 'reason', LIMITS.noteChars),
      };
    case 'relationship.check':
      human('setting a check');
      return { type: 'relationship.check', id: anyId('rel', b.id), check: b.check === null ? null : peerCheck(b.check) };
    case 'check.outcome':
      // A peer's hooks' decisions are counted as theirs; they change no confidence and deny nothing here.
      return {
        type: 'check.outcome',
        id: anyId('rel', b.id),
        outcome: oneOf(b.outcome, CHECK_OUTCOMES, 'outcome'),
        host: optStr(b.host, 'host', LIMITS.nameChars),
        tool: optStr(b.tool, 'tool', LIMITS.nameChars),
        call: optStr(b.call, 'call', LIMITS.hookCallChars),
        session: optStr(b.session, 'session', LIMITS.sessionChars),
        callId: optStr(b.callId, 'callId', LIMITS.nameChars),
      };
    case 'relationship.retract':
      human('a retraction');
      return {
        type: 'relationship.retract',
        id: anyId('rel', b.id),
        reason: str(b.reason, 'reason').slice(0, LIMITS.noteChars),
        ...(b.sameAs === undefined ? {} : { sameAs: anyId('rel', b.sameAs) }),
      };
    case 'entity.forget':
      human('forgetting');
      // The id lists are checked for shape only: a pulled forget is worked out here, never taken on trust.
      return {
        type: 'entity.forget',
        name: name(b.name),
        episodes: list(b.episodes, 'episodes', SYNC_LIMITS.forgetIds).map((x) => anyId('ep', x)),
        relationships: list(b.relationships, 'relationships', SYNC_LIMITS.forgetIds).map((x) => anyId('rel', x)),
      };
    case 'project.assign':
      human('moving memories between projects');
      return {
        type: 'project.assign',
        project: project(b.project),
        from: b.from === undefined ? undefined : project(b.from),
        source: optStr(b.source, 'source', LIMITS.sourceChars),
        session: optStr(b.session, 'session', LIMITS.sessionChars),
      };
    case 'anchors.set': {
      const target = str(b.target, 'target');
      if (!ID_RE.test(target)) fail(`target "${target.slice(0, 80)}" is not an episode or fact id`);
      // An anchor as this memory would have written it: a relative path inside its root, never out of it.
      const problem = validAnchors(b.anchors);
      if (problem) fail(problem);
      return { type: 'anchors.set', target, anchors: b.anchors as CodeAnchor[] };
    }
    default:
      return fail(`unknown event type ${JSON.stringify(String(b.type)).slice(0, 60)}`);
  }
}

/** A check as a local write would store it: a peer's is data (it only ever asks here), but of the same shape and bounds. */
function peerCheck(v: unknown): Check {
  try {
    return checkOf(v);
  } catch (err) {
    return fail(`check: ${(err as Error).message}`);
  }
}

function obj(v: unknown, what: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(`${what} is not an object`);
  return v as Record<string, unknown>;
}

function str(v: unknown, what: string): string {
  if (typeof v !== 'string') fail(`${what} is not text`);
  return v as string;
}

function optStr(v: unknown, what: string, max: number): string | undefined {
  if (v === undefined || v === null) return undefined;
  const s = str(v, what);
  if (s.length > max) fail(`${what} is ${s.length} characters, over ${max}`);
  return s;
}

function name(v: unknown): string {
  const s = str(v, 'a name');
  if (!s.trim() || s.length > LIMITS.nameChars) fail(`a name of ${s.length} characters (1 to ${LIMITS.nameChars})`);
  return s;
}

function token(v: unknown, what: string): string {
  const s = str(v, what);
  if (!/^[0-9a-f]{1,64}$/.test(s)) fail(`${what} is not a hex hash`);
  return s;
}

function count(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 1e9) fail(`${what} is not a whole number`);
  return v as number;
}

function list(v: unknown, what: string, max: number): unknown[] {
  if (!Array.isArray(v)) fail(`${what} is not a list`);
  if ((v as unknown[]).length > max) fail(`${what} has ${(v as unknown[]).length} items, over ${max}`);
  return v as unknown[];
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], what: string): T {
  if (!allowed.includes(v as T)) fail(`${what} is ${JSON.stringify(v)?.slice(0, 40)}, not one of ${allowed.join(', ')}`);
  return v as T;
}

function project(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const s = str(v, 'project');
  if (!s.trim() || s.length > LIMITS.nameChars * 2) fail('project is not a project key');
  return s;
}

/** An id this event mints: it must carry the row's own origin, so no member can take over another's ids. */
function ownId(prefix: 'ep' | 'rel', v: unknown, origin: string, what: string): string {
  const id = anyId(prefix, v);
  if (ID_RE.exec(id)![2] !== origin) fail(`${what} ${id} was not minted by ${origin}, the row's memory`);
  return id;
}

function anyId(prefix: 'ep' | 'rel', v: unknown): string {
  const m = typeof v === 'string' ? ID_RE.exec(v) : null;
  if (!m || m[1] !== prefix) fail(`${JSON.stringify(v)?.slice(0, 60)} is not a ${prefix === 'ep' ? 'turn' : 'fact'} id`);
  return v as string;
}

/** A peer's time: a real ISO time, and never later than now plus the allowed skew (a date in 2099 must not win forever). */
function clampTime(v: unknown, what: string, now: number): string {
  const s = str(v, what);
  const ms = Date.parse(s);
  if (!/^\d{4}-\d{2}-\d{2}/.test(s) || Number.isNaN(ms)) fail(`${what} "${s.slice(0, 40)}" is not an ISO time`);
  return new Date(Math.min(ms, now + SYNC_LIMITS.clockSkewMs)).toISOString();
}
