#!/usr/bin/env bash
# CI's rehearsal of a machine with Node and npm only: in a mount namespace of its own (root, from
# util-linux's unshare), Chromium, HAProxy, Caddy, script and unshare are made unable to run
# (/dev/null bound over each, so the file is there but cannot execute, as `existsSync` would not
# notice), and the test files that need them run:
#   - without CI, they pass (exit 0), skipped, and the run ends with the notice naming each
#     program, the files that need it and how to install it;
#   - with CI=true, the run fails at once with the same notice.
# Nothing outside the namespace sees the programs go. Usage: bash scripts/rehearse-missing-programs.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
  echo "rehearse-missing-programs: needs root and unshare (util-linux) for a mount namespace" >&2
  exit 1
fi

FILES=(test/reference-page.test.ts test/haproxy.test.ts test/proxy.test.ts test/terminal.test.ts test/upstream.test.ts test/state-lock.test.ts test/disk-faults.test.ts)
# Every Chromium the tests would take (test/support/programs.ts): CHROMIUM_PATH, else Debian's
# headless shell and its full chromium, each where installed.
if [ -n "${CHROMIUM_PATH:-}" ]; then
  CHROMIUMS=("$CHROMIUM_PATH")
else
  CHROMIUMS=()
  for path in /usr/bin/chromium-headless-shell /usr/bin/chromium; do [ -e "$path" ] && CHROMIUMS+=("$path"); done
fi
PROGRAMS=("${CHROMIUMS[@]}" "$(command -v haproxy)" "$(command -v caddy)" "$(command -v script)" "$(command -v unshare)")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One namespace per run: the programs are hidden in it only.
run_without() {
  local ci=$1 log=$2
  PROGRAM_LIST="${PROGRAMS[*]}" FILE_LIST="${FILES[*]}" CI_VALUE=$ci LOG=$log unshare -m bash -c '
    for program in $PROGRAM_LIST; do mount --bind /dev/null "$program"; done
    if [ -n "$CI_VALUE" ]; then export CI=$CI_VALUE; else unset CI; fi
    npx vitest run $FILE_LIST >"$LOG" 2>&1
  '
}

status=0
run_without '' "$out/local.log" || status=$?
if [ "$status" != 0 ]; then
  cat "$out/local.log"
  echo "rehearse-missing-programs: without the programs, npm test's files exited $status, not 0" >&2
  exit 1
fi
for expected in 'Skipped: tests that need a program that does not run here' 'Chromium (' 'HAProxy:' 'Caddy:' "util-linux's script:" "util-linux's unshare with PID namespaces:" 'apt-get install -y chromium'; do
  if ! grep -qF "$expected" "$out/local.log"; then
    cat "$out/local.log"
    echo "rehearse-missing-programs: the notice does not say \"$expected\"" >&2
    exit 1
  fi
done
skipped=$(grep -oE '[0-9]+ skipped' "$out/local.log" | tail -1)
echo "Without Chromium, HAProxy, Caddy, script and unshare: exit 0, ${skipped:-none skipped}, and the notice:"
sed -n '/^Skipped: tests that need a program/,/^$/p' "$out/local.log"

status=0
run_without true "$out/ci.log" || status=$?
if [ "$status" = 0 ] || ! grep -qF 'CI=true, and programs the tests need do not run here' "$out/ci.log"; then
  cat "$out/ci.log"
  echo "rehearse-missing-programs: with CI=true and no programs, the run must fail with the notice (exit $status)" >&2
  exit 1
fi
echo "With CI=true and the same programs missing: exit $status, with the notice."
