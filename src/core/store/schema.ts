/**
 * The sql.js schema: a derived, rebuildable view of the journal. Bump SCHEMA_VERSION when it
 * changes; a snapshot of another version is discarded and rebuilt from the journal.
 */
export const SCHEMA_VERSION = 11;

export const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE entities (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  key TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL DEFAULT 'thing',
  summary TEXT NOT NULL DEFAULT '',
  created TEXT NOT NULL,
  updated TEXT NOT NULL
);
CREATE TABLE aliases (key TEXT PRIMARY KEY, alias TEXT NOT NULL, entity_id INTEGER NOT NULL);
CREATE INDEX aliases_entity ON aliases(entity_id);
-- Aliases a person removed from an entity: never learned for it again (ingest/aliases.ts).
CREATE TABLE alias_rejections (key TEXT NOT NULL, entity_id INTEGER NOT NULL, PRIMARY KEY (key, entity_id));

CREATE TABLE episodes (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  text TEXT NOT NULL,
  speaker TEXT,
  role TEXT,
  authority TEXT NOT NULL,
  source TEXT,
  session TEXT,
  ref TEXT,
  time TEXT NOT NULL,
  time_ms INTEGER NOT NULL,
  hash TEXT NOT NULL UNIQUE
);
CREATE INDEX episodes_session ON episodes(session, time_ms);
CREATE INDEX episodes_time ON episodes(time_ms);
CREATE INDEX episodes_source ON episodes(source);
ALTER TABLE episodes ADD COLUMN project TEXT;
CREATE INDEX episodes_project ON episodes(project, time_ms);
-- The teammate whose memory wrote it (team sync); NULL: this memory's own.
ALTER TABLE episodes ADD COLUMN author TEXT;

CREATE TABLE mentions (episode_rowid INTEGER NOT NULL, entity_id INTEGER NOT NULL, PRIMARY KEY (episode_rowid, entity_id));
CREATE INDEX mentions_entity ON mentions(entity_id);

CREATE TABLE relationships (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  subject_id INTEGER NOT NULL,
  predicate TEXT NOT NULL,
  object_id INTEGER NOT NULL,
  prior_kind TEXT NOT NULL,
  prior REAL NOT NULL,
  alpha REAL NOT NULL,
  beta REAL NOT NULL,
  corroborated INTEGER NOT NULL DEFAULT 0,
  corroborated_by_non_agent INTEGER NOT NULL DEFAULT 0,
  authority TEXT NOT NULL,
  valid_from TEXT NOT NULL,
  valid_to TEXT,
  ended_by TEXT,
  ended_reason TEXT,
  pinned INTEGER NOT NULL DEFAULT 0,
  last_reinforced_ms INTEGER NOT NULL
);
CREATE INDEX relationships_subject ON relationships(subject_id);
CREATE INDEX relationships_object ON relationships(object_id);
ALTER TABLE relationships ADD COLUMN project TEXT;
ALTER TABLE relationships ADD COLUMN learned_at TEXT;
-- Who confirmed it, when a teammate did (team sync); NULL: this memory's person, or nobody.
ALTER TABLE relationships ADD COLUMN pinned_by TEXT;
-- A knowledge item (model/knowledge.ts): its kind and statement; NULL on a plain fact.
ALTER TABLE relationships ADD COLUMN kind TEXT;
ALTER TABLE relationships ADD COLUMN statement TEXT;
CREATE INDEX relationships_kind ON relationships(kind, subject_id);
-- A rule's check (model/checks.ts) as JSON, who set it (person, statement, peer), and its decisions' counts as JSON.
ALTER TABLE relationships ADD COLUMN check_spec TEXT;
ALTER TABLE relationships ADD COLUMN check_by TEXT;
ALTER TABLE relationships ADD COLUMN outcomes TEXT;
-- The item a person said this one is the same as (relationship.retract with sameAs); NULL otherwise.
ALTER TABLE relationships ADD COLUMN same_as TEXT;
-- Who marked it wrong, when a teammate did (team sync); NULL: this memory's person, or nobody.
ALTER TABLE relationships ADD COLUMN wrong_by TEXT;
CREATE INDEX relationships_checked ON relationships(project) WHERE check_spec IS NOT NULL;
CREATE INDEX relationships_project ON relationships(project);

CREATE TABLE evidence (
  relationship_rowid INTEGER NOT NULL,
  episode_id TEXT,
  polarity INTEGER NOT NULL,
  authority TEXT NOT NULL,
  at TEXT NOT NULL,
  note TEXT
);
CREATE INDEX evidence_relationship ON evidence(relationship_rowid);
CREATE INDEX evidence_episode ON evidence(episode_id);

-- A hook's decisions on tool calls a rule's check was about (check.outcome events).
CREATE TABLE check_outcomes (
  relationship_rowid INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  host TEXT,
  tool TEXT,
  call TEXT,
  session TEXT,
  call_id TEXT,
  at TEXT NOT NULL
);
CREATE INDEX check_outcomes_relationship ON check_outcomes(relationship_rowid, outcome);
CREATE INDEX check_outcomes_call ON check_outcomes(call_id);

-- What the keyword index reads of a turn: its text and speaker as index-text.ts words them, and
-- the words of the code identifiers in its text.
CREATE VIEW episodes_indexed AS
  SELECT rowid AS rowid, recall_index_text(text) AS text, recall_index_text(COALESCE(speaker, '')) AS speaker,
         recall_identifier_parts(text) AS parts FROM episodes;
-- docid = episodes.rowid; external content (the text is stored once, in episodes).
CREATE VIRTUAL TABLE episodes_fts USING fts4(content="episodes_indexed", text, speaker, parts, tokenize=porter);
-- docid = entities.id
CREATE VIRTUAL TABLE entities_fts USING fts4(name, summary, tokenize=porter);

-- target = an episode or fact id; anchors = its CodeAnchor[] as JSON (core/model/code-anchors.ts).
CREATE TABLE anchors (target TEXT PRIMARY KEY, anchors TEXT NOT NULL);

-- A session's title as its tool named it (episodes.add carries it); absent: the view shows the first user turn.
CREATE TABLE sessions (session TEXT PRIMARY KEY, title TEXT NOT NULL);
`;
