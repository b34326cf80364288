#!/usr/bin/env bash
# Build (once, cached outside the repo) and run a real InfluxDB 2.x server for tests.
#
#   scripts/influxd.sh build            build influxd if not cached; last stdout line = binary path
#   scripts/influxd.sh path             print the cached binary path (exit 1 if not built)
#   scripts/influxd.sh start            build if needed, start on 127.0.0.1, onboard, print env lines:
#                                         INFLUX_URL= INFLUX_TOKEN= INFLUX_ORG= INFLUX_BUCKET= INFLUXD_PID= INFLUXD_DIR=
#                                       usage: eval "$(scripts/influxd.sh start)"   (add `set -a` to export)
#   scripts/influxd.sh stop [PID DIR]   stop the server and delete its data dir
#                                       (defaults to $INFLUXD_PID / $INFLUXD_DIR)
#
# Environment:
#   INFLUXD_VERSION   influxdb module version to build (default below)
#   INFLUXD_PORT      port to listen on (default: a free port)
#   XDG_CACHE_HOME    cache root (default ~/.cache); binary goes to
#                     $XDG_CACHE_HOME/devicecloud/influxd/<version>/influxd
#
# Why it is built from source: no registry ships an influxd binary. The Go module proxy
# has the influxdb source, but `go install` refuses it (its go.mod has replace directives),
# so the module is copied to a scratch dir and built with `go build` there. The Flux engine
# is partly Rust (libflux): influxdata's pkg-config wrapper compiles it with cargo during the
# cgo step. Flux pins an old Rust toolchain that cannot be downloaded here, so the installed
# stable one is used, with lints capped so new-compiler warnings do not fail the build.
# Version: v2.7.12 is the newest 2.x whose whole dependency set the proxy serves
# (v2.10.0 needs flux v0.201.0 and pkg-config v0.3.1, which the proxy refuses; v2.9.0 is
# refused and v2.8.0 is missing from the checksum database).
set -euo pipefail

INFLUXD_VERSION="${INFLUXD_VERSION:-v2.7.12}"
MODULE="github.com/influxdata/influxdb/v2"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/devicecloud/influxd"
BIN="$CACHE_ROOT/$INFLUXD_VERSION/influxd"
# Same tags as upstream's GNUmakefile minus `assets` (the web UI is not needed; without the
# tag static/TODO.go stubs it out), plus timetzdata (embedded zone data for Go's time
# package, e.g. InfluxQL tz()). Flux's timezone/location support does NOT use it: Flux has
# its own zoneinfo loader ($ZONEINFO, /usr/share/zoneinfo, then $GOROOT/lib/time/zoneinfo.zip),
# hence the tzdata check below.
BUILD_TAGS="sqlite_foreign_keys,sqlite_json,flux_nosqlite,timetzdata"

log() { printf '[influxd.sh] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit "${1:-2}"
}

ensure_tzdata() {
  # Flux's timezone.location() needs system zone files (Debian package tzdata).
  [ -n "${ZONEINFO:-}" ] && return 0
  [ -e /usr/share/zoneinfo/Europe/Berlin ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing tzdata"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tzdata; } >&2 \
      || log "warning: tzdata install failed; Flux time zones may not work"
  else
    log "warning: tzdata missing and not root; Flux time zones may not work (install tzdata)"
  fi
}

pick_rust_toolchain() {
  command -v rustup >/dev/null 2>&1 || return 0
  local list
  list="$(rustup toolchain list 2>/dev/null || true)"
  if grep -q '^stable' <<<"$list"; then
    echo stable
  else
    # first installed toolchain that is not nightly, else whatever is there
    grep -v '^nightly' <<<"$list" | head -n1 | awk '{print $1}' | grep . || head -n1 <<<"$list" | awk '{print $1}'
  fi
}

do_build() {
  if [ -x "$BIN" ]; then
    echo "$BIN"
    return 0
  fi
  # rustup's cargo is often only on PATH in login shells
  if ! command -v cargo >/dev/null 2>&1 && [ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]; then
    PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
  fi
  command -v go >/dev/null 2>&1 || die "go is required to build influxd"
  command -v cargo >/dev/null 2>&1 || die "cargo (Rust) is required to build influxd's libflux"
  command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || die "a C compiler is required (cgo)"
  ensure_tzdata

  mkdir -p "$CACHE_ROOT"
  # Serialise concurrent builds (e.g. parallel test runs); re-check after getting the lock.
  exec 9>"$CACHE_ROOT/.build.lock"
  flock 9
  if [ -x "$BIN" ]; then
    exec 9>&-
    echo "$BIN"
    return 0
  fi

  export GOTOOLCHAIN=local GO111MODULE=on GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod"
  local rusttc
  rusttc="$(pick_rust_toolchain)"
  [ -n "$rusttc" ] && export RUSTUP_TOOLCHAIN="$rusttc"
  export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }--cap-lints=warn"
  # pkg-config runs `cargo build --target <triple>`, and with --target cargo does NOT apply
  # RUSTFLAGS to host crates (build scripts and their deps). libflux's build script depends
  # on flux-core, whose `strict` feature has deny(warnings), so newer rustc lints break it.
  # A rustc wrapper caps lints on every crate that does not already carry a --cap-lints.
  mkdir -p "$CACHE_ROOT/tools"
  local wrapper="$CACHE_ROOT/tools/rustc-cap-lints"
  cat >"$wrapper.tmp" <<'WRAP'
#!/bin/sh
# cargo RUSTC_WRAPPER: argv = rustc <args...>
for a in "$@"; do
  case "$a" in --cap-lints|--cap-lints=*) exec "$@" ;; esac
