#!/usr/bin/env bash
# examples/browser built with Vite from the tarball and msw $CONSUMER_MSW, then driven in
# Debian's Chromium by test/browser-example.test.ts (the repository's harness drives; the page,
# its msw and its service worker all come from this project).
source "$(dirname "$0")/lib.sh"
echo "Node $(node --version), msw $msw_range, examples/browser"

project_from_example browser
install_with_tarball "msw@$msw_range" vite@^8.0.0
msw_version=$(installed_version msw)
echo "Installed msw $msw_version, vite $(installed_version vite)"
npx vite build --logLevel warn
cd "$repo"
BROWSER_EXAMPLE_DIST="$work/browser/dist" BROWSER_EXAMPLE_MSW="$msw_version" \
  npx vitest run test/browser-example.test.ts --reporter=dot
