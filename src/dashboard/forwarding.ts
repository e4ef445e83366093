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

/** The boxes by operation, once the operations are known; a PUT in flight holds off health's updates. */
const boxes = new Map<string, HTMLInputElement>()
let busy = false

/** Follows health: hides the toggles without an upstream, shows (and updates) them with one. */
export function showUpstream(upstream: Health['upstream']): void {
  byId('forwarding-block').hidden = upstream === null
  showDataSource(upstream)
  if (upstream === null) return
  const label = byId('forwarding-upstream')
  if (label.textContent !== upstream.label) label.textContent = upstream.label
  showRecording(upstream.record, upstream.recorded)
  if (boxes.size === 0) {
    void load()
    return
  }
  if (!busy) check(upstream.forward)
}

/** The record box and the count of recorded pets, as the server has them. */
function showRecording(record: boolean, recorded: number): void {
  const box = byId('record') as HTMLInputElement
  if (!box.dataset.wired) {
    box.dataset.wired = 'true'
    box.addEventListener('change', () => void switchRecording(box.checked))
  }
  if (!busy) box.checked = record
  const text = `${recorded} pet${recorded === 1 ? '' : 's'} recorded since the start. Recorded pets answer here once forwarding is off.`
  const note = byId('recorded')
  if (note.textContent !== text) note.textContent = text
}

async function switchRecording(on: boolean): Promise<void> {
  alertIn('forwarding-error', '')
  busy = true
  try {
    const answer = (await (await sendJson(`${ADMIN}/forwarding`, 'PUT', { record: on })).json()) as Forwarding
    showRecording(answer.record, answer.recorded)
    say(on ? "The upstream's pets are recorded from now on." : 'Recording is off.')
  } catch (error) {
    ;(byId('record') as HTMLInputElement).checked = !on
    alertIn('forwarding-error', `Could not change the recording: ${messageOf(error)}`)
  } finally {
    busy = false
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
  busy = true
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
    busy = false
  }
}
