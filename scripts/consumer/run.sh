#!/usr/bin/env bash
# The consumer matrix: packs the package once, then runs every job against the tarball, each in
# a project of its own, and prints a table of jobs, Node, msw, OS, result and time (also written
# to test-results/consumer-matrix.md). Node 22 and 24 come from the npm registry's `node` package,
# which installs the real binary. msw 3 needs Node >= 22.12, so Node 20 runs msw 2 only.
# Usage: run.sh [job-name...] (default: all).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
here="$repo/scripts/consumer"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Every job's npm reads one cache (npm's own, ~/.npm, which CI's npm ci filled with most of what
# they install) without asking the registry again for what it holds (--prefer-offline): a job's
# install then waits on the registry only for what no earlier install fetched.
export npm_config_prefer_offline=true
# CONSUMER_TARBALL, when set, is a tarball packed already (.ci/run packs once for attw and this).
export CONSUMER_TARBALL
if [ -z "${CONSUMER_TARBALL:-}" ]; then
  CONSUMER_TARBALL="$scratch/$(cd "$repo" && npm pack --silent --pack-destination "$scratch" | tail -n 1)"
  echo "Packed $(basename "$CONSUMER_TARBALL"): $(du -k "$CONSUMER_TARBALL" | cut -f1) KiB"
fi
test -f "$CONSUMER_TARBALL" || { echo "no tarball at $CONSUMER_TARBALL" >&2; exit 2; }
# Absolute: each job installs it from a project directory of its own.
CONSUMER_TARBALL=$(realpath "$CONSUMER_TARBALL")
echo "Tarball: $CONSUMER_TARBALL"

node_dir() {
  local major=$1
  if [ "$major" = 20 ]; then dirname "$(command -v node)"; return; fi
  if [ ! -x "$scratch/node$major/node_modules/node/bin/node" ]; then
    mkdir -p "$scratch/node$major"
    (cd "$scratch/node$major" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent "node@$major" 2>/dev/null)
  fi
  echo "$scratch/node$major/node_modules/node/bin"
}

os=$(. /etc/os-release && echo "Linux ($PRETTY_NAME)")
# name | Node major | msw range | command. A name of two joined by + is one job that runs both, in
# turn, on one install (jest.sh says why that is the same tree): each is a row of the table, with
# its own result (jest.sh writes one per mode, in the order of the names) and the job's time.
jobs=(
  "node20-msw2|20|^2.12.0|node.sh types"
  "node22-msw2|22|^2.12.0|node.sh"
  "node22-msw3|22|^3.0.0|node.sh types"
  "node24-msw2|24|^2.12.0|node.sh"
  "node24-msw3|24|^3.0.0|node.sh"
  "jest-esm-node20-msw2+jest-cjs-node20-blocked|20|^2.12.0|jest.sh esm commonjs-blocked"
  "jest-esm-node24-msw3+jest-cjs-node24-msw3|24|^3.0.0|jest.sh esm commonjs"
  "jest-cjs-node24-msw2|24|^2.12.0|jest.sh commonjs"
  "jest-cjs-node22-blocked|22|^2.12.0|jest.sh commonjs-blocked"
  "browser-msw2|20|^2.12.0|browser.sh"
  "browser-msw3|24|^3.0.0|browser.sh"
  "playwright-node20|20|-|playwright.sh"
  "playwright-readme|24|-|playwright-readme.sh"
)

