#!/usr/bin/env bash
# jest from the tarball. `esm`: examples/jest, ESM mode (the recipe). `commonjs`:
# examples/jest-commonjs, which needs a Node where jest can require() ES modules (24.9+).
# `commonjs-blocked`: the same project on a Node where msw's ESM-only dependency rettime stops
# it; passes only while it still fails there, so the README's "blocked" stays true.
source "$(dirname "$0")/lib.sh"
mode=${1:?usage: jest.sh esm|commonjs|commonjs-blocked}
echo "Node $(node --version), msw $msw_range, jest $mode"

if [ "$mode" = esm ]; then project_from_example jest; else project_from_example jest-commonjs; fi
install_with_tarball "msw@$msw_range"
echo "Installed msw $(installed_version msw), jest $(installed_version jest)"
adapt_to_msw pets.test.js

if [ "$mode" != commonjs-blocked ]; then
  npm test
  exit 0
fi
if npm test >"$work/jest.log" 2>&1; then
  echo "jest in a CommonJS project now passes on Node $(node --version): update the README's compatibility table" >&2
  exit 1
fi
if ! grep -q 'Must use import to load ES Module: .*/node_modules/rettime/' "$work/jest.log"; then
  echo "jest in a CommonJS project failed for another reason than msw's ES modules:" >&2
  cat "$work/jest.log" >&2
  exit 1
fi
echo "As documented, jest in a CommonJS project on Node $(node --version) stops at:"
grep -m1 'Must use import to load ES Module' "$work/jest.log"
