/**
 * What the server shows a person: the API reference page at `/` (Swagger UI over the OpenAPI
 * document, with the sandbox's key pre-filled), the document itself, and the page's assets
 * under `/__sandbox/docs`. The asset bytes come from the host (the Node server reads the files
 * it ships); the rules of who may read them are the admin routes'.
 *
 * May import: core/docs, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { ApiError } from '../http/errors.js'
import { ADMIN_PATH, DOCS_PATH, UI_PATH } from '../http/mounts.js'
import type { CoreResponse } from '../http/http.js'
import { createAdminOpenApiDocument, createOpenApiDocument } from './openapi.js'
import { dashboardPage, escapeHtml } from './dashboard-page.js'
import { REFERENCE_STYLE } from './reference-style.js'
import { servedDocument, type ServedDocument } from './served-document.js'
import type { AdminOperation, AdminRoute, SiteContext } from '../admin/exchange.js'

/** The 404 for a path outside the API: it says where the API and the admin routes are. */
export function notFoundOutsideApi(path: string, basePath: string): ApiError {
  return new ApiError(
    'not_found',
    `${path} does not exist; the API lives under ${basePath}, the admin routes under ${ADMIN_PATH}`,
  )
}

const referencePage: AdminOperation = {
  id: 'referencePage',
  summary: 'The API reference page',
  key: 'none',
  hidden: true,
  errors: [],
  success: [{ status: 200, description: 'The page', mediaType: 'text/html' }],
  // Another machine gets the page without the key, as it gets the dashboard: the key opens the
  // admin routes from there, so a page anyone on the network can fetch must not carry it.
  run: ({ site, elsewhere }) =>
    html(
      page({ assetsPath: DOCS_PATH, apiKey: elsewhere ? '' : site.defaultKey, document: '/openapi.json', elsewhere }),
    ),
}

/**
 * The admin routes' reference page. From this machine they take no key, so the page shows them
 * without one (no lock icon); from another machine it asks for the key, as the dashboard does.
 */
const adminReferencePage: AdminOperation = {
  id: 'adminReferencePage',
  summary: "The admin routes' reference page",
  key: 'none',
  hidden: true,
  errors: [],
  success: [{ status: 200, description: 'The page', mediaType: 'text/html' }],
  run: ({ elsewhere }) =>
    html(page({ assetsPath: DOCS_PATH, apiKey: '', document: `${ADMIN_PATH}/openapi.json`, admin: true, elsewhere })),
}

const docsAsset: AdminOperation = {
  id: 'docsAsset',
  summary: "The reference page's assets",
  key: 'optional',
  hidden: true,
  shipped: true,
  errors: ['not_found'],
  success: [{ status: 200, description: 'The file', mediaType: 'application/octet-stream' }],
  run({ params, site, target }) {
    const name = params.file ?? ''
    if (name === 'reference.js') {
      return { status: 200, headers: { 'Content-Type': 'text/javascript; charset=utf-8' }, body: REFERENCE_SCRIPT }
    }
    if (name === 'reference.css') {
      return { status: 200, headers: { 'Content-Type': 'text/css; charset=utf-8' }, body: REFERENCE_STYLE }
    }
    // Swagger UI's files change only with the package.
    return shipped(site, name, target.path, 'public, max-age=3600')
  },
}

/** The dashboard: an admin page, so served to allowed hosts and readable from local origins only. */
const dashboard: AdminOperation = {
  id: 'dashboard',
  summary: 'The dashboard',
  key: 'none',
  hidden: true,
  errors: [],
  success: [{ status: 200, description: 'The page', mediaType: 'text/html' }],
  // Another machine gets the page without the key: it asks for one (admin routes want it from there).
  run: ({ site, elsewhere }) =>
    html(
      dashboardPage({
        apiKey: elsewhere ? '' : site.defaultKey,
        apiBase: site.basePath,
        assetsPath: UI_PATH,
      }),
    ),
}

/** The dashboard's script and styles, built with the package and shipped by the host. */
const dashboardAsset: AdminOperation = {
  id: 'dashboardAsset',
  summary: "The dashboard's assets",
  key: 'none',
  hidden: true,
  shipped: true,
  errors: ['not_found'],
  success: [{ status: 200, description: 'The file', mediaType: 'application/octet-stream' }],
  // Revalidated: a rebuilt dashboard must not run beside a cached old script.
  run: ({ params, site, target }) => shipped(site, `ui/${params.file ?? ''}`, target.path, 'no-cache'),
}

/** A file the host ships, or the 404 any unknown path outside the API gets. */
function shipped(site: SiteContext, name: string, path: string, cacheControl: string): CoreResponse {
  const asset = site.assets(name)
  if (asset === undefined) throw notFoundOutsideApi(path, site.basePath)
  return { status: 200, headers: { 'Content-Type': asset.type, 'Cache-Control': cacheControl }, body: asset.bytes }
}