# Each job runs in a project of its own, so four run at once (CONSUMER_PARALLEL, default 4): a
# job spends much of its time waiting on the registry (npm install: 17 s, of which 10 CPU-s) or on
# a child. On this 2-core machine the matrix took 453 s two at a time with the types checked in
# every node job, 293 s (521 CPU-s) four at a time with them in two (node.sh says why), and 265
# and 289 s (437 and 486 CPU-s, in CI) with bundler reading the project's code alone. Each job's
# output is printed whole when it ends, with its time and its CPU time.
# Each job installs for itself, even where two share a project and msw; only the joined jobs above,
# two projects on the same Node with the same msw, share one: npm picks versions by the running
# Node's engines.
# examples/vitest with msw 2 installed on Node 20 and on Node 24 gave two lock files (@inquirer/*
# 2.0.10 and 2.1.0, mute-stream 3 and 4: the newer need Node 22.22+), so an install shared between
# Node majors would test a tree no user of one of them gets. (Sharing did save 69 of the jobs' 482
# CPU-s.)
parallel=${CONSUMER_PARALLEL:-4}
# Whether a job was asked for: its name, or any of its rows, among the arguments.
asked() {
  local row
  for row in "$1" ${1//+/ }; do [[ " ${*:2} " == *" $row "* ]] && return 0; done
  return 1
}
for argument in "$@"; do
  known=
  for job in "${jobs[@]}"; do asked "${job%%|*}" "$argument" && known=1; done
  [ -n "$known" ] || { echo "run.sh: no job or row named $argument" >&2; exit 2; }
done
selected=()
declare -A majors=() # the Node majors the selected jobs need, each once
for job in "${jobs[@]}"; do
  IFS='|' read -r name major _ _ <<<"$job"
  if [ $# -gt 0 ] && ! asked "$name" "$@"; then continue; fi
  selected+=("$job")
  majors[$major]=1
done
# Each Node the jobs need, installed once before any job runs: the downloads at once (each is
# about 6.5 s of one core), then once more in turn, which installs nothing unless one failed.
for major in "${!majors[@]}"; do node_dir "$major" >/dev/null & done
wait
for major in "${!majors[@]}"; do node_dir "$major" >/dev/null; done

run_job() {
  local name=$1 major=$2 msw=$3 command=$4 directory started result cpu
  directory=$(node_dir "$major")
  started=$(date +%s)
  # shellcheck disable=SC2086
  if CONSUMER_NODE_DIR="$directory" CONSUMER_MSW="${msw/-/^2.12.0}" CONSUMER_REPORT="$scratch/$name.msw" \
    bash "$here"/$command >"$scratch/$name.log" 2>&1; then
    result=pass
  else
    result=FAIL
  fi
  echo "$result $(($(date +%s) - started))" >"$scratch/$name.result"
  # The CPU time of the job's processes (bash's `times`: this subshell's children, user and system).
  times >"$scratch/$name.times" # Not in a pipe or $(...): a forked shell counts no children.
  cpu=$(awk 'NR == 2 { split($1 " " $2, t, /[ms ]+/); printf "%.0f", t[1] * 60 + t[2] + t[3] * 60 + t[4] }' "$scratch/$name.times")
  {
    echo
    echo "=== consumer job $name ==="
    cat "$scratch/$name.log"
    echo "=== $name: $result in $(($(date +%s) - started)) s, $cpu CPU-s ==="
  } | flock "$scratch/print.lock" cat
}

running=0
for job in "${selected[@]}"; do
  IFS='|' read -r name major msw command <<<"$job"
  run_job "$name" "$major" "$msw" "$command" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait || true

summary="| job | Node | msw | OS | result | seconds |
| --- | --- | --- | --- | --- | --- |"
failed=0
for job in "${selected[@]}"; do
  IFS='|' read -r name major _ command <<<"$job"
  read -r result seconds <"$scratch/$name.result" || { result=FAIL; seconds=-; }
  [ "$result" = pass ] || failed=1
  version=$("$(node_dir "$major")/node" --version)
  installed=$([ -f "$scratch/$name.msw" ] && cat "$scratch/$name.msw" || echo "-")
  read -r -a words <<<"$command"
  index=1
  for row in ${name//+/ }; do
    # A joined job's row: its own mode's result, when the job got as far as writing it.
    own=$result
    if [[ $name == *+* ]]; then
      own=FAIL
      [ -f "$scratch/$name.msw.${words[$index]}" ] && own=$(cat "$scratch/$name.msw.${words[$index]}")
    fi
    summary+=$'\n'"| $row | ${version#v} | $installed | $os | $own | $seconds |"
    index=$((index + 1))
  done
done

echo
echo "$summary"
mkdir -p "$repo/test-results"
echo "$summary" >"$repo/test-results/consumer-matrix.md"
exit "$failed"
