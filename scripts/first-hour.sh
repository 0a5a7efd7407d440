#!/usr/bin/env bash
# A new user's first hour, checked: clones this repository into a scratch directory and runs the
# README's Quickstart there as written: `npm install`, then `npm start` until its banner, then
# the banner's own curl. With test files given, also `npm test -- <files>`. Prints how long each
# step took and exits non-zero at the first failure. Not part of `npm test`.
#
#   scripts/first-hour.sh [test files...]
#
# REPO (default: this checkout, its committed HEAD), PORT (default 4000, as the README) and
# BANNER_TIMEOUT (seconds, default 900) may be set; KEEP=1 leaves the scratch directory.
set -euo pipefail

repo=${REPO:-$(cd "$(dirname "$0")/.." && pwd)}
banner_timeout=${BANNER_TIMEOUT:-900}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/wfapi-first-hour-XXXXXX")
server_pid=
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
fail() { echo "first-hour: FAILED: $*" >&2; exit 1; }
cleanup() {
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if [[ ${KEEP:-0} == 1 ]]; then echo "first-hour: kept $scratch"; else rm -rf "$scratch"; fi
}
trap cleanup EXIT

echo "first-hour: cloning $repo into $scratch"
git clone --quiet "$repo" "$scratch/wfapi"
cd "$scratch/wfapi"

started=$(now)
npm install > "$scratch/install.log" 2>&1 || { tail -20 "$scratch/install.log" >&2; fail "npm install"; }
install_s=$(since "$started")
warnings=$(grep -c 'npm warn' "$scratch/install.log" || true)
echo "first-hour: npm install took ${install_s} s (${warnings} npm warnings)"
grep 'EBADENGINE' "$scratch/install.log" >&2 && fail "npm install warned about an engine"
[[ -z $(git status --porcelain) ]] || { git status --short >&2; fail "npm install changed tracked files"; }

# PORT is read by the demo (4000 unless set); the README's command is run as written.
started=$(now)
npm start > "$scratch/start.out" 2> "$scratch/start.err" &
server_pid=$!
until grep -q '^Try it:' "$scratch/start.out" 2>/dev/null; do
  kill -0 "$server_pid" 2>/dev/null || { cat "$scratch/start.err" >&2; fail "npm start exited before its banner"; }
  [[ $(since "$started" | cut -d. -f1) -lt $banner_timeout ]] || fail "no banner within ${banner_timeout} s"
  sleep 1
done
banner_s=$(since "$started")
echo "first-hour: npm start printed its banner after ${banner_s} s"

curl_line=$(grep -A1 '^Try it:' "$scratch/start.out" | tail -1)
[[ $curl_line == *curl* ]] || fail "the banner has no curl line"
started=$(now)
answer=$(bash -c "$curl_line") || fail "the banner's curl failed"
answer_s=$(since "$started")
[[ $answer == *'"data"'* && $answer != *'"errors"'* ]] || fail "the banner's curl answered: $answer"
echo "first-hour: the banner's curl answered in ${answer_s} s: ${answer:0:120}..."

if [[ $# -gt 0 ]]; then
  started=$(now)
  npm test -- "$@" || fail "npm test -- $*"
  echo "first-hour: npm test -- $* took $(since "$started") s"
fi
echo "first-hour: ok: install ${install_s} s, banner ${banner_s} s, first answer ${answer_s} s"
