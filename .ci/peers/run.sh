#!/usr/bin/env bash
# Peers: pinned official MCP implementations, written by nobody here, pointed at mcp-tutor.
#
#   1. the conformance suite @modelcontextprotocol/conformance  -> `mcp-tutor serve`
#   2. the Python SDK client (mcp)                              -> `mcp-tutor serve`
#   3. the TypeScript client @modelcontextprotocol/client       -> `mcp-tutor serve`
#   4. `mcp-tutor check`                                        -> a small server built on the Python SDK;
#      it must pass every subscription rule and report exactly the SDK's known deviations
#      (expected-sdk-deviations.txt).
#
# Usage: bash .ci/peers/run.sh [--url URL] [--only conformance|python|typescript|check]...
#   --url URL   test this already-running server instead of starting `mcp-tutor serve` (parts 1-3)
#   --only X    run only part X (repeatable)
# Environment: PEERS_CACHE (default: .peers-cache/ in the repo) holds the installed peers;
#   MCP_TUTOR_BIN (default: built here with cargo); PEERS_TIMEOUT (seconds per wait, default 10).
# Needs Node >= 20 with npm and Python >= 3.11; reaches only the npm registry and PyPI, once.
# Ends with `N passed, M failed`; exit status 1 on any failure.
set -uo pipefail

CONFORMANCE_VERSION=0.2.0-alpha.12
TS_CLIENT_VERSION=2.4.0
PY_SDK_VERSION=2.3.0
SPEC_VERSION=2026-07-28
SCENARIOS=(server-stateless http-header-validation dns-rebinding-protection)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/.ci/peers
CACHE=${PEERS_CACHE:-$ROOT/.peers-cache}
WAIT=${PEERS_TIMEOUT:-10}
RUN=$CACHE/last-run # logs of this run, kept for reading after a failure

URL=""
ONLY=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --url) URL=${2:?--url needs a URL}; shift 2 ;;
    --only) ONLY+=("${2:?--only needs a part name}"); shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
