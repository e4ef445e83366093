/**
 * The lines the serve command prints once the server listens: where it is, which keys it takes,
 * what it simulates, where it is reachable from and how to narrow that, and what to try first.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { DEFAULT_API_KEY } from '../core/api/auth.js'
import { isLoopbackHost } from '../core/http/local.js'
import { ADMIN_PATH } from '../core/http/mounts.js'
import { reachableUrls } from './exposure.js'
import type { ServeFlags } from './flags.js'
import type { RunningServer } from './server-options.js'
import type { Paint } from './terminal.js'

export async function printBanner(server: RunningServer, flags: ServeFlags, paint: Paint): Promise<void> {
  const { sandbox } = server
  const count = await sandbox.pets.count()
  const key = sandbox.apiKeys[0] ?? DEFAULT_API_KEY
  const keys = flags.isolate
    ? `${sandbox.apiKeys.join(', ')}, or ${flags.apiKeyPattern ? `any key matching ${String(flags.apiKeyPattern)}` : 'any key'} (each key has its own data)`
    : sandbox.apiKeys.join(', ')
  const conditions = [
    flags.delay !== undefined &&
      `delay ${typeof flags.delay === 'number' ? flags.delay : `${flags.delay.min}-${flags.delay.max}`} ms`,
    flags.failureRate !== undefined && `failure rate ${flags.failureRate}`,
    flags.now !== undefined && `clock starts at ${flags.now}`,
  ].filter(Boolean)
  const { line, link } = bannerWriting(paint)
  // The upstream by its label only: its path, query and credentials may hold secrets.
  const { upstream } = await sandbox.health()
  const forwarding =
    upstream === null
      ? []
      : [
          line(
            'Upstream:',
            `${link(upstream.label)}, forwarding ${upstream.forward.length === 0 ? `nothing yet (PUT ${ADMIN_PATH}/forwarding)` : upstream.forward.join(', ')}${upstream.record ? `, recording its pets${flags.isolate === true ? " into each caller's data" : ''}` : ''}`,
          ),
        ]
  console.log(
    [
      `Pet Store sandbox listening on ${link(server.apiUrl)} with ${count} pet${count === 1 ? '' : 's'}`,
      ...exposure(server, flags, paint),
      line(`API key${sandbox.apiKeys.length > 1 || flags.isolate ? 's' : ''}:`, keys),
      ...(conditions.length > 0 ? [line('Simulating:', conditions.join(', '))] : []),
      ...forwarding,
      ...(flags.watch === true ? [line('Watching:', `${flags.fixtures ?? ''} (a change reloads the seed)`)] : []),
      ...(flags.stateFile !== undefined && flags.stateFile !== ''
        ? [
            line(
              'State file:',
              flags.stateSave === 'interval'
                ? `${flags.stateFile} (saved after changes, at most every ${sandbox.limits.stateSaveIntervalMs} ms, and at exit: a crash loses the changes since)`
                : `${flags.stateFile} (every change on disk before its answer)`,
            ),
          ]
        : []),
      ...tryLines(server, key, upstream, flags, line),
      line('Docs:', link(`${server.url}/`)),
      line('Dashboard:', link(`${server.url}${ADMIN_PATH}/`)),
      line('Reset:', `curl -X POST ${server.url}${ADMIN_PATH}/reset`),
      'Press Ctrl-C to stop.',
    ].join('\n'),
  )
}

/**
 * The first call to try, one that works as printed. When listPets goes to the upstream with the
 * caller's own key (no --upstream-key), a sandbox key would meet the upstream's 401: the line
 * names the key to use instead, and says why.
 */
function tryLines(
  server: RunningServer,
  key: string,
  upstream: { readonly label: string; readonly forward: readonly string[] } | null,
  flags: ServeFlags,
  line: (label: string, text: string) => string,
): string[] {
  const url = `'${server.apiUrl}/pets?limit=3'`
  if (upstream === null || flags.upstreamKey !== undefined || !upstream.forward.includes('listPets')) {
    return [line('Try:', `curl -H 'Authorization: Bearer ${key}' ${url}`)]
  }
  return [
    line('Try:', `curl -H 'Authorization: Bearer <your key for ${upstream.label}>' ${url}`),
    line(
      '',
      `(listPets goes to ${upstream.label} with the caller's key, as there is no --upstream-key: use a key it takes)`,
    ),
  ]
}

/** The banner's labels and their texts line up: "Simulating: " is the longest. */
const LABEL_WIDTH = 'Simulating: '.length

/** A banner line (its label bold, padded) and a link, in the terminal's colours or plain. */
function bannerWriting(paint: Paint) {
  return {
    line: (label: string, text: string) => `${paint('bold', label.padEnd(LABEL_WIDTH))}${text}`,
    link: (url: string) => paint('cyan', url),
  }
}

/**
 * Listening beyond loopback, or answering any Host name, is a choice to make knowingly: the
 * banner says where the sandbox is reachable, what is open, and how to narrow it.
 */
function exposure(server: RunningServer, flags: ServeFlags, paint: Paint): string[] {
  const { line, link } = bannerWriting(paint)
  const warning = (text: string) => paint('yellow', line('Warning:', text))
  const lines: string[] = []
  if (!isLoopbackHost(flags.host)) {
    const urls = reachableUrls(flags.host, Number(new URL(server.url).port))
    lines.push(
      line('Network:', urls.length === 0 ? 'no network interface is up yet' : urls.map(link).join(', ')),
      warning(
        `--host ${flags.host} opens the API and the admin routes to that network; from other machines the admin routes want an API key.`,
      ),
      line(
        'Restrict:',
        `--allowed-host <the name clients use> and --api-key <a key of your own>${server.sandbox.apiKeys.includes(DEFAULT_API_KEY) ? ` (${DEFAULT_API_KEY} is public)` : ''}.`,
      ),
    )
  }
  if (flags.allowedHost?.includes('all') === true) {
    lines.push(
      warning('--allowed-host all answers any Host name: a web page can reach the sandbox through DNS rebinding.'),
    )
  }
  return lines
}
