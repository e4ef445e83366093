/**
 * The admin client, `petstore-sandbox/client`: the `/__sandbox` routes of a running sandbox as
 * typed calls, for e2e suites (a Playwright fixture per worker) and pages that steer the sandbox.
 * It runs wherever `fetch` does. The core's shapes come in as types only, erased on build, so
 * the built file imports nothing: no zod, no msw, nothing of Node.
 *
 * May import: types from the core, with `import type` (never `import { type X }`, which
 * verbatimModuleSyntax keeps as a runtime import). Nothing at runtime.
 */
import type {
  Checkpoint,
  Forwarding,
  Hold,
  HoldInput,
  JournalEntry,
  SandboxHealth,
  Scenario,
  ScenarioInput,
  StateDocument,
  StateInput,
} from './core/admin/contract.js'
import type { OperationId, Pet, StoreState } from './core/api/contract.js'
import type { ErrorCode } from './core/http/errors.js'
import type { ADMIN_PATH } from './core/http/mounts.js'
import type { JournalFilter } from './core/state/request-journal.js'

// The prefix is spelled once, in core/http/mounts.ts; this file takes nothing from the core at run
// time, so the type below holds this copy equal to it when the package builds.
const ADMIN: typeof ADMIN_PATH = '/__sandbox'

export type {
  Checkpoint,
  ErrorCode,
  Forwarding,
  Hold,
  HoldInput,
  JournalEntry,
  JournalFilter,
  OperationId,
  Pet,
  SandboxHealth,
  Scenario,
  ScenarioInput,
  StateDocument,
  StateInput,
  StoreState,
}

export interface SandboxClientOptions {
  /**
   * The sandbox's origin, e.g. `http://127.0.0.1:3210`. The admin routes live at the origin's
   * root, so a path is ignored: `server.apiUrl` (`.../v1`) works as well as `server.url`.
   */
  baseUrl: string | URL
  /**
   * Sent as `Authorization: Bearer <key>` on every call. With `--isolate` it scopes reset, the
   * journal, scenarios and state to that key's data; without it they act on the default data
   * (reset: on everything).
   */
  key?: string | undefined
  /**
   * Default: the global `fetch`, looked up on each call, so an interceptor installed after the
   * client was made (msw's `server.listen()`) still sees its requests. Called unbound, so
   * `window.fetch` can be passed as it is.
   */
  fetch?: typeof fetch | undefined
}

/** The admin routes of one sandbox, as seen by one key (or none). */
export interface SandboxClient {
  /** The key sent on every call, or undefined. */
  readonly key: string | undefined
  /** `POST /__sandbox/reset`: the seed, the id sequence, an empty journal and no scenarios (with a key, its data only). */
  reset(): Promise<void>
  readonly scenarios: {
    /** `GET /__sandbox/scenarios`: the scenarios in force, first come first served. */
    list(): Promise<Scenario[]>
    /** `POST /__sandbox/scenarios`: the next `times` calls (all, when left out) fail and/or wait. */
    add(input: ScenarioInput): Promise<Scenario>
    /** `DELETE /__sandbox/scenarios`. */
    clear(): Promise<void>
  }
  /** `GET /__sandbox/requests`: the journal, oldest first; `operation: null` picks requests that matched none. */
  requests(filter?: JournalFilter): Promise<JournalEntry[]>
  readonly state: {
    /**
     * `GET /__sandbox/state`: the state document, every pet, the next id and the checkpoints: what
     * `--state-file` starts from, and a browser sandbox's `importState()` loads.
     */
    export(): Promise<StateDocument>
    /**
     * `PUT /__sandbox/state`: replaces the pets, the next id and the checkpoints with a state
     * document's (the older `{pets, nextId}` leaves the checkpoints as they are), or changes
     * nothing and throws: a 400 naming each bad field, a 507 past a budget.
     */
    import(state: StateInput): Promise<void>
  }
  /** `GET /__sandbox/health`: version, uptime, mode, tenants, evictions, the upstream. */
  health(): Promise<SandboxHealth>
  /**
   * Which operations a server started with `--upstream` sends there; the sandbox answers the
   * rest. One setting for the whole server, whatever the client's key.
   */
  readonly forwarding: {
    /** `GET /__sandbox/forwarding`: the upstream's origin (null without one) and the operations forwarded. */
    get(): Promise<Forwarding>
    /**
     * `PUT /__sandbox/forwarding`: forward these operations from now on (`[]` for none, `all` for
     * every one), or `{ forward?, record? }` to switch recording (`--record`) too; what is left
     * out stays as it is. Throws a 400 naming an unknown operation, a 409 when the server has no
     * upstream.
     */
    set(
      forward: readonly OperationId[] | 'all' | { forward?: readonly OperationId[] | 'all'; record?: boolean },
    ): Promise<Forwarding>
  }
  /**
   * Named checkpoints of the data, to rewind to: what a demo saves after its rehearsal. With a key
   * under `--isolate`, that key's; `reset()` still goes back to the seed.
   */
  readonly checkpoints: {
    /**
     * `POST /__sandbox/checkpoints`: saves the data now (and the scenarios, with `scenarios: true`).
     * Throws a 409 for a name in use (unless `replace: true`), a 400 for a bad name, a 507 past the budgets.
     */
    save(name: string, options?: { scenarios?: boolean; replace?: boolean }): Promise<Checkpoint>
    /** `GET /__sandbox/checkpoints`: oldest saved first, with their times and pet counts. */
    list(): Promise<Checkpoint[]>
    /** `POST /__sandbox/checkpoints/{name}/restore`: rewinds the data to it. Throws a 404 for a name there is none of. */
    restore(name: string): Promise<void>
    /** `DELETE /__sandbox/checkpoints/{name}`. Throws a 404 for a name there is none of. */
    remove(name: string): Promise<void>
  }
  /**
   * Holds: the next calls of an operation wait, answering nothing, until released. With a key
   * under `--isolate`, that key's calls. Wait for `holding` in `list()`, never a sleep.
   */
  readonly holds: {
    /** `POST /__sandbox/holds`: holds the next `times` calls (default 1) of `operation`. */
    add(input: HoldInput): Promise<Hold>
    /** `GET /__sandbox/holds`: each hold with `holding`, the calls waiting in it now. */
    list(): Promise<Hold[]>
    /**
     * `POST /__sandbox/holds/{id}/release`: lets its calls go (answering `status` instead, when
     * given) and ends it. Throws a 404 for a hold there is none of.
     */
    release(id: number, options?: { status?: number }): Promise<Hold>
  }
  /** The same sandbox and fetch, as another key sees it: one client per e2e worker. Undefined: no key. */
  forKey(key: string | undefined): SandboxClient
}

