#!/usr/bin/env bash
# Installs the real MCP clients test/hosts/clients.test.ts connects to Recall: Claude Code (its npm
# package carries the native binary for this platform) and the MCP Inspector CLI, both pinned, into
# ${RECALL_E2E_CACHE:-<repo>/.cache/e2e}/clients (never ~ or node_modules), on the Node 22 that
# test/e2e/install-tools.sh installs (Claude Code needs Node 22). Idempotent; prints CLAUDE= and
# INSPECTOR= lines.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${RECALL_E2E_CACHE:-$REPO/.cache/e2e}"
CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.332}"
INSPECTOR_VERSION="${INSPECTOR_VERSION:-2.12.0}"
NODE22="$CACHE/node22/bin/node"
CLIENTS="$CACHE/clients"
[ -x "$NODE22" ] || { echo "Node 22 missing: run bash test/e2e/install-tools.sh first" >&2; exit 1; }
export PATH="$(dirname "$NODE22"):$PATH"
export npm_config_cache="$CACHE/scratch/npm-cache" npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
STAMP="$CLIENTS/.installed-$CLAUDE_CODE_VERSION-$INSPECTOR_VERSION"
if ! [ -f "$STAMP" ]; then
  T0=$(date +%s)
  rm -rf "$CLIENTS" && mkdir -p "$CLIENTS"
  echo '{"name":"recall-test-clients","private":true}' > "$CLIENTS/package.json"
  # Run from `npm run`, npm_config_user_agent names the outer Node 20; these packages check the engine.
  env -u npm_config_user_agent HOME="$CACHE/scratch/home" npm install --prefix "$CLIENTS" --loglevel=error \
    "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2
  touch "$STAMP"
  echo "[install-clients] installed in $(( $(date +%s) - T0 )) s" >&2
fi
echo "CLAUDE=$CLIENTS/node_modules/.bin/claude"
echo "INSPECTOR=$CLIENTS/node_modules/.bin/inspector"
