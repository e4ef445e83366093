#!/usr/bin/env bash
# examples/playwright from the tarball: @playwright/test with Debian's Chromium, its webServer
# running `npx petstore-sandbox --isolate`, three workers each with its own key.
source "$(dirname "$0")/lib.sh"
echo "Node $(node --version), examples/playwright"

project_from_example playwright
playwright_version=$(node -p "require('$repo/node_modules/playwright-core/package.json').version")
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 install_with_tarball "@playwright/test@$playwright_version"
echo "Installed @playwright/test $(installed_version @playwright/test)"
npm run typecheck
echo "tsc: no errors"
port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })')
CI=1 PETSTORE_PORT=$port npx playwright test
# Every test passed, and in more than one worker: the keys really were many.
node -e '
  const report = require("./results.json")
  const results = []
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) for (const test of spec.tests) results.push(...test.results)
    for (const child of suite.suites ?? []) walk(child)
  }
  report.suites.forEach(walk)
  const workers = new Set(results.map((result) => result.workerIndex))
  const failed = results.filter((result) => result.status !== "passed")
  console.log(`Playwright: ${results.length} tests in ${workers.size} workers, ${failed.length} not passed`)
  if (failed.length > 0 || workers.size < 2 || results.length === 0) process.exit(1)'
