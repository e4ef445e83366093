// Builds dist/ in a source checkout on the CLI's first run there (`npm install && npx
// petstore-sandbox` in a fresh clone). An installed package always ships its build, so there a
// missing bundle means a broken install, said plainly instead of as a stack trace.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * Runs `npm run build:js` in the checkout at `root` (the JavaScript the CLI runs; `npm run build`
 * adds the type declarations, which the CLI does not need, in 7 s more), or exits with a message
 * when it is not one.
 */
export function buildCheckout(root) {
  const directory = fileURLToPath(root)
  if (!existsSync(new URL('scripts/bundle-cli.mjs', root))) {
    console.error(`petstore-sandbox: ${directory}dist/cli.cjs is missing; reinstall the package.`)
    process.exit(1)
  }
  console.error('petstore-sandbox: first run in a source checkout: building dist/ (npm run build:js)')
  // The build's own output goes to stderr, so stdout stays the server's.
  const result = spawnSync('npm', ['run', 'build:js', '--silent'], { cwd: directory, stdio: ['ignore', 2, 2] })
  if (result.status !== 0) {
    console.error(
      `petstore-sandbox: the build failed (exit ${result.status ?? result.signal}); run npm run build:js to see why.`,
    )
    process.exit(1)
  }
}
