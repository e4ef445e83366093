#!/usr/bin/env bash
# The README's Playwright config and test, as the README shows them (read from README.md, never a
# copy), in an empty project with the tarball and @playwright/test: its `npm run dev` is a small
# app of its own (a page that lists pets from the sandbox, or shows an alert), its browser is
# Debian's Chromium through CHROMIUM_PATH, which the config reads (nothing is downloaded).
source "$(dirname "$0")/lib.sh"
echo "Node $(node --version), the README's Playwright config"

mkdir -p "$work/readme/tests"
cd "$work/readme"
# The two ts blocks of the README's Playwright section: the config, then the test.
node - "$repo/README.md" <<'EOF'
const { readFileSync, writeFileSync } = require('node:fs')
const readme = readFileSync(process.argv[2], 'utf8')
const start = readme.indexOf('### An end-to-end suite: Playwright\n')
if (start < 0) throw new Error("README.md has no section '### An end-to-end suite: Playwright'")
const section = readme.slice(start, readme.indexOf('\n## ', start))
const blocks = [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1])
if (blocks.length !== 2) throw new Error(`the README's Playwright section has ${blocks.length} ts blocks, not 2`)
writeFileSync('playwright.config.ts', blocks[0])
writeFileSync('tests/pets.spec.ts', blocks[1])
EOF
# The app: every path is a page whose one call lists pets from the sandbox, with the key the app
# was built with; on an error it shows an alert. Vite's dev server would be on localhost:5173 too.
cat >app.mjs <<'EOF'
import { createServer } from 'node:http'

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pets</title></head>
<body><h1>Pets</h1><ul></ul>
<script type="module">
  const response = await fetch('http://127.0.0.1:3210/v1/pets?limit=3', {
    headers: { Authorization: 'Bearer petstore-sandbox-key' },
  })
  if (response.ok) {
    for (const pet of await response.json()) {
      document.querySelector('ul').append(Object.assign(document.createElement('li'), { textContent: pet.name }))
    }
  } else {
    document.body.insertAdjacentHTML('beforeend', '<p role="alert">The pets did not load (' + response.status + ').</p>')
  }
</script></body></html>`
createServer((_, response) => response.writeHead(200, { 'Content-Type': 'text/html' }).end(page)).listen(5173, 'localhost')
EOF
cat >package.json <<'EOF'
{ "name": "readme-playwright", "private": true, "type": "module", "scripts": { "dev": "node app.mjs" } }
EOF
playwright_version=$(node -p "require('$repo/node_modules/playwright-core/package.json').version")
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 install_with_tarball "@playwright/test@$playwright_version"
echo "Installed @playwright/test $(installed_version @playwright/test)"

# The README's ports are fixed (5173, 3210): where the machine allows it, the run gets a loopback
# of its own (a network namespace), so a sandbox or app a developer left running cannot meet it.
# Elsewhere it runs as it is; under CI=1 Playwright then refuses a port already taken.
run=(env CI=1 CHROMIUM_PATH=/usr/bin/chromium PLAYWRIGHT_JSON_OUTPUT_NAME=results.json npx playwright test --reporter=list,json)
if command -v ip >/dev/null && unshare -rn true 2>/dev/null; then
  echo "Running in a network namespace of its own"
  unshare -rn bash -c 'ip link set lo up && exec "$@"' bash "${run[@]}"
else
  "${run[@]}"
fi
# The test passed: the app's page got the worker's 503 and showed its alert.
node -e '
  const report = require("./results.json")
  const results = []
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) for (const test of spec.tests) results.push(...test.results)
    for (const child of suite.suites ?? []) walk(child)
  }
  report.suites.forEach(walk)
  const failed = results.filter((result) => result.status !== "passed")
  console.log(`Playwright: ${results.length} tests, ${failed.length} not passed`)
  if (failed.length > 0 || results.length === 0) process.exit(1)'
