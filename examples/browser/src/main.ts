// The whole Pet Store, in the page: the sandbox's handlers run in msw's service worker.
import { setupWorker } from 'msw/browser'
import { createSandbox, type ErrorBody, type Pet } from 'petstore-sandbox'

const sandbox = createSandbox()
const worker = setupWorker(...sandbox.handlers)
// No onUnhandled option: msw 2 calls it onUnhandledRequest and msw 3 onUnhandledFrame.
await worker.start({ quiet: true })

const element = (id: string) => document.getElementById(id) as HTMLElement
const input = (id: string) => document.getElementById(id) as HTMLInputElement
const error = element('error')

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

await load()
document.body.dataset.ready = 'true'
