/**
 * The Controls panel's checkpoints: the list (name, when saved, pets, "with scenarios"), the
 * "Save as" form, and per checkpoint a Rewind and a Delete, each behind an inline confirm step
 * that takes the row's place. Save errors are the API's own words, under the name field; a name
 * in use offers to save over it. Calls are scoped like reset's (adminUrl adds the tenant).
 *
 * May import: other dashboard files.
 */
import { adminUrl, call, getJson, scope, sendJson, statusOf, type Checkpoint, type CheckpointInput } from './api.js'
import { alertIn, byId, h, isSending, messageOf, num, say, setSending } from './dom.js'

type Action = 'rewind' | 'delete'

let shown: Checkpoint[] = []
/** The row asking for a confirmation, for the tenant it was asked in (a switch drops it). */
let confirming: { name: string; action: Action; tenant: string | undefined } | undefined
/** What the list shows, to skip a render that would change nothing (and move a reader's cursor). */
let drawn = ''
/** The tenant the list (and the form's problem) belongs to. */
let listedFor: string | undefined
let sequence = 0
/** Whether the alert shows a failed listing, which the next listing that works takes away. */
let listFailed = false
/** A rewind or delete in flight: a second press of its confirm button is ignored. */
let acting = false
let afterRewind: () => void = () => undefined

export async function loadCheckpoints(): Promise<void> {
  const mine = ++sequence
  const tenant = scope.tenant
  try {
    const checkpoints = await getJson<Checkpoint[]>(adminUrl('/checkpoints'))
    if (mine !== sequence) return
    if (tenant !== listedFor) {
      // Another tenant's list: a problem or a confirmation shown for the last one says nothing here.
      listedFor = tenant
      problem('', false)
    }
    if (listFailed) alertIn('checkpoints-error', '')
    listFailed = false
    shown = checkpoints
    render()
  } catch (error) {
    if (mine !== sequence) return
    listFailed = true
    alertIn('checkpoints-error', `Could not list the checkpoints: ${messageOf(error)}`)
  }
}

/** When a checkpoint was saved: the time today, the day too before that. */
function when(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const time = date.toLocaleTimeString('en-GB', { hour12: false })
  return date.toDateString() === new Date().toDateString()
    ? time
    : `${date.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' })}, ${time}`
}

const pets = (count: number) => `${num(count)} pet${count === 1 ? '' : 's'}`

function render(): void {
  if (confirming !== undefined) {
    const { name, tenant } = confirming
    if (tenant !== scope.tenant || !shown.some((checkpoint) => checkpoint.name === name)) confirming = undefined
  }
  const state = JSON.stringify([shown, confirming])
  if (state === drawn) return
  drawn = state
  const list = byId('checkpoints')
  // A render replaces the buttons: the one that had focus gets it back by its key.
  const focused = (document.activeElement as HTMLElement | null)?.dataset.key
  list.replaceChildren(
    ...(shown.length === 0 ? [h('li', 'muted', 'No checkpoints yet.')] : []),
    ...shown.map((checkpoint) =>
      confirming?.name === checkpoint.name ? confirmRow(checkpoint, confirming.action) : row(checkpoint),
    ),
  )
  if (focused !== undefined) list.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)?.focus()
}

function button(text: string, key: string, className: string, run: () => void, hidden?: string): HTMLButtonElement {
  const element = h('button', className, text, hidden !== undefined && h('span', 'vh', hidden))
  element.type = 'button'
  element.dataset.key = key
  element.addEventListener('click', run)
  return element
}

/** A row's Rewind or Delete: its name says which checkpoint ("Rewind to before-checkout"). */
const rowButton = (action: Action, name: string) =>
  button(
    action === 'rewind' ? 'Rewind' : 'Delete',
    `${action}:${name}`,
    'secondary',
    () => {
      ask(name, action)
    },
    action === 'rewind' ? ` to ${name}` : ` ${name}`,
  )

function row(checkpoint: Checkpoint): HTMLLIElement {
  const { name } = checkpoint
  const time = h('time', undefined, when(checkpoint.savedAt))
  time.dateTime = checkpoint.savedAt
  return h(
    'li',
    undefined,
    h(
      'span',
      'checkpoint-what',
      h('strong', 'checkpoint-name', name),
      h('span', 'muted', ' saved ', time, `, ${pets(checkpoint.pets)}`, checkpoint.scenarios && ', with scenarios'),
    ),
    h('span', 'row', rowButton('rewind', name), rowButton('delete', name)),
  )
}