done
for a in "$@"; do
  case "$a" in --crate-name) exec "$@" --cap-lints=warn ;; esac
done
exec "$@"
WRAP
  chmod +x "$wrapper.tmp" && mv -f "$wrapper.tmp" "$wrapper"
  export RUSTC_WRAPPER="$wrapper"

  local start_ts=$SECONDS build_log="$CACHE_ROOT/build-$INFLUXD_VERSION.log"
  : >"$build_log"
  log "building influxd $INFLUXD_VERSION from source (cold build: ~15-30 min on 2 cores); log: $build_log"

  local dl dir zip
  dl="$(cd /tmp && go mod download -json "$MODULE@$INFLUXD_VERSION" 2>>"$build_log" || true)"
  dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$dl")"
  zip="$(sed -n 's/^[[:space:]]*"Zip": "\(.*\)",\{0,1\}$/\1/p' <<<"$dl")"

  local work
  work="$(mktemp -d "$CACHE_ROOT/build-$INFLUXD_VERSION.XXXXXX")"
  # shellcheck disable=SC2064
  trap "chmod -R u+w '$work' 2>/dev/null; rm -rf '$work'" EXIT
  local src="$work/src"
  if [ -n "$dir" ] && [ -d "$dir" ]; then
    cp -R "$dir" "$src"
  elif [ -n "$zip" ] && [ -f "$zip" ]; then
    # The proxy served a (checksum-verified) zip, but go refused to extract it, e.g. because
    # the module's `go` line is newer than the local toolchain. Unpack it ourselves.
    command -v unzip >/dev/null 2>&1 || die "unzip is required"
    unzip -q "$zip" -d "$work/zip"
    mv "$work/zip/$MODULE@$INFLUXD_VERSION" "$src"
  else
    cat "$build_log" >&2
    die "could not download $MODULE@$INFLUXD_VERSION from the Go module proxy"
  fi
  chmod -R u+w "$src"
  cd "$src"

  # If the module wants a newer Go than installed (GOTOOLCHAIN=local cannot fetch one),
  # lower its go line to the local version and hope it still compiles.
  local want have
  want="$(awk '$1=="go"{print $2; exit}' go.mod)"
  have="$(go env GOVERSION | sed 's/^go//')"
  if [ -n "$want" ] && [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | tail -n1)" != "$have" ]; then
    log "warning: $INFLUXD_VERSION wants go $want, have $have; patching go.mod"
    sed -i "s/^go $want\$/go $have/; /^toolchain /d" go.mod
  fi

  log "building influxdata/pkg-config wrapper"
  go build -o "$src/.bin/pkg-config" github.com/influxdata/pkg-config >>"$build_log" 2>&1 \
    || { tail -n 40 "$build_log" >&2; die "building pkg-config failed"; }
  export PKG_CONFIG="$src/.bin/pkg-config"

  log "go build ./cmd/influxd (RUSTUP_TOOLCHAIN=${RUSTUP_TOOLCHAIN:-}, tags $BUILD_TAGS)"
  local ver="${INFLUXD_VERSION#v}"
  mkdir -p "$(dirname "$BIN")"
  if ! go build -tags "$BUILD_TAGS" \
      -ldflags "-s -w -X main.version=$ver -X main.commit=gomod-$INFLUXD_VERSION" \
      -o "$BIN.tmp" ./cmd/influxd >>"$build_log" 2>&1; then
    tail -n 60 "$build_log" >&2
    rm -f "$BIN.tmp"
    die "go build of influxd failed (full log: $build_log)"
  fi
  mv -f "$BIN.tmp" "$BIN"
  cd /
  log "built $INFLUXD_VERSION in $((SECONDS - start_ts))s"
  exec 9>&-
  echo "$BIN"
}

