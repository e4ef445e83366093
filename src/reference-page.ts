/**
 * Node only: the API reference page at GET /, Swagger UI rendering the OpenAPI document,
 * served from the swagger-ui-dist package (no CDN) with the sandbox's key pre-filled.
 */
import { createRequire } from 'node:module'
import { dirname } from 'node:path'

/** Where swagger-ui-dist's files are, to be served as static assets. */
export function swaggerUiDirectory(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
}

/** The page. The key travels in a data attribute, so no inline script is needed. */
export function referencePage(assetsPath: string, apiKey: string): string {
  const key = escapeHtml(apiKey)
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Pet Store sandbox: API reference</title>
  <link rel="stylesheet" href="${assetsPath}/swagger-ui.css">
  <style>.sandbox-key { font: 14px/1.4 sans-serif; margin: 12px 20px; }</style>
</head>
<body>
  <p class="sandbox-key">API key: <code>${key}</code> (pre-filled under Authorize). Reset the data: <code>POST /__sandbox/reset</code>.</p>
  <div id="swagger-ui" data-api-key="${key}"></div>
  <script src="${assetsPath}/swagger-ui-bundle.js"></script>
  <script src="${assetsPath}/reference.js"></script>
</body>
</html>
`
}

/** Starts Swagger UI on /openapi.json and authorises it with the key from the page. */
export const REFERENCE_SCRIPT = `const root = document.getElementById('swagger-ui')
const ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  displayOperationId: true,
  // The default validator badge calls an external service; the sandbox works offline.
  validatorUrl: null,
  onComplete: () => ui.preauthorizeApiKey('bearerAuth', root.dataset.apiKey),
})
`

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
