/**
 * The dashboard's HTML document, served at `/__sandbox/`: the landmarks, panels, forms and
 * empty regions that `main.ts` (bundled as `app.js`) fills in. The key and the API's base path
 * travel in data attributes on `#dashboard`, so the page needs no inline script or style. A page
 * served to another machine has an empty key: it asks for one in `#key-form`.
 * Platform-free: the core imports it and renders it as a plain string.
 *
 * May import: core/docs, core/admin, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import { PET_STATUSES } from '../api/contract.js'

interface DashboardPageOptions {
  /** The key the page sends to the API (its create form); empty for another machine, which is asked for it. */
  apiKey: string
  /** The API's base path, e.g. `/v1`. */
  apiBase: string
  /** Where `app.js` and `app.css` are served, e.g. `/__sandbox/ui`. */
  assetsPath: string
}

export function dashboardPage(options: DashboardPageOptions): string {
  const key = escapeHtml(options.apiKey)
  const base = escapeHtml(options.apiBase)
  const assets = escapeHtml(options.assetsPath)
  const statusOptions = PET_STATUSES.map((s) => `<option value="${s}">${s}</option>`).join('')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Pet Store sandbox: dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets}/app.css">
<script type="module" src="${assets}/app.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to the dashboard</a>
<div id="dashboard" data-api-key="${key}" data-api-base="${base}">
<header class="top">
<h1>Pet Store sandbox</h1>
<nav aria-label="Sandbox"><a href="#controls-panel">Controls</a> <a href="#requests-panel">Requests</a> <a href="#data-panel">Data</a> <a href="/">API reference</a></nav>
<div id="tenant-field" class="field" hidden>
<label for="tenant">Tenant</label>
<div class="row"><span id="tenant-swatch" class="tenant-swatch" aria-hidden="true"></span><select id="tenant"></select></div>
</div>
<p id="connection" role="status">Live updates: connecting</p>
</header>
<main id="main" tabindex="-1">
<noscript><p>The dashboard needs JavaScript.</p></noscript>
<p id="status" class="status" role="status" aria-live="polite"></p>
<form id="key-form" class="panel key-form" aria-labelledby="key-heading" novalidate hidden>
<h2 id="key-heading">API key</h2>
<p id="key-hint">This sandbox is reachable from other machines; enter its API key (one of its <code>--api-key</code> keys). This tab keeps it until it is closed.</p>
<div class="row wrap">
<div class="field">
<label for="key-input">API key</label>
<input id="key-input" name="key" type="password" required autocomplete="off" spellcheck="false" aria-describedby="key-hint key-error">
</div>
<button type="submit" id="key-submit">Use this key</button>
</div>
<div id="key-error" class="alert" role="alert"></div>
</form>
<div class="panels">

${REQUESTS_PANEL}

${dataPanel(base, statusOptions)}

${CONTROLS_PANEL}

${LIVE_PANELS}
</div>
</main>
</div>
</body>
</html>
`
}

/**
 * The requests with their details, filled in by `main.ts`: first in the page, so on a wide screen
 * the live journal is in the first screen, above the data and the controls (app.css).
 */
const REQUESTS_PANEL = `<section id="requests-panel" class="panel" aria-labelledby="journal-heading">
<div class="journal-wrap">
<div class="journal-side">
<h2 id="journal-heading">Requests, newest first</h2>
<p class="hint" id="journal-hint">Live. Arrow keys move between requests; Enter or Space shows one.</p>
<div class="journal-head" aria-hidden="true"><span>Time</span><span>Method</span><span>Path</span><span>Status</span><span class="dur">Duration</span><span>Operation</span><span class="tenant">Tenant</span></div>
<ol id="journal" class="journal" aria-labelledby="journal-heading" aria-describedby="journal-hint"></ol>
<p id="journal-empty" class="hint">No requests yet.</p>
</div>
<section id="request-details" class="details" aria-labelledby="details-heading">
<h3 id="details-heading">Request details</h3>
<div id="details-body"><p class="hint">Select a request to see its headers and body.</p></div>
</section>
</div>
</section>`

/** Data: the pets table, its filter and pages, and the create form. */
function dataPanel(base: string, statusOptions: string): string {
  return `<section id="data-panel" class="panel" aria-labelledby="data-heading">