/**
 * A sandbox answer other than 2xx. `status`, `code` and `message` are the sandbox's own Error
 * body; an answer that is not one (a proxy's HTML page, a wrong baseUrl) gets the code
 * `unexpected_response` and a message naming the request. Messages never hold the key.
 */
export class SandboxClientError extends Error {
  override readonly name = 'SandboxClientError'
  /** The HTTP status of the answer. */
  readonly status: number
  /** The Error body's code, or `unexpected_response` when the answer held none. */
  readonly code: ErrorCode | 'unexpected_response'
  /** The request's method, e.g. `PUT`. */
  readonly method: string
  /** The request's path and query, e.g. `/__sandbox/state`. */
  readonly path: string

  constructor(
    message: string,
    details: { status: number; code: ErrorCode | 'unexpected_response'; method: string; path: string },
  ) {
    super(message)
    this.status = details.status
    this.code = details.code
    this.method = details.method
    this.path = details.path
  }
}

// RFC 6750 b64token, the rule the sandbox holds keys to. Checked here because fetch's own error
// for a header it cannot send quotes the value, and the value would be the key.
const TOKEN_PATTERN = /^[A-Za-z0-9\-._~+/]+=*$/

/**
 * Creates a client for a running sandbox's admin routes. Throws a TypeError when `baseUrl` is
 * not an absolute http(s) URL or `key` is not a bearer token, so a typo fails at setup and not
 * in the first test. A call that gets no answer rejects with a TypeError naming the URL (fetch's
 * own error as its `cause`); a call answered with a non-2xx status rejects with a SandboxClientError.
 *
 * @example
 * const sandbox = createSandboxClient({ baseUrl: 'http://127.0.0.1:3210', key: `worker-${index}` })
 * await sandbox.reset()
 * await sandbox.scenarios.add({ operation: 'listPets', status: 503, times: 1 })
 */