/** The site's routes; each sandbox gets its own, holding its own copy of the documents once built. */
export function siteRoutes(): AdminRoute[] {
  return [
    { area: 'site', path: '/', methods: { GET: referencePage } },
    { area: 'site', path: '/openapi.json', methods: { GET: documentRoute('openApiDocument', createOpenApiDocument) } },
    { area: 'admin', path: '/reference', methods: { GET: adminReferencePage } },
    {
      area: 'admin',
      path: '/openapi.json',
      methods: { GET: documentRoute('adminOpenApiDocument', createAdminOpenApiDocument) },
    },
    { area: 'admin', path: '/docs/{file}', methods: { GET: docsAsset } },
    { area: 'admin', path: '/', methods: { GET: dashboard } },
    { area: 'admin', path: '/ui/{file}', methods: { GET: dashboardAsset } },
  ]
}

/**
 * A document, built on first request: nothing at start-up needs it, and it never changes. On a
 * server its servers start with the sandbox's own address, as the request named it
 * (served-document.ts).
 */
function documentRoute(id: string, build: () => Readonly<Record<string, unknown>>): AdminOperation {
  let document: ServedDocument | undefined
  return {
    id,
    summary: 'An OpenAPI document',
    key: 'none',
    hidden: true,
    shipped: true,
    errors: [],
    success: [{ status: 200, description: 'The document' }],
    run({ request, site }) {
      document ??= servedDocument(build())
      return { status: 200, headers: { 'Content-Type': 'application/json' }, body: document.text(site.origin(request)) }
    },
  }
}

/**
 * The pages' headers. The dashboard and the reference page steer and show the sandbox with no key
 * from this machine, so another site must not frame them (a click on Reset in a hidden frame would
 * be the sandbox's own request): frame-ancestors 'none', and X-Frame-Options for browsers that
 * predate it. They run their own files only: no inline script or style, nothing from elsewhere
 * (data: for the blank icon and Swagger UI's inline SVG images).
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
})

function html(text: string): CoreResponse {
  return { status: 200, headers: PAGE_HEADERS, body: text }
}

interface PageOptions {
  readonly assetsPath: string
  /** The key pre-filled under Authorize; none on the admin page. */
  readonly apiKey: string
  readonly document: string
  /** The admin routes' page; `elsewhere`: opened from another machine, so the key is asked for, never shown. */
  readonly admin?: boolean
  readonly elsewhere?: boolean
}

/** A reference page. The key travels in data attributes, so no inline script or style is needed. */
function page({ assetsPath, apiKey, document, admin = false, elsewhere = false }: PageOptions): string {
  const key = escapeHtml(apiKey)
  const line = admin
    ? `The sandbox's admin routes. ${elsewhere ? 'From another machine they want an API key: enter it under Authorize.' : 'From this machine they take no key.'} The Pet Store API itself: <a href="/">its reference</a>. See the data and the traffic live: <a href="${ADMIN_PATH}/">the dashboard</a>.`
    : `${elsewhere ? "The API wants one of the sandbox's API keys: enter it under Authorize." : `API key: <code>${key}</code> (pre-filled under Authorize).`} The sandbox's own routes (reset, scenarios, the journal): <a href="${ADMIN_PATH}/reference">their reference</a>. See the data and the traffic live: <a href="${ADMIN_PATH}/">the dashboard</a>.`
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Pet Store sandbox: ${admin ? 'admin routes' : 'API reference'}</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${assetsPath}/swagger-ui.css">
  <link rel="stylesheet" href="${assetsPath}/reference.css">
</head>
<body>
  <p class="sandbox-key">${line}</p>
  <div id="swagger-ui" data-api-key="${key}" data-document="${escapeHtml(document)}" data-keyless="${String(admin && !elsewhere)}"></div>
  <script src="${assetsPath}/swagger-ui-bundle.js"></script>
  <script src="${assetsPath}/reference.js"></script>
</body>
</html>
`
}

/**
 * Starts Swagger UI on the page's document and authorises it with the page's key. On the admin
 * page opened from this machine, where no key is needed, the document's optional key is taken out
 * first, so no operation shows a lock. The document's first server is the sandbox's address as
 * the Host named it; behind a proxy that rewrites Host that is not where the page came from, and
 * the page's calls would go astray: it then keeps the relative server, which resolves to its own.
 */
const REFERENCE_SCRIPT = `const root = document.getElementById('swagger-ui')
const options = {
  dom_id: '#swagger-ui',
  deepLinking: true,
  displayOperationId: true,
  // The default validator badge calls an external service; the sandbox works offline.
  validatorUrl: null,
  onComplete: () => {
    if (root.dataset.apiKey) ui.preauthorizeApiKey('bearerAuth', root.dataset.apiKey)
  },
}
let ui
fetch(root.dataset.document)
  .then((response) => response.json())
  .then((spec) => {
    spec.servers = spec.servers.filter(
      (server, index) => index > 0 || server.url.startsWith('/') || new URL(server.url).origin === location.origin,
    )
    if (root.dataset.keyless === 'true') {
      for (const item of Object.values(spec.paths)) {
        for (const operation of Object.values(item)) delete operation.security
      }
      delete spec.components.securitySchemes
    }
    ui = SwaggerUIBundle({ ...options, spec })
  })
`
