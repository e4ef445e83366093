/**
 * The Controls panel's forwarding toggles: shown only when the sandbox has an upstream
 * (`--upstream`, as health says), one checkbox per operation, each change a
 * `PUT /__sandbox/forwarding` with every checked one. The server's answer, not the click, decides
 * what the boxes show; health (polled) keeps them in step with changes made elsewhere.
 *
 * May import: other dashboard files.
 */
import { ADMIN, getJson, sendJson, type Forwarding, type Health } from './api.js'
import { alertIn, byId, h, messageOf, say } from './dom.js'

/**
 * The boxes by operation, once the operations are known. Switches in flight hold off health's
 * updates, and so does every switch sent since a health request was asked: that answer may tell
 * the state before the switch, which the switch's own answer has already shown.
 */
const boxes = new Map<string, HTMLInputElement>()
let inFlight = 0
let switches = 0

/** How many switches this page has sent: given to showUpstream with the health asked now. */
export const switchesSent = (): number => switches

/** Follows health: hides the toggles without an upstream, shows (and updates) them with one. */
export function showUpstream(upstream: Health['upstream'], askedAfter: number): void {
  byId('forwarding-block').hidden = upstream === null
  const current = inFlight === 0 && askedAfter === switches
  if (current) showDataSource(upstream)
  if (upstream === null) return
  const label = byId('forwarding-upstream')
  if (label.textContent !== upstream.label) label.textContent = upstream.label
  showRecording(upstream.record, upstream.recorded, current)
  if (boxes.size === 0) {
    void load()
    return
  }
  if (current) check(upstream.forward)
}

/** The count of recorded pets, and the record box as the server has it when `current`. */
function showRecording(record: boolean, recorded: number, current: boolean): void {
  const box = byId('record') as HTMLInputElement
  if (!box.dataset.wired) {
    box.dataset.wired = 'true'
    box.addEventListener('change', () => void switchRecording(box.checked))
  }
  if (current) box.checked = record
  const text = `${recorded} pet${recorded === 1 ? '' : 's'} recorded since the start. Recorded pets answer here once forwarding is off.`
  const note = byId('recorded')
  if (note.textContent !== text) note.textContent = text
}

async function switchRecording(on: boolean): Promise<void> {
  alertIn('forwarding-error', '')
  inFlight += 1
  switches += 1
  try {
    const answer = (await (await sendJson(`${ADMIN}/forwarding`, 'PUT', { record: on })).json()) as Forwarding
    showRecording(answer.record, answer.recorded, true)
    say(on ? "The upstream's pets are recorded from now on." : 'Recording is off.')
  } catch (error) {
    ;(byId('record') as HTMLInputElement).checked = !on
    alertIn('forwarding-error', `Could not change the recording: ${messageOf(error)}`)
  } finally {
    inFlight -= 1
  }
}

/** The Data panel says whose pets it shows while a pet operation is forwarded: the sandbox's own. */
function showDataSource(upstream: Health['upstream']): void {
  const note = byId('data-source')
  const forwarded = upstream?.forward ?? []
  const text =
    upstream === null || forwarded.length === 0
      ? ''
      : `${forwarded.join(', ')} ${forwarded.length === 1 ? 'is' : 'are'} forwarded to ${upstream.label}: API clients get its answers there. This panel shows the sandbox's own pets, which answer what is not forwarded.`
  note.hidden = text === ''
  if (note.textContent !== text) note.textContent = text
}

async function load(): Promise<void> {
  try {
    build(await getJson<Forwarding>(`${ADMIN}/forwarding`))
  } catch (error) {
    alertIn('forwarding-error', `Could not read the forwarding: ${messageOf(error)}`)
  }
}

function build(forwarding: Forwarding): void {
  if (boxes.size > 0) return
  const group = byId('forwarding')
  for (const operation of forwarding.operations) {
    const box = h('input')
    box.type = 'checkbox'
    box.id = `forward-${operation}`
    box.value = operation
    box.addEventListener('change', () => void change(operation, box.checked))
    boxes.set(operation, box)
    const label = h('label', undefined, operation)
    label.htmlFor = box.id
    group.append(h('div', 'check', box, label))
  }
  check(forwarding.forward)
}

function check(forward: readonly string[]): void {
  for (const [operation, box] of boxes) box.checked = forward.includes(operation)
}

async function change(operation: string, on: boolean): Promise<void> {
  alertIn('forwarding-error', '')
  const forward = [...boxes].filter(([, box]) => box.checked).map(([name]) => name)
  inFlight += 1
  switches += 1
  try {
    const answer = (await (await sendJson(`${ADMIN}/forwarding`, 'PUT', { forward })).json()) as Forwarding
    check(answer.forward)
    say(on ? `${operation} now goes to the upstream.` : `${operation} is answered by the sandbox again.`)
  } catch (error) {
    // Nothing changed on the server: the box goes back.
    const box = boxes.get(operation)
    if (box !== undefined) box.checked = !on
    alertIn('forwarding-error', `Could not change the forwarding: ${messageOf(error)}`)
  } finally {
    inFlight -= 1
  }
}