export function createSandboxClient(options: SandboxClientOptions): SandboxClient {
  const origin = originOf(options.baseUrl)
  const { key, fetch: injected } = options
  if (key !== undefined && (typeof key !== 'string' || !TOKEN_PATTERN.test(key))) {
    throw new TypeError(
      'Failed to create the sandbox client: key is not a valid bearer token. Use letters, digits and - . _ ~ + / only.',
    )
  }
  const authorization: Record<string, string> = key === undefined ? {} : { Authorization: `Bearer ${key}` }

  async function send(method: string, path: string, body?: unknown): Promise<Response> {
    const url = `${origin}${ADMIN}${path}`
    const init: RequestInit = {
      method,
      headers: body === undefined ? authorization : { ...authorization, 'Content-Type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    }
    let response: Response
    try {
      response = await (injected === undefined ? globalThis.fetch(url, init) : injected(url, init))
    } catch (error) {
      // fetch rejects with a bare TypeError ("fetch failed") that names neither the URL nor what to check.
      if (!(error instanceof TypeError)) throw error
      throw new TypeError(
        `Failed to reach the sandbox: ${method} ${url} got no answer. Make sure the sandbox is running and baseUrl points at it (from a web page: that the page's origin is a local one, the only kind the admin routes answer).`,
        { cause: error },
      )
    }
    if (!response.ok) throw await errorOf(response, method, `${ADMIN}${path}`, url)
    return response
  }

  async function sendJson<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await send(method, path, body)
    const parsed = parseJson(await response.text())
    if (parsed === undefined) {
      throw unexpected(response, method, `${ADMIN}${path}`, `${origin}${ADMIN}${path}`, 'no JSON body')
    }
    // The sandbox's own answer; checking it would take zod, which this file must not load.
    return parsed.value as T
  }

  async function sendVoid(method: string, path: string, body?: unknown): Promise<void> {
    const response = await send(method, path, body)
    // The routes answer 204; a body there anyway is cancelled so it does not hold the connection.
    await response.body?.cancel()
  }

  return {
    key,
    reset: () => sendVoid('POST', '/reset'),
    scenarios: {
      list: () => sendJson<Scenario[]>('GET', '/scenarios'),
      add: (input) => sendJson<Scenario>('POST', '/scenarios', input),
      clear: () => sendVoid('DELETE', '/scenarios'),
    },
    requests(filter = {}) {
      const query = new URLSearchParams()
      if (filter.operation !== undefined) query.set('operation', filter.operation ?? 'none')
      if (filter.method !== undefined) query.set('method', filter.method)
      if (filter.status !== undefined) query.set('status', String(filter.status))
      const search = query.toString()
      return sendJson<JournalEntry[]>('GET', search === '' ? '/requests' : `/requests?${search}`)
    },
    state: {
      export: () => sendJson<StateDocument>('GET', '/state'),
      import: (state) => sendVoid('PUT', '/state', state),
    },
    health: () => sendJson<SandboxHealth>('GET', '/health'),
    forwarding: {
      get: () => sendJson<Forwarding>('GET', '/forwarding'),
      set: (forward) =>
        sendJson<Forwarding>('PUT', '/forwarding', forward === 'all' || Array.isArray(forward) ? { forward } : forward),
    },
    checkpoints: {
      save: (name, options = {}) => sendJson<Checkpoint>('POST', '/checkpoints', { name, ...options }),
      list: () => sendJson<Checkpoint[]>('GET', '/checkpoints'),
      restore: (name) => sendVoid('POST', `/checkpoints/${encodeURIComponent(name)}/restore`),
      remove: (name) => sendVoid('DELETE', `/checkpoints/${encodeURIComponent(name)}`),
    },
    holds: {
      add: (input) => sendJson<Hold>('POST', '/holds', input),
      list: () => sendJson<Hold[]>('GET', '/holds'),
      release: (id, options = {}) =>
        sendJson<Hold>('POST', `/holds/${encodeURIComponent(String(id))}/release`, options),
    },
    forKey: (other) => createSandboxClient({ baseUrl: origin, key: other, fetch: injected }),
  }
}

function originOf(baseUrl: string | URL): string {
  let url: URL | undefined
  try {
    url = new URL(baseUrl)
  } catch {
    url = undefined
  }
  if (url === undefined || !/^https?:$/.test(url.protocol)) {
    throw new TypeError(
      `Failed to create the sandbox client: baseUrl ${JSON.stringify(String(baseUrl))} is not an absolute http(s) URL. Use the sandbox's origin, such as "http://127.0.0.1:3210".`,
    )
  }
  return url.origin
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch {
    return undefined
  }
}

/** The sandbox's Error body when the answer carries one, else an `unexpected_response`. */
async function errorOf(response: Response, method: string, path: string, url: string): Promise<SandboxClientError> {
  const parsed = parseJson(await response.text().catch(() => ''))?.value
  if (isErrorBody(parsed, response.status)) {
    return new SandboxClientError(parsed.message, { status: parsed.status, code: parsed.code, method, path })
  }
  return unexpected(response, method, path, url, 'not a sandbox Error body')
}

function unexpected(response: Response, method: string, path: string, url: string, what: string): SandboxClientError {
  const status = `${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}`
  return new SandboxClientError(
    `${method} ${url} answered ${status} with ${what}. Make sure baseUrl is the sandbox's origin and nothing in between rewrites its answers.`,
    { status: response.status, code: 'unexpected_response', method, path },
  )
}

// The sandbox always sends { code, message, status } with status equal to the HTTP status; a
// proxy's JSON error seldom does, and its code would not be one of ours.
function isErrorBody(body: unknown, status: number): body is { code: ErrorCode; message: string; status: number } {
  if (typeof body !== 'object' || body === null) return false
  const fields = body as Record<string, unknown>
  return typeof fields.code === 'string' && typeof fields.message === 'string' && fields.status === status
}
