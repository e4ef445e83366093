import { copyFileSync, existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { defineConfig, type Plugin } from 'vite'

const require = createRequire(import.meta.url)
const source = (file: string) => fileURLToPath(new URL(`../../src/${file}`, import.meta.url))

// msw's service worker must come from the same msw version as the page: copy it from the
// installed package at build time instead of committing a copy that would drift. It goes to the
// root of the build, which Vite serves under `base`: the page registers it at
// `${import.meta.env.BASE_URL}mockServiceWorker.js` (src/main.ts). In your own app,
// `npx msw init public --save` does the same through Vite's public/ folder.
const mswWorker = (): Plugin => {
  let base = '/'
  return {
    name: 'msw-worker',
    configResolved(config) {
      base = config.base
    },
    configureServer(server) {
      server.middlewares.use(`${base}mockServiceWorker.js`, (_request, response) => {
        response.setHeader('Content-Type', 'text/javascript')
        response.end(readFileSync(require.resolve('msw/mockServiceWorker.js')))
      })
    },
    writeBundle(options) {
      copyFileSync(require.resolve('msw/mockServiceWorker.js'), `${options.dir ?? 'dist'}/mockServiceWorker.js`)
    },
  }
}

export default defineConfig({
  // Served under a sub-path, as on GitHub Pages (https://you.github.io/petstore-demo/) or any
  // static host: every asset URL, and import.meta.env.BASE_URL, carry it. For another path, change
  // it here or build with `vite build --base=/your/path/`; for a site's root, `--base=/`.
  base: '/petstore-demo/',
  // Inside this repository the example runs against the package's source; in your own app,
  // `npm install petstore-sandbox msw` and drop these aliases.
  resolve: existsSync(source('index.ts'))
    ? {
        alias: [
          { find: /^petstore-sandbox$/, replacement: source('index.ts') },
          { find: /^petstore-sandbox\/panel$/, replacement: source('panel.ts') },
        ],
      }
    : {},
  build: {
    target: 'es2022',
    // This page is nothing but mocks: msw, zod and the sandbox make one chunk of about 610 kB
    // minified (590 kB with msw 3), half of it tough-cookie and its public suffix list, which msw's
    // cookie store brings. Faker, needed only for generated data, is a chunk of its own loaded on
    // demand, and so are the browser storage and the panel. Splitting the rest would not load
    // less: the page needs all of it before it can answer. In an app, mocks load in development
    // only and add nothing to production chunks.
    chunkSizeWarningLimit: 700,
  },
  plugins: [mswWorker()],
})