wanted() { [[ ${#ONLY[@]} -eq 0 ]] || [[ " ${ONLY[*]} " == *" $1 "* ]]; }

passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }
section() { echo; echo "== peers: $*"; }

# Every process this script starts is recorded here and ended on exit, whatever the exit.
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  PIDS=()
}
trap cleanup EXIT
trap 'echo "peers: interrupted" >&2; exit 130' INT TERM

# `bounded SECONDS CMD...`: run CMD, killed if it outlives SECONDS (so nothing here can hang CI).
bounded() { timeout --kill-after=5 "$@"; }

# `start_server NAME LOG CMD...`: start CMD in the background, wait until it prints its URL, and set
# SERVER_URL. The URL is the first http://127.0.0.1... it prints; a bare origin gets `/mcp` added.
start_server() {
  local name=$1 log=$2
  shift 2
  "$@" >"$log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  SERVER_URL=""
  local deadline=$((SECONDS + 60))
  while [[ $SECONDS -lt $deadline ]]; do
    SERVER_URL=$(grep -m1 -oE 'https?://(127\.0\.0\.1|localhost|\[::1\]):[0-9]+[^[:space:]"]*' "$log" 2>/dev/null || true)
    if [[ -n $SERVER_URL ]]; then
      [[ $SERVER_URL =~ ^https?://[^/]+/?$ ]] && SERVER_URL=${SERVER_URL%/}/mcp
      echo "peers: $name is up at $SERVER_URL"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "peers: $name exited before printing its URL; its output:" >&2
      sed 's/^/    /' "$log" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "peers: $name printed no URL within 60 s; its output so far:" >&2
  sed 's/^/    /' "$log" >&2
  return 1
}

install_peers() {
  section "install pinned peers into $CACHE"
  local tool
  for tool in node npm python3; do
    command -v "$tool" >/dev/null || { echo "peers: '$tool' is not on PATH; the peers need Node >= 20 with npm and Python >= 3.11" >&2; return 1; }
  done
  if [[ $(node -p 'process.versions.node.split(".")[0]') -lt 20 ]]; then
    echo "peers: Node $(node --version) is too old; the peers need Node >= 20" >&2
    return 1
  fi
  mkdir -p "$CACHE"
  local npm_dir=$CACHE/npm
  local have_conf have_client
  have_conf=$(node -p "require('$npm_dir/node_modules/@modelcontextprotocol/conformance/package.json').version" 2>/dev/null)
  have_client=$(node -p "require('$npm_dir/node_modules/@modelcontextprotocol/client/package.json').version" 2>/dev/null)
  if [[ $have_conf == "$CONFORMANCE_VERSION" && $have_client == "$TS_CLIENT_VERSION" ]]; then
    echo "peers: npm peers cached (conformance $have_conf, client $have_client)"
  else
    echo "peers: installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION and @modelcontextprotocol/client@$TS_CLIENT_VERSION"
    mkdir -p "$npm_dir"
    # The conformance package declares node >= 22 only because of fs.globSync; the preload covers it.
    if ! bounded 600 npm install --prefix "$npm_dir" --no-package-lock --no-audit --no-fund --loglevel=error \
      --engine-strict=false "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" \
      "@modelcontextprotocol/client@$TS_CLIENT_VERSION"; then
      echo "peers: npm install failed (is the npm registry reachable?)" >&2
      return 1
    fi
  fi

  local venv=$CACHE/venv
  if "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$PY_SDK_VERSION')" 2>/dev/null; then
    echo "peers: Python SDK mcp==$PY_SDK_VERSION cached"
  else
    echo "peers: installing mcp==$PY_SDK_VERSION into $venv"
    rm -rf "$venv"
    if ! bounded 120 python3 -m venv "$venv"; then
      echo "peers: 'python3 -m venv' failed; Python >= 3.11 with the venv module is needed" >&2
      return 1
    fi
    if ! bounded 600 "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==$PY_SDK_VERSION"; then
      echo "peers: pip install mcp==$PY_SDK_VERSION failed (is PyPI reachable?)" >&2
      rm -rf "$venv"
      return 1
    fi
  fi
  PY=$venv/bin/python
  CONFORMANCE=$npm_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
  # ESM resolves packages from the importing file's folder, so the TypeScript client script runs
  # from a copy inside the npm prefix.
  cp "$HERE/ts_client.mjs" "$npm_dir/ts_client.mjs"
  TS_CLIENT=$npm_dir/ts_client.mjs
}

build_tutor() {
  if [[ -n ${MCP_TUTOR_BIN:-} ]]; then
    BIN=$MCP_TUTOR_BIN
    return 0
  fi
  section "build mcp-tutor"
  if ! (cd "$ROOT" && bounded 1800 cargo build --quiet --bin mcp-tutor); then
    echo "peers: cargo build failed" >&2
    return 1
  fi
  BIN=${CARGO_TARGET_DIR:-$ROOT/target}/debug/mcp-tutor
}

# Node 20 lacks fs.globSync, which the conformance suite imports; the preload supplies it.
if [[ $(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0) -lt 22 ]]; then
  NODE_CONFORMANCE=(node --require "$HERE/node20-globsync.cjs")
else
  NODE_CONFORMANCE=(node)
fi

run_conformance() {
  local url=$1 scenario log summary
  section "conformance suite $CONFORMANCE_VERSION, spec $SPEC_VERSION, against $url"
  for scenario in "${SCENARIOS[@]}"; do
    log=$RUN/conformance-$scenario.log
    (cd "$RUN" && NO_COLOR=1 FORCE_COLOR=0 bounded 300 "${NODE_CONFORMANCE[@]}" "$CONFORMANCE" server --url "$url" \
      --scenario "$scenario" --spec-version "$SPEC_VERSION" -o "$RUN/conformance-results") >"$log" 2>&1
    local status=$?
    # Show the per-check lines; the suite's full narrative stays in the log.
    sed -E 's/\x1b\[[0-9;]*m//g' "$log" >"$log.plain"
    grep -E '\] +(SUCCESS|FAILURE|WARNING|SKIPPED)' "$log.plain" | sed -E 's/^[0-9TZ:.-]+ +/  /'
    summary=$(grep -oE 'Passed: [0-9]+/[0-9]+, [0-9]+ failed, [0-9]+ warnings' "$log.plain" | tail -1)
    if [[ $status -eq 0 && -n $summary ]]; then
      pass "conformance $scenario ($summary)"
    else
      fail "conformance $scenario (exit $status${summary:+, $summary}; log: $log)"
      [[ -z $summary ]] && tail -n 20 "$log" | sed 's/^/    /'
    fi
  done
}

# `count_steps LOG`: add a client script's PASS/FAIL/SKIP lines to the totals.
count_steps() {
  local n
  n=$(grep -c '^PASS ' "$1"); passed=$((passed + n))
  n=$(grep -c '^FAIL ' "$1"); failed=$((failed + n))
  n=$(grep -c '^SKIP ' "$1"); skipped=$((skipped + n))
}

run_client() {
  local name=$1 log=$2 status
  shift 2
  "$@" >"$log" 2>&1
  status=$?
  grep -E '^(PASS|FAIL|SKIP) ' "$log"
  count_steps "$log"
  if [[ $status -ne 0 ]] && ! grep -q '^FAIL ' "$log"; then
    fail "$name: exit status $status with no step failed (log: $log)"
    tail -n 20 "$log" | sed 's/^/    /'
  fi
}

run_check_against_sdk() {
  section "mcp-tutor check against a server built on the Python SDK mcp==$PY_SDK_VERSION"
  if ! "$BIN" check --help 2>/dev/null | grep -q -- '--json'; then
    skip "mcp-tutor check is not built yet (no --json in 'mcp-tutor check --help')"
    return 0
  fi
  local sdk_log=$RUN/sdk-server.log status
  if start_server "Python SDK server" "$sdk_log" "$PY" "$HERE/sdk_server.py" --port 0; then
    local sdk_url=$SERVER_URL
    # Shown as a person sees it: one line per rule, the SDK's deviations named plainly.
    NO_COLOR=1 bounded 120 "$BIN" check --timeout "$WAIT" "$sdk_url" | sed 's/^/  | /'
    NO_COLOR=1 bounded 120 "$BIN" check --timeout "$WAIT" --json "$sdk_url" >"$RUN/check-http.json" 2>"$RUN/check-http.stderr"
    status=$?
    run_client "check (HTTP) vs expected deviations" "$RUN/check-http-compare.log" \
      "$PY" "$HERE/compare_check.py" "$RUN/check-http.json" "$HERE/expected-sdk-deviations.txt" --exit-status "$status"
  else
    fail "check: the Python SDK server did not start"
  fi
  cleanup

  # The same server over stdio: the only transport where "nothing after cancel" is observable.
  echo "peers: the same SDK server over stdio"
  local stdio_cmd=("$PY" "$HERE/sdk_server.py" --stdio)
  NO_COLOR=1 bounded 120 "$BIN" check --timeout "$WAIT" --stdio -- "${stdio_cmd[@]}" </dev/null | sed 's/^/  | /'
  NO_COLOR=1 bounded 120 "$BIN" check --timeout "$WAIT" --json --stdio -- "${stdio_cmd[@]}" </dev/null \
    >"$RUN/check-stdio.json" 2>"$RUN/check-stdio.stderr"
  status=$?
  run_client "check (stdio) vs expected deviations" "$RUN/check-stdio-compare.log" \
    "$PY" "$HERE/compare_check.py" "$RUN/check-stdio.json" "$HERE/expected-sdk-deviations-stdio.txt" --exit-status "$status"
}

main() {
  rm -rf "$RUN"
  mkdir -p "$RUN"
  local started=$SECONDS
  install_peers || { fail "install pinned peers"; finish; }

  local need_serve=0
  if [[ -z $URL ]] && { wanted conformance || wanted python || wanted typescript; }; then need_serve=1; fi
  if [[ $need_serve -eq 1 ]] || wanted check; then
    build_tutor || { fail "build mcp-tutor"; finish; }
  fi

  local url=$URL
  if [[ $need_serve -eq 1 ]]; then
    section "start mcp-tutor serve"
    if start_server "mcp-tutor serve" "$RUN/serve.log" "$BIN" serve --port 0; then
      url=$SERVER_URL
    else
      fail "mcp-tutor serve did not start"
      url=""
    fi
  fi

  if [[ -n $url ]]; then
    wanted conformance && run_conformance "$url"
    if wanted python; then
      section "Python SDK mcp==$PY_SDK_VERSION client against $url"
      run_client "python-sdk" "$RUN/python-client.log" bounded 120 "$PY" "$HERE/py_client.py" "$url" --timeout "$WAIT"
    fi
    if wanted typescript; then
      section "TypeScript @modelcontextprotocol/client@$TS_CLIENT_VERSION against $url"
      run_client "typescript-sdk" "$RUN/typescript-client.log" bounded 120 node "$TS_CLIENT" "$url" "$((WAIT * 1000))"
    fi
  fi
  # The tutor's own server is no longer needed; the check part starts its own.
  cleanup
  wanted check && run_check_against_sdk
  echo
  echo "peers: took $((SECONDS - started)) s; logs in $RUN"
  finish
}

finish() {
  cleanup
  if [[ $skipped -gt 0 ]]; then
    echo "$passed passed, $failed failed, $skipped skipped"
  else
    echo "$passed passed, $failed failed"
  fi
  [[ $failed -eq 0 ]] || exit 1
  exit 0
}

main