<h2 id="data-heading">Data</h2>
<p id="data-source" class="hint" hidden></p>
<div class="field inline">
<label for="status-filter">Status filter</label>
<select id="status-filter"><option value="">All statuses</option>${statusOptions}</select>
</div>
<div class="scroll">
<table id="pets" aria-describedby="pets-range">
<caption>Pets in id order. <span class="badge new">new</span> marks a pet created since the last reset.</caption>
<thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Category</th><th scope="col">Status</th></tr></thead>
<tbody id="pets-body"></tbody>
</table>
</div>
<nav class="pager" aria-label="Pages of pets">
<button type="button" id="page-first">First page</button>
<button type="button" id="page-prev">Previous page</button>
<p id="pets-range" aria-live="off">Loading</p>
<button type="button" id="page-next">Next page</button>
<button type="button" id="page-last">Last page</button>
</nav>
<h3 id="create-heading">Create a pet</h3>
<form id="create-form" class="create" aria-labelledby="create-heading" novalidate>
<p id="create-hint" class="hint">Sent as <code>POST ${base}/pets</code> with the page's key<span id="create-isolated" hidden>, so it creates in the default key's data whichever tenant is shown</span>.</p>
<div class="field">
<label for="create-name">Name</label>
<input id="create-name" name="name" required autocomplete="off" aria-describedby="create-name-error">
<p id="create-name-error" class="field-error"></p>
</div>
<div class="field">
<label for="create-category">Category id</label>
<input id="create-category" name="categoryId" required inputmode="numeric" autocomplete="off" aria-describedby="create-category-error">
<p id="create-category-error" class="field-error"></p>
</div>
<div class="field">
<label for="create-status">Status</label>
<select id="create-status" name="status"><option value="">none</option>${statusOptions}</select>
</div>
<button type="submit" id="create-submit">Create pet</button>
<div id="create-error" class="alert" role="alert"></div>
</form>
</section>`
}

/** Controls: reset, scenarios, checkpoints, the state as a file. Nothing in it varies. */
const CONTROLS_PANEL = `<section id="controls-panel" class="panel" aria-labelledby="controls-heading">
<h2 id="controls-heading">Controls</h2>
<h3>Reset</h3>
<p class="hint" id="reset-hint">Restores the seed and the id sequence, and clears the journal and the scenarios. Checkpoints are kept.</p>
<div class="row">
<button type="button" id="reset" class="danger" aria-describedby="reset-hint">Reset data</button>
<button type="button" id="reset-confirm" class="danger" hidden>Confirm reset</button>
<button type="button" id="reset-cancel" hidden>Cancel</button>
</div>
<div id="reset-error" class="alert" role="alert"></div>
<h3 id="checkpoints-heading">Checkpoints</h3>
<p class="hint" id="checkpoints-hint">A copy of the data, saved under a name, to rewind to.</p>
<ul id="checkpoints" class="checkpoints" aria-labelledby="checkpoints-heading" aria-describedby="checkpoints-hint"></ul>
<div id="checkpoints-error" class="alert" role="alert"></div>
<form id="checkpoint-form" class="checkpoint-form" aria-label="Save a checkpoint" novalidate>
<div class="field">
<label for="checkpoint-name">Save as…</label>
<p class="hint" id="checkpoint-name-rule">Up to 64 letters, digits, “.”, “_” or “-”, such as <code>before-checkout</code>.</p>
<input id="checkpoint-name" name="name" required autocomplete="off" spellcheck="false" aria-describedby="checkpoint-name-rule checkpoint-name-error">
<p id="checkpoint-name-error" class="field-error" role="alert"></p>
</div>
<div class="check"><input type="checkbox" id="checkpoint-scenarios" name="scenarios"><label for="checkpoint-scenarios">with scenarios</label></div>
<button type="submit" id="checkpoint-save">Save</button>
<button type="button" id="checkpoint-replace" class="secondary" aria-describedby="checkpoint-name-error" hidden>Replace it</button>
</form>
<h3 id="scenarios-heading">Scenarios</h3>
<div class="row wrap" id="scenario-presets" role="group" aria-label="Add a scenario"></div>
<ul id="scenarios" class="scenarios" aria-label="Scenarios in force"></ul>
<button type="button" id="scenarios-clear">Clear all scenarios</button>
<div id="scenarios-error" class="alert" role="alert"></div>
<h3 id="holds-heading">Held requests</h3>
<p class="hint" id="holds-hint">Calls a hold keeps waiting (<code>POST /__sandbox/holds</code>); Release lets them answer.</p>
<ul id="holds" class="checkpoints" aria-labelledby="holds-heading" aria-describedby="holds-hint"></ul>
<div id="holds-error" class="alert" role="alert"></div>
<div id="forwarding-block" hidden>
<h3 id="forwarding-heading">Forwarding</h3>
<p class="hint" id="forwarding-hint">Checked operations go to the upstream <code id="forwarding-upstream"></code>, behind the scenarios and delays; the sandbox answers the rest.</p>
<fieldset id="forwarding" class="forwarding" aria-describedby="forwarding-hint"><legend>Sent to the upstream</legend></fieldset>
<div class="check"><input type="checkbox" id="record" aria-describedby="recorded"><label for="record">Record the upstream's pets</label></div>
<p class="hint" id="recorded">Recorded pets answer here once forwarding is off.</p>
<div id="forwarding-error" class="alert" role="alert"></div>
</div>
<h3>State</h3>
<button type="button" id="state-download">Download state</button>
<form id="state-upload" class="upload" novalidate>
<div class="field">
<label for="state-file">State file (JSON)</label>
<input type="file" id="state-file" accept="application/json,.json" required>
</div>
<button type="submit" id="state-upload-submit">Upload state</button>
</form>
<div id="state-error" class="alert" role="alert"></div>
</section>`

/** Health and traffic: filled in by `main.ts`. */
const LIVE_PANELS = `<section id="health-panel" class="panel" aria-labelledby="health-heading">
<h2 id="health-heading">Health</h2>
<div id="health-error" class="alert" role="alert"></div>
<dl id="health" class="health">
<div><dt>Version</dt><dd id="health-version">…</dd></div>
<div><dt>Uptime</dt><dd id="health-uptime">…</dd></div>
<div><dt>Mode</dt><dd id="health-mode">…</dd></div>
<div><dt>Tenants</dt><dd id="health-tenants">…</dd></div>
<div><dt>Pets</dt><dd id="health-pets">…</dd></div>
<div><dt>Evictions</dt><dd id="health-evictions">…</dd></div>
</dl>
</section>

<section id="traffic-panel" class="panel" aria-labelledby="traffic-heading">
<h2 id="traffic-heading">Traffic</h2>
<figure id="traffic-chart" class="chart">
<div class="chart-box"><span id="chart-peak" class="axis y-max">0 per second</span>
<svg id="chart-svg" viewBox="0 0 300 100" preserveAspectRatio="none" aria-hidden="true" focusable="false"></svg>
<span class="axis x-start">5 minutes ago</span><span class="axis x-end">now</span></div>
<figcaption><span>Requests per second by status class, last 5 minutes, stacked 2xx (bottom) to 5xx (top).</span>
<ul class="legend" id="chart-legend"></ul>
<span id="chart-summary"></span></figcaption>
</figure>
</section>`

/** Text made safe inside HTML text and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