function confirmRow(checkpoint: Checkpoint, action: Action): HTMLLIElement {
  const { name } = checkpoint
  const what = checkpoint.scenarios ? 'The data and the scenarios go' : 'The data goes'
  const question = h(
    'p',
    undefined,
    action === 'rewind'
      ? `Rewind to ${name}? ${what} back to ${when(checkpoint.savedAt)}.`
      : `Delete ${name}? It cannot be undone.`,
  )
  question.id = 'checkpoint-question'
  const yes = button(action === 'rewind' ? 'Rewind' : 'Delete', `confirm:${name}`, 'danger', () => {
    void act(checkpoint, action)
  })
  yes.setAttribute('aria-describedby', question.id)
  const no = button('Cancel', `cancel:${name}`, 'secondary', () => {
    settle(`${action}:${name}`)
  })
  for (const each of [yes, no]) {
    each.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') settle(`${action}:${name}`)
    })
  }
  return h('li', 'confirming', question, h('span', 'row', yes, no))
}

/** Turns a row into its confirm step, the confirm button focused. */
function ask(name: string, action: Action): void {
  alertIn('checkpoints-error', '')
  listFailed = false
  confirming = { name, action, tenant: scope.tenant }
  render()
  byId('checkpoints')
    .querySelector<HTMLElement>(`[data-key="${CSS.escape(`confirm:${name}`)}"]`)
    ?.focus()
}

/** Ends a confirm step, focus going to the button with `key` (when it is still there). */
function settle(key: string): void {
  confirming = undefined
  render()
  byId('checkpoints')
    .querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)
    ?.focus()
}

async function act(checkpoint: Checkpoint, action: Action): Promise<void> {
  if (acting) return
  acting = true
  const { name } = checkpoint
  const path = `/checkpoints/${encodeURIComponent(name)}`
  const of = scope.label === undefined ? 'The data' : `The data of ${scope.label}`
  try {
    if (action === 'rewind') {
      await call(adminUrl(`${path}/restore`), { method: 'POST' })
      say(`${of} is rewound to ${name}, as saved at ${when(checkpoint.savedAt)}.`)
      // The change event refreshes the pets too, but not while the stream is down: this does.
      afterRewind()
    } else {
      await call(adminUrl(path), { method: 'DELETE' })
      say(`Checkpoint ${name} is deleted.`)
    }
  } catch (error) {
    const what = action === 'rewind' ? 'rewind to' : 'delete'
    alertIn('checkpoints-error', `Could not ${what} ${name}: ${messageOf(error)}`)
  } finally {
    acting = false
  }
  confirming = undefined
  render()
  await loadCheckpoints()
  // Focus goes back to the row's Rewind; a deleted row is gone, so to the form then.
  const back = byId('checkpoints').querySelector<HTMLElement>(`[data-key="${CSS.escape(`rewind:${name}`)}"]`)
  ;(back ?? byId('checkpoint-name')).focus()
}

/** Shows the save's problem under the name field (or none); `replace` offers to save over the name. */
function problem(message: string, replace: boolean, invalid = false): void {
  byId('checkpoint-name-error').textContent = message
  byId('checkpoint-replace').hidden = !replace
  const input = byId('checkpoint-name')
  if (invalid) input.setAttribute('aria-invalid', 'true')
  else input.removeAttribute('aria-invalid')
}

export function setUpCheckpoints(rewound: () => void): void {
  afterRewind = rewound
  const form = byId('checkpoint-form') as HTMLFormElement
  const input = byId('checkpoint-name') as HTMLInputElement
  const withScenarios = byId('checkpoint-scenarios') as HTMLInputElement
  const save = (replace: boolean) => {
    if (isSending(form)) return
    setSending(form, true)
    const name = input.value
    const body: CheckpointInput = { name, scenarios: withScenarios.checked, ...(replace && { replace: true }) }
    problem('', false)
    sendJson(adminUrl('/checkpoints'), 'POST', body)
      .then(async (response) => {
        const saved = (await response.json()) as Checkpoint
        // A name typed while the save was on its way is the next checkpoint's: it stays.
        if (input.value === name) input.value = ''
        if (replace) input.focus()
        const extra = saved.scenarios ? ', with the scenarios' : ''
        say(`Saved checkpoint ${saved.name}: ${pets(saved.pets)}${extra}.`)
      })
      .catch((error: unknown) => {
        const status = statusOf(error)
        // 400: the name's fault; 409: the name is taken, which may be meant (a new take of a demo).
        // Both are about the name sent: a name typed since is not marked, nor offered to replace.
        const same = input.value === name
        problem(messageOf(error), same && status === 409, same && (status === 400 || status === 409))
        if (status === 400 && same) input.focus()
      })
      .finally(() => {
        setSending(form, false)
        void loadCheckpoints()
      })
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    save(false)
  })
  byId('checkpoint-replace').addEventListener('click', () => {
    save(true)
  })
  // Another name is another question: the offer to replace was about the last one.
  input.addEventListener('input', () => {
    if (!byId('checkpoint-replace').hidden) problem('', false)
  })
}
