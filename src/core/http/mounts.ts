/**
 * Where the sandbox's own routes are mounted: the one spelling of each prefix, for the route
 * table, the adapters, the docs, the dashboard and the CLI's banner. A leaf file, so the
 * dashboard's bundle takes these strings and nothing else of the core.
 *
 * May import: nothing.
 */

/** The admin routes: reset, journal, scenarios, state, health, the dashboard. */
export const ADMIN_PATH = '/__sandbox'
/** The reference page's assets (Swagger UI). */
export const DOCS_PATH = `${ADMIN_PATH}/docs`
/** The dashboard's script and styles. */
export const UI_PATH = `${ADMIN_PATH}/ui`
