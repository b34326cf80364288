#!/usr/bin/env bash
# Fuzzes the API against its own OpenAPI document with schemathesis, every check on: starts the service from this
# checkout (temp DATA_DIR, free ports), logs in as its first admin, seeds a product, a device and a group, runs
# `st run .../api/v1/openapi.json --checks all` and fails on any 5xx, any answer that does not match the document
# (status, content type, headers, body schema), any schema-valid request refused or schema-violating request
# accepted, or a crash. The service is always stopped. Exceptions, each with its reason: scripts/fuzz.toml, and
# the one check left out (below).
#
#   bash scripts/fuzz.sh                 # ~3.5 minutes on 2 cores
#   FUZZ_EXAMPLES=50 FUZZ_SECONDS=600 FUZZ_SEED=7 bash scripts/fuzz.sh   # longer, random cases from seed 7
#   FUZZ_REPORT_DIR=/tmp/fuzz bash scripts/fuzz.sh                      # keeps a JUnit report there
#
# schemathesis lives in a virtual env outside the repository: ~/.cache/devicecloud/st-venv (pinned version).
set -euo pipefail
cd "$(dirname "$0")/.."

ST_VERSION=4.32.5
VENV="${DEVICECLOUD_CACHE:-$HOME/.cache/devicecloud}/st-venv"
EXAMPLES="${FUZZ_EXAMPLES:-8}"       # test cases per operation and phase
SECONDS_BUDGET="${FUZZ_SECONDS:-200}" # schemathesis' own time budget (--max-time)
EMAIL=fuzz@devicecloud.local
PASSWORD=fuzz-password-1
HOOK_SECRET=fuzz-hook-secret-0123456789

for tool in python3 curl timeout; do
  command -v "$tool" >/dev/null || { echo "fuzz: '$tool' not found" >&2; exit 1; }
done
[ -x node_modules/.bin/tsx ] || { echo 'fuzz: run npm ci first' >&2; exit 1; }

if [ "$("$VENV/bin/st" --version 2>/dev/null)" != "st, version $ST_VERSION" ]; then
  echo "fuzz: installing schemathesis $ST_VERSION into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$ST_VERSION"
fi

work=$(mktemp -d)
pid=
stop() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap stop EXIT

# port 0 everywhere: the service binds free ports and prints its URL
PORT=0 HOST=127.0.0.1 MQTT_PORT=0 MQTT_WS_PORT=0 DATA_DIR="$work/data" TIMEZONE=UTC LOG_LEVEL=warn \
  ADMIN_EMAIL="$EMAIL" ADMIN_PASSWORD="$PASSWORD" EMQX_HOOK_SECRET="$HOOK_SECRET" \
  node_modules/.bin/tsx src/main.ts >"$work/service.log" 2>&1 &
pid=$!
url=
for _ in $(seq 300); do
  url=$(sed -n 's|^\[devicecloud\] API on \(http://[^ ]*\)/api/v1 .*|\1|p' "$work/service.log")
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "fuzz: the service did not start" >&2
  cat "$work/service.log" >&2
  exit 1
fi

api() { # method path [json]: the answer's body; a status >= 400 stops the script with the answer
  local body
  if ! body=$(curl -sS --fail-with-body -X "$1" "$url/api/v1$2" -H 'content-type: application/json' \
    ${TOKEN:+-H "authorization: Bearer $TOKEN"} ${3:+-d "$3"}); then
    echo "fuzz: $1 $2 failed: $body" >&2
    return 1
  fi
  printf '%s' "$body"
}
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

TOKEN=$(api POST /login "{\"email\":\"$EMAIL\",\"password\":\"$PASSWORD\"}" | field token)
# real records, so lists answer items to check against their schemas and ids 1 exist
product=$(api POST /products '{"productName":"fuzz product","cloudProtocol":1}' | field productID)
api POST /devices "{\"productID\":\"$product\",\"deviceName\":\"fuzz device\",\"deviceType\":1,\"upLinkSystem\":1,\"authType\":1,\"cloudProtocol\":1}" >/dev/null
api POST /groups "{\"productID\":\"$product\",\"groupName\":\"fuzz group\"}" >/dev/null

# deterministic generation (the same cases every run) unless FUZZ_SEED asks for a seeded random run
generation=(--generation-deterministic)
[ -n "${FUZZ_SEED:-}" ] && generation=(--seed "$FUZZ_SEED")
echo "fuzz: $url, ${FUZZ_SEED:+seed $FUZZ_SEED, }$EXAMPLES examples per operation, at most ${SECONDS_BUDGET}s"
reports=()
[ -n "${FUZZ_REPORT_DIR:-}" ] && reports=(--report junit --report-dir "$FUZZ_REPORT_DIR")
# ensure_resource_availability is left out: it reads any 404 right after a linked create as "the created record is
# gone", but the API also answers 404 for an unknown id in the body or in `ids` (a device to bind, a data point of a
# resource), naming that field. Every other check runs. The request timeout is past the longest answer the API may
# take on purpose: `device_publish` with `wait` (up to 60 s) waits for a queued command's outcome.
status=0
timeout --kill-after=10 "$((SECONDS_BUDGET + 100))" "$VENV/bin/st" --config-file scripts/fuzz.toml run "$url/api/v1/openapi.json" \
  --checks all \
  --exclude-checks ensure_resource_availability \
  --header "Authorization: Bearer $TOKEN" \
  --header "X-Hook-Secret: $HOOK_SECRET" \
  --max-examples "$EXAMPLES" \
  --max-time "$SECONDS_BUDGET" \
  "${generation[@]}" \
  --workers 1 \
  --request-timeout 65 \
  --no-color \
  ${reports[@]+"${reports[@]}"} || status=$?

# the service logs every 500 (and any other error) as one JSON line at level error
if grep -qE '"level":"(error|fatal)"' "$work/service.log"; then
  echo "fuzz: the service logged errors:" >&2
  grep -E '"level":"(error|fatal)"' "$work/service.log" | head -20 >&2
  status=1
fi
[ "$status" = 124 ] && echo "fuzz: schemathesis did not finish within $((SECONDS_BUDGET + 100)) s" >&2
exit "$status"
