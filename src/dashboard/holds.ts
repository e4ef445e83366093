/**
 * The Controls panel's held requests: each hold (POST /__sandbox/holds) with the calls waiting in
 * it, and a Release button that lets them answer. The list follows the server's `holds` events,
 * so a call caught by a hold shows up as it arrives. Calls are scoped like reset's.
 *
 * May import: other dashboard files.
 */
import { adminUrl, getJson, scope, sendJson, type Hold } from './api.js'
import { alertIn, byId, h, messageOf, say } from './dom.js'

let sequence = 0
/** What the list shows, to skip a render that would change nothing (and move a reader's cursor). */
let drawn = ''

export async function loadHolds(): Promise<void> {
  const mine = ++sequence
  try {
    const holds = await getJson<Hold[]>(adminUrl('/holds'))
    if (mine !== sequence) return
    render(holds)
  } catch (error) {
    if (mine === sequence) alertIn('holds-error', `Could not list the holds: ${messageOf(error)}`)
  }
}

function describe(hold: Hold): string {
  const waiting = `${hold.holding} call${hold.holding === 1 ? '' : 's'} waiting`
  const more = hold.remaining === 0 ? '' : `, ${hold.remaining} more to catch`
  return `${hold.operation}: ${waiting}${more}`
}

function render(holds: readonly Hold[]): void {
  const state = JSON.stringify([scope.tenant, holds])
  if (state === drawn) return
  drawn = state
  const list = byId('holds')
  const focused = (document.activeElement as HTMLElement | null)?.dataset.key
  list.replaceChildren(
    ...(holds.length === 0 ? [h('li', 'muted', 'No holds: every call is answered when it comes.')] : []),
    ...holds.map((hold) => {
      const release = h('button', 'secondary', 'Release')
      release.type = 'button'
      release.dataset.key = `release-${hold.id}`
      release.setAttribute('aria-label', `Release hold ${hold.id}, ${hold.operation}`)
      release.addEventListener('click', () => void releaseHold(hold))
      return h('li', undefined, h('p', undefined, describe(hold)), release)
    }),
  )
  if (focused !== undefined) list.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)?.focus()
}

async function releaseHold(hold: Hold): Promise<void> {
  alertIn('holds-error', '')
  try {
    await sendJson(adminUrl(`/holds/${hold.id}/release`), 'POST', {})
    say(`Released hold ${hold.id}: its ${hold.operation} calls answer now.`)
  } catch (error) {
    alertIn('holds-error', messageOf(error))
  }
  await loadHolds()
}
