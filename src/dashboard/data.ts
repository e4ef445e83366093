/**
 * The Data panel: one page of pets at a time from `/__sandbox/pets` (50 rows, a status filter,
 * first/previous/next/last), and the create form, checked by the API's own code (rules.ts) and
 * sent to the API itself, whose Error message is shown when it refuses all the same.
 *
 * May import: other dashboard files.
 */
import { adminUrl, getJson, sendJson, type Pet, type PetPage } from './api.js'
import { alertIn, byId, h, isSending, messageOf, num, say, setSending } from './dom.js'
import { checkCreateForm } from './rules.js'

const PAGE_SIZE = 50
const CATEGORIES = ['dogs', 'cats', 'birds', 'fish', 'reptiles', 'small mammals']

let offset = 0
let total = 0
let sequence = 0

const filter = () => (byId('status-filter') as HTMLSelectElement).value

/**
 * Loads the page at `to` ('last': the last one), clamped to the pets there are. `announce`:
 * the person asked for it, so the new range is spoken; refreshes from live events are not.
 */
export async function loadPets(to: number | 'last' = offset, announce = false): Promise<void> {
  const mine = ++sequence
  const table = byId('pets')
  table.setAttribute('aria-busy', 'true')
  try {
    let want = to === 'last' ? lastOffset(total) : to
    let page = await getJson<PetPage>(adminUrl('/pets', { offset: want, limit: PAGE_SIZE, status: filter() }))
    // The store changed size (or we asked for the last page): fetch the page that exists.
    const fixed = to === 'last' ? lastOffset(page.total) : Math.min(want, lastOffset(page.total))
    if (fixed !== want) {
      want = fixed
      page = await getJson<PetPage>(adminUrl('/pets', { offset: want, limit: PAGE_SIZE, status: filter() }))
    }
    if (mine !== sequence) return
    offset = want
    total = page.total
    byId('pets-range').setAttribute('aria-live', announce ? 'polite' : 'off')
    render(page.pets)
  } catch (error) {
    if (mine !== sequence) return
    byId('pets-range').setAttribute('aria-live', 'polite')
    byId('pets-range').textContent = `Could not load the pets: ${messageOf(error)}`
  } finally {
    if (mine === sequence) table.removeAttribute('aria-busy')
  }
}

const lastOffset = (count: number) => Math.max(0, Math.floor((count - 1) / PAGE_SIZE) * PAGE_SIZE)

function render(pets: Pet[]): void {
  const rows = pets.map((pet) => {
    const category = CATEGORIES[pet.categoryId - 1]
    return h(
      'tr',
      undefined,
      h('td', 'num', pet.id),
      h(
        'td',
        undefined,
        pet.name,
        pet.created && ' ',
        pet.created && h('span', 'badge new', 'new', h('span', 'vh', ' (created since the last reset)')),
      ),
      h('td', undefined, category === undefined ? String(pet.categoryId) : `${category} (${pet.categoryId})`),
      h('td', undefined, pet.status ?? h('span', 'muted', 'none')),
    )
  })
  byId('pets-body').replaceChildren(...rows)
  const shown = filter() === '' ? '' : ` ${filter()}`
  byId('pets-range').textContent =
    total === 0
      ? `No${shown} pets`
      : `Rows ${num(offset + 1)}–${num(offset + pets.length)} of ${num(total)}${shown} pets`
  setEnabled('page-first', offset > 0)
  setEnabled('page-prev', offset > 0)
  setEnabled('page-next', offset + PAGE_SIZE < total)
  setEnabled('page-last', offset + PAGE_SIZE < total)
}

/** aria-disabled keeps a pressed button focusable at the first or last page. */
function setEnabled(id: string, enabled: boolean): void {
  byId(id).setAttribute('aria-disabled', String(!enabled))
}

function pageButton(id: string, to: () => number | 'last'): void {
  const button = byId(id)
  button.addEventListener('click', () => {
    if (button.getAttribute('aria-disabled') !== 'true') void loadPets(to(), true)
  })
}

export function setUpData(apiKey: string, apiBase: string): void {
  byId('status-filter').addEventListener('change', () => void loadPets(0, true))
  pageButton('page-first', () => 0)
  pageButton('page-prev', () => Math.max(0, offset - PAGE_SIZE))
  pageButton('page-next', () => offset + PAGE_SIZE)
  pageButton('page-last', () => 'last')

  const form = byId('create-form') as HTMLFormElement
  const name = byId('create-name') as HTMLInputElement
  const category = byId('create-category') as HTMLInputElement
  const status = byId('create-status') as HTMLSelectElement
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    if (isSending(form)) return
    alertIn('create-error', '')
    // The API's own check (rules.ts): the form refuses exactly what createPet would.
    const { body, problems } = checkCreateForm(name.value, category.value, status.value)
    fieldError(name, problems.name.join('; '))
    fieldError(category, problems.categoryId.join('; '))
    if (problems.other.length > 0) alertIn('create-error', `Not created: ${problems.other.join('; ')}`)
    if (problems.name.length + problems.categoryId.length + problems.other.length > 0) {
      ;(problems.name.length > 0 ? name : category).focus()
      return
    }
    setSending(form, true)
    const sent = name.value
    sendJson(`${apiBase}/pets`, 'POST', body, apiKey)
      .then(async (response) => {
        const pet = (await response.json()) as Pet
        // A name typed while the create was on its way is the next pet's: it stays.
        if (name.value === sent) name.value = ''
        say(`Created pet ${pet.id}, ${pet.name}. Showing the last page.`)
        const select = byId('status-filter') as HTMLSelectElement
        if (select.value !== '' && select.value !== pet.status) select.value = ''
        await loadPets('last')
      })
      .catch((error: unknown) => {
        alertIn('create-error', `Not created: ${messageOf(error)}`)
      })
      .finally(() => {
        setSending(form, false)
      })
  })
}

function fieldError(input: HTMLInputElement, problem: string): void {
  byId(`${input.id}-error`).textContent = problem
  if (problem === '') input.removeAttribute('aria-invalid')
  else input.setAttribute('aria-invalid', 'true')
}
