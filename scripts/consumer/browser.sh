#!/usr/bin/env bash
# examples/browser built with Vite from the tarball and msw $CONSUMER_MSW, as a user builds the
# static demo: its vite.config.ts puts it under the sub-path /petstore-demo/, and
# test/browser-example.test.ts serves dist/ there as a static host would and drives it in Debian's
# Chromium: reloads, two tabs, reset, a changed seed, the panel, corrupt storage (the repository's
# harness drives; the page, its msw, its service worker and the panel all come from this project).
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
