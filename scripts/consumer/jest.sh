#!/usr/bin/env bash
# jest from the tarball. `esm`: examples/jest, ESM mode (the recipe). `commonjs`:
# examples/jest-commonjs, which needs a Node where jest can require() ES modules (24.9+).
# `commonjs-blocked`: the same project on a Node where msw's ESM-only dependency rettime stops
# it; passes only while it still fails there, so the README's "blocked" stays true.
#
# Usage: jest.sh MODE [MODE...]. Several modes, one after the other, share one install: the first
# project installs, and the next ones take its node_modules as hard links. That is the tree their
# own install makes on the same Node with the same msw: examples/jest's one more dependency,
# @jest/globals, is one jest itself brings (both projects installed apart listed the same 347
# packages at the same versions). Each mode's project must want nothing the first did not
# install (checked below); otherwise it installs for itself. One install of jest and msw is
# about 10 CPU-s here.
# Each mode's own result goes to $CONSUMER_REPORT.MODE (pass or FAIL), for run.sh's row of it: one
# mode failing does not stop the next, and the job fails when any did. A failed install fails
# them all.
source "$(dirname "$0")/lib.sh"
usage='usage: jest.sh esm|commonjs|commonjs-blocked [...], each mode once'
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
[ "$(printf '%s\n' "$@" | sort | uniq -d)" = '' ] || { echo "$usage" >&2; exit 2; }
echo "Node $(node --version), msw $msw_range, jest $*"

# The test of one mode, in the project it set up.
run_mode() {
  local mode=$1
  if [ "$mode" != commonjs-blocked ]; then
    npm test
    return
  fi
  if npm test >"$work/jest.log" 2>&1; then
    echo "jest in a CommonJS project now passes on Node $(node --version): update the README's compatibility table" >&2
    return 1
  fi
  if ! grep -q 'Must use import to load ES Module: .*/node_modules/rettime/' "$work/jest.log"; then
    echo "jest in a CommonJS project failed for another reason than msw's ES modules:" >&2
    cat "$work/jest.log" >&2
    return 1
  fi
  echo "As documented, jest in a CommonJS project on Node $(node --version) stops at:"
  grep -m1 'Must use import to load ES Module' "$work/jest.log"
}

failed=0
installed_in= installed_example=
for mode in "$@"; do
  echo "--- jest $mode"
  example=$([ "$mode" = esm ] && echo jest || echo jest-commonjs)
  project_from_example "$example"
  # The other project's node_modules serve this one when this example wants no package, and no
  # range of one, that the other's did not (the examples as committed: an install rewrites the
  # ranges of what it is given, the tarball and msw).
  if [ -n "$installed_in" ] && node -e '
    const [want, have] = process.argv.slice(1).map((dir) => require(dir + "/package.json").devDependencies)
    process.exit(Object.entries(want).every(([name, range]) => have[name] === range) ? 0 : 1)' \
    "$repo/examples/$example" "$repo/examples/$installed_example"; then
    cp -al "$installed_in/node_modules" .
    echo "node_modules from the $(basename "$installed_in") project (hard links): the same install"
  else
    install_with_tarball "msw@$msw_range"
    installed_in=$PWD installed_example=$example
  fi
  echo "Installed msw $(installed_version msw), jest $(installed_version jest)"
  adapt_to_msw pets.test.js

  result=pass
  (run_mode "$mode") || { result=FAIL; failed=1; }
  if [ -n "${CONSUMER_REPORT:-}" ]; then echo "$result" >"$CONSUMER_REPORT.$mode"; fi
  echo "--- jest $mode: $result"
done
exit "$failed"
