// The whole Pet Store, in the page: the sandbox's handlers run in msw's service worker, and its
// data is kept in this browser's storage, so a reload or a second tab finds the pets made here.
import { setupWorker } from 'msw/browser'
import { createSandbox, type ErrorBody, type Pet } from 'petstore-sandbox'

const element = (id: string) => document.getElementById(id) as HTMLElement
const input = (id: string) => document.getElementById(id) as HTMLInputElement
const error = element('error')

// Everything this page is served under (vite.config.ts `base`, e.g. /petstore-demo/): the worker
// script is there, and its scope must cover this page.
const base = import.meta.env.BASE_URL

/**
 * The seed: the bundled pets, or another data set shipped beside the page and named in the
 * address (`?fixtures=small-seed.json`). The stored data remembers which seed it grew from: open
 * the demo with another one and it starts from that seed, dropping what was stored.
 */
async function fixtures(): Promise<{ fixtures?: Pet[] }> {
  const name = new URLSearchParams(location.search).get('fixtures')
  if (name === null) return {}
  // A file shipped with the demo, nothing else: the address must not fetch from anywhere.
  if (!/^[\w-]+\.json$/.test(name)) {
    console.warn(`?fixtures=${name}: expected the name of a .json file shipped with the demo; using the bundled pets`)
    return {}
  }
  const response = await fetch(`${base}${name}`)
  if (!response.ok) {
    console.warn(`?fixtures=${name}: ${response.status} ${response.statusText}; using the bundled pets`)
    return {}
  }
  return { fixtures: (await response.json()) as Pet[] }
}

// `persist` keeps the pets, the id sequence, the checkpoints and the scenarios in IndexedDB under
// this key, shared by every tab of the demo. `?petstore-reset` in the address starts from the seed.
const sandbox = createSandbox({ ...(await fixtures()), persist: { key: 'petstore-demo' } })
const worker = setupWorker(...sandbox.handlers)
// The sandbox answers everything under /v1 (a wrong path gets its 404); what else the page asks
// for, its own files and its loads, is not the mocks' business. msw 3 warns of each of them, page
// loads included, unless told not to; msw 2 calls the option onUnhandledRequest, msw 3
// onUnhandledFrame, and each ignores the other's (spread: msw 2's types know only their own).
const quietly = { onUnhandledRequest: 'bypass', onUnhandledFrame: 'bypass' } as const
await worker.start({
  quiet: true,
  ...quietly,
  serviceWorker: { url: `${base}mockServiceWorker.js`, options: { scope: base } },
})

async function call<T>(path: string, init: { method?: string; body?: string } = {}): Promise<T | undefined> {
  const response = await fetch(path, {
    ...init,
    headers: {
      Authorization: `Bearer ${input('key').value}`,
      ...(init.body !== undefined && { 'Content-Type': 'application/json' }),
    },
  })
  const body = (await response.json()) as T | ErrorBody
  if (!response.ok) {
    const failure = body as ErrorBody
    error.textContent = `${failure.status} ${failure.code}: ${failure.message}`
    return undefined
  }
  error.textContent = ''
  return body as T
}

async function load(): Promise<void> {
  const pets = await call<Pet[]>('/v1/pets?limit=100')
  const list = element('pets')
  list.replaceChildren()
  if (pets === undefined) return
  for (const pet of pets) {
    const item = document.createElement('li')
    item.textContent = `#${pet.id} ${pet.name} (category ${pet.categoryId}${pet.status ? `, ${pet.status}` : ''})`
    list.append(item)
  }
  element('count').textContent = `${pets.length} pets`
}

element('load').addEventListener('click', () => void load())
// sandbox.reset() resets every tab of the demo and the next reload, not only this one.
element('reset').addEventListener('click', () => void sandbox.reset().then(load))
element('create').addEventListener('submit', (event) => {
  event.preventDefault()
  const status = (document.getElementById('status') as HTMLSelectElement).value
  const newPet = {
    name: input('name').value,
    categoryId: Number(input('category').value),
    ...(status !== '' && { status }),
  }
  void call<Pet>('/v1/pets', { method: 'POST', body: JSON.stringify(newPet) }).then((created) =>
    created === undefined ? undefined : load(),
  )
})
// The demo's data as a state file: `npx petstore-sandbox --state-file petstore-demo.json` serves it.
element('export').addEventListener('click', () => {
  void sandbox.exportState().then((text) => {
    const link = document.createElement('a')
    link.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }))
    link.download = 'petstore-demo.json'
    link.click()
    URL.revokeObjectURL(link.href)
  })
})
// Another tab may have changed the data meanwhile: show it when this one comes back into view.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') void load()
})

await load()
// The presenter's panel (Alt+Shift+P): reset, scenarios, checkpoints. A chunk of its own, loaded
// once the list is shown, so the demo's first answer never waits for it.
const { mountPanel } = await import('petstore-sandbox/panel')
mountPanel(sandbox, { onChange: () => void load() })
document.body.dataset.ready = 'true'
