import { copyFileSync, existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { defineConfig, type Plugin } from 'vite'

const require = createRequire(import.meta.url)
const source = fileURLToPath(new URL('../../src/index.ts', import.meta.url))

// msw's service worker must come from the same msw version as the page: copy it from the
// installed package at build time instead of committing a copy that would drift.
const mswWorker: Plugin = {
  name: 'msw-worker',
  configureServer(server) {
    server.middlewares.use('/mockServiceWorker.js', (_request, response) => {
      response.setHeader('Content-Type', 'text/javascript')
      response.end(readFileSync(require.resolve('msw/mockServiceWorker.js')))
    })
  },
  writeBundle(options) {
    copyFileSync(require.resolve('msw/mockServiceWorker.js'), `${options.dir ?? 'dist'}/mockServiceWorker.js`)
  },
}

export default defineConfig({
  // Inside this repository the example runs against the package's source; in your own app,
  // `npm install petstore-sandbox msw` and drop this alias.
  resolve: existsSync(source) ? { alias: { 'petstore-sandbox': source } } : {},
  build: {
    target: 'es2022',
    // This page is nothing but mocks: msw, zod and the sandbox make one chunk of about 610 kB
    // minified (590 kB with msw 3), half of it tough-cookie and its public suffix list, which msw's
    // cookie store brings. Faker, needed only for generated data, is a chunk of its own loaded on
    // demand. Splitting the rest would not load less: the page needs all of it before it can
    // answer. In an app, mocks load in development only and add nothing to production chunks.
    chunkSizeWarningLimit: 700,
  },
  plugins: [mswWorker],
})
