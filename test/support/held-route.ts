/**
 * Holds a page's requests of one method to one URL pattern until released: to look at a page while
 * its request is on its way. `reached` settles when the first such request arrives; `stop` releases
 * it and removes this route (and no other on the same pattern).
 */
import type { Page, Route } from 'playwright-core'

export interface HeldRoute {
  readonly reached: Promise<void>
  release(): void
  stop(): Promise<void>
}

export async function holdRoute(page: Page, url: string, method: string): Promise<HeldRoute> {
  // Promise.withResolvers is Node 22's: these run on Node 20 too.
  let arrived!: () => void
  let release!: () => void
  const reached = new Promise<void>((resolve) => (arrived = resolve))
  const released = new Promise<void>((resolve) => (release = resolve))
  // Each request's handler, awaited before the route goes: unrouting under a held one would let
  // Playwright continue it first, and the handler's own continue then throws.
  const handling = new Set<Promise<void>>()
  const handler = (route: Route) => {
    const handled = (async () => {
      if (route.request().method() === method) {
        arrived()
        await released
      }
      // A page that reloaded or closed meanwhile has no request left to continue.
      await route.continue().catch(() => undefined)
    })()
    handling.add(handled)
    return handled.finally(() => handling.delete(handled))
  }
  await page.route(url, handler)
  return {
    reached,
    release,
    stop: async () => {
      release()
      await Promise.allSettled(handling)
      await page.unroute(url, handler)
    },
  }
}