free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()'
  elif command -v node >/dev/null 2>&1; then
    node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
  else
    echo $((20000 + RANDOM % 30000))
  fi
}

do_start() {
  local bin
  bin="$(do_build | tail -n1)"
  [ -x "$bin" ] || die "no influxd binary"
  ensure_tzdata
  command -v curl >/dev/null 2>&1 || die "curl is required"

  local port dir url pid attempt ok=""
  for attempt in 1 2 3; do
    port="${INFLUXD_PORT:-$(free_port)}"
    url="http://127.0.0.1:$port"
    # Refuse a port something already answers on: /health would report the other server.
    if curl -s --max-time 1 -o /dev/null "$url/" 2>/dev/null; then
      [ -n "${INFLUXD_PORT:-}" ] && die "port $port is already in use"
      continue
    fi
    dir="$(mktemp -d "${TMPDIR:-/tmp}/devicecloud-influxd.XXXXXX")"
    # cwd = data dir so influxd does not pick up a config.{json,toml,yaml} from the caller's
    # cwd; all fds redirected so callers reading our stdout get EOF when this script exits.
    (
      cd "$dir"
      unset INFLUXD_CONFIG_PATH
      exec setsid nohup "$bin" \
        --bolt-path "$dir/influxd.bolt" \
        --sqlite-path "$dir/influxd.sqlite" \
        --engine-path "$dir/engine" \
        --reporting-disabled \
        --http-bind-address "127.0.0.1:$port" \
        </dev/null >"$dir/influxd.log" 2>&1 9>&-
    ) &
    pid=$!

    local t0=$SECONDS
    while [ $((SECONDS - t0)) -lt 60 ]; do
      # an exited child stays a zombie until reaped, so check its state, not just kill -0
      case "$(ps -o stat= -p "$pid" 2>/dev/null)" in ""|Z*) break ;; esac
      if curl -fsS --max-time 2 "$url/health" 2>/dev/null | grep -q '"status": *"pass"'; then
        ok=1; break
      fi
      sleep 0.2
    done
    [ -n "$ok" ] && break
    log "influxd did not become healthy on $url; log tail:"
    tail -n 20 "$dir/influxd.log" >&2 || true
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -rf "$dir"
    [ -n "${INFLUXD_PORT:-}" ] && break
  done
  [ -n "$ok" ] || die "start failed"

  local token
  token="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"
  local body resp
  body="$(printf '{"username":"devicecloud","password":"devicecloud","org":"devicecloud","bucket":"telemetry","token":"%s"}' "$token")"
  if ! resp="$(curl -fsS --max-time 20 -X POST "$url/api/v2/setup" \
      -H 'Content-Type: application/json' -d "$body" 2>&1)"; then
    log "onboarding failed: $resp"
    kill "$pid" 2>/dev/null || true
    rm -rf "$dir"
    die "start failed"
  fi

  printf 'INFLUX_URL=%q\n' "$url"
  printf 'INFLUX_TOKEN=%q\n' "$token"
  printf 'INFLUX_ORG=%q\n' devicecloud
  printf 'INFLUX_BUCKET=%q\n' telemetry
  printf 'INFLUXD_PID=%q\n' "$pid"
  printf 'INFLUXD_DIR=%q\n' "$dir"
}

do_stop() {
  local pid="${1:-${INFLUXD_PID:-}}" dir="${2:-${INFLUXD_DIR:-}}"
  [ -n "$pid" ] || die "usage: $0 stop PID DIR"
  # Only signal the pid if it is still an influxd (pids get reused).
  if kill -0 "$pid" 2>/dev/null && [ "$(basename "$(readlink "/proc/$pid/exe" 2>/dev/null || echo influxd)")" = influxd ]; then
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  # Only remove a dir this script created.
  if [ -n "$dir" ] && [ -d "$dir" ]; then
    case "$(basename "$dir")" in
      devicecloud-influxd.*) rm -rf "$dir" ;;
      *) log "not removing $dir (not created by influxd.sh start)" ;;
    esac
  fi
}

case "${1:-}" in
  build) do_build ;;
  path) [ -x "$BIN" ] && echo "$BIN" || { log "not built: $BIN"; exit 1; } ;;
  start) do_start ;;
  stop) shift; do_stop "$@" ;;
  -h|--help|help) usage 0 ;;
  *) usage ;;
esac
