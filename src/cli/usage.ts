import { PRIOR_KINDS } from '../core/model/config.js';
import { MCP_HTTP_DEFAULTS } from '../core/model/defaults.js';
import { LIMIT_DEFAULTS, LIMITS } from '../core/model/limits.js';
import { RETRIEVAL_MODES } from '../service/rpc/protocol.js';

const modes = RETRIEVAL_MODES.join('|');
const limit = (of: keyof typeof LIMIT_DEFAULTS & keyof typeof LIMITS): string =>
  `(--limit: default ${LIMIT_DEFAULTS[of]}, at most ${LIMITS[of]})`;

export const USAGE = `recall — long-term memory for coding agents

usage: recall [--memory DIR] COMMAND        (default memory: $RECALL_HOME, else ~/.recall)
       every command works in a project: --project NAME, --global (the person's own memory), else the
       current folder's (its git remote, else its path); reads see it and the global memory, --all every project

  remember TEXT|- [--entity NAME]... [--source S] [--session ID]   store a note; prints the episode id
           [--kind decision|rule|preference|fact|lesson] [--subject S] [--cite PATH[:START-END]]... [--reason R]
                                       with --kind also a knowledge item (its id on the next line); each
                                       --cite anchors it to those lines of the workspace
  ingest FILE|DIR...                   import transcripts (a folder: the transcripts in it, walked); per file: counts,
                                       the project its turns went to, how they were dated
  query TEXT [--limit N] [--history] [--mode ${modes}] [--json]
                                       best evidence, cited ${limit('query')}
  search TEXT [--limit N] [--json]     entities by name or description ${limit('search')}
  episodes [TEXT] [--since D] [--until D] [--session ID] [--limit N] [--json]
                                       turns by text, time or session ${limit('episodes')}
  traverse ENTITY [--depth N] [--json] an entity's neighbourhood (--depth: default ${LIMIT_DEFAULTS.depth}, at most ${LIMITS.depth})
  overview [--limit N] [--json]        the most connected entities and the latest sessions ${limit('overview')}
  relate SUBJECT PREDICATE OBJECT [--evidence EPISODE_ID] [--prior ${PRIOR_KINDS.join('|')}]
                                       assert a fact; prints the relationship id
  correct (--wrong|--confirm) RELATIONSHIP_ID [--reason TEXT]
  correct ITEM_ID --same-as KEPT_ID    two knowledge items say the same: ITEM_ID goes, its evidence counts
                                       for KEPT_ID, and what says it again later does too
  alias remove ENTITY ALIAS   an alias is not this entity's name (learned ones can be wrong)
  forget ENTITY [--confirm]            shows what would be erased; --confirm erases it
  status [--json]                      counts, memory folder, service
  brief [--tokens N] [--json]          what matters before a task: confirmed facts, decisions, preferences
                                       (--tokens: default ${LIMIT_DEFAULTS.brief}, at most ${LIMITS.brief}); for a SessionStart hook
  export [--out FILE] [--history]      the whole memory as JSON; --project NAME or --global: that part alone
  embeddings [on|off|status] [--model-path DIR | --model ID] [--allow-download] [--json]
                                       turn vector search on (a local model folder, or a hub model fetched
                                       once into the memory folder when --allow-download is given) or off
  service (start|stop|status) [--json]
  sync [status|off] [--postgres URL [--author EMAIL] [--share PROJECT]...] [--json]
                                       share this memory through a team's PostgreSQL (password from
                                       $RECALL_SYNC_PASSWORD or $PGPASSWORD, never stored); status: backlog, cursors
  sync quarantine|members|forgotten [--json]   rows refused here; the team's keys; forgets from the team held aside
  sync trust MEMORY_ID                 accept the key a teammate's (second) memory shows
  sync restore ID                      undo a forget from the team (ids from sync forgotten)
  setup HOST [--scope user|project] [--remove] [--npx] [--name N] [--file F] [--json]
                                       add Recall's MCP server to a host's config (claude-code, cursor, codex,
                                       vscode, windsurf, cline, continue), merging; --remove takes it out again
  setup --list [--json]                each host's config files here, and whether Recall is set up in them
  mcp [--http [--port ${MCP_HTTP_DEFAULTS.port}] [--host ${MCP_HTTP_DEFAULTS.host}] [--token-file F]]   MCP server (stdio, or Streamable HTTP at /mcp;
                                       its bearer token: $RECALL_MCP_TOKEN, --token-file, else <memory>/mcp-http.token)
  mcp --sampling                       stdio, and the client's model (MCP sampling) reads the notes agents store
                                       for rules, decisions and lessons, at agent authority (off unless given)
  bench locomo --data FILE [--k N] [--mode ${modes} --model-path DIR] [--long-turns N] [--bursts] [--write-docs] [--json]
                                       retrieval quality on a LoCoMo file
  rule list [--checked] [--json]       the project's and the global rules, their checks and the hooks' outcomes
  rule add TEXT                        state a rule; "never X", "use A, not B" with a command or path get a check
  rule check RULE_ID (--command P | --path GLOB | --tool NAME | --url U)... [--instead X] | --remove
                                       set (or remove) the check a rule's hooks test tool calls against
  hooks (install|uninstall) (--claude|--vscode|--copilot) [--project|--user]
                                       add Recall's agent hooks to a host's hook file (merging), or take them out
  hook (session-start|pre-tool-use) [--host claude|vscode|copilot]
                                       what a host's hook runs: the brief at session start, a rule check before a tool
  project [list|current]               the memory's projects; * marks the current one
  project assign TARGET|--global (--from P | --source S | --session ID)    move memories to a project
  project rename OLD NEW               e.g. project rename source:claude-code github.com/me/app
  bench projects --data FILE [--write-docs] [--json]   cross-project bleed, LoCoMo conversations as projects
  bench scale --episodes N [--model-path DIR] [--write-docs] [--json]   speed and size on a synthetic memory of N episodes
`;

/** A mistake in how the command was called: the CLI exits 2 with the usage line. */
export class UsageError extends Error {}
