/**
 * What the command says in a terminal: the banner when it listens beyond loopback (where it is
 * reachable, the warning, how to restrict it) and the admin routes' key rule that goes with it,
 * colours only on a terminal that takes them (a pseudo-terminal from util-linux `script`),
 * NO_COLOR, the tenant in the access log, and one format for the help's defaults.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { networkInterfaces } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { needs } from './support/programs.js'
import { BIN, spawnCli, waitFor, type Cli } from './support/spawn-cli.js'

const KEY = 'petstore-sandbox-key'
const ESC = '\u001b['
/** A pattern with `~` for the escape character, which a regular expression literal may not hold. */
const ansi = (source: string) => new RegExp(source.replaceAll('~', '\u001b'), 'm')

const running: Cli[] = []
afterEach(async () => {
  for (const cli of running.splice(0)) {
    if (cli.child.exitCode === null && cli.child.signalCode === null) {
      cli.child.kill('SIGKILL')
      await cli.exited
    }
  }
})

async function start(args: string[], env: Record<string, string> = {}) {
  const cli = spawnCli(args, env)
  running.push(cli)
  await waitFor(cli, /Press Ctrl-C to stop\.\n/)
  const [, port = ''] = /listening on http:\/\/127\.0\.0\.1:(\d+)\/v1/.exec(cli.stdout()) ?? []
  return { cli, port }
}

/** This machine's non-internal IPv4 addresses, as the banner should list them for 0.0.0.0. */
const lanAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((info) => info !== undefined && !info.internal && info.family === 'IPv4')
    .map((info) => info?.address ?? '')

/** The command in a pseudo-terminal: `script` gives it a TTY for stdout, as a person's shell does. */
function startInTerminal(args: string[], env: Record<string, string> = {}): Cli {
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`
  const command = [process.execPath, BIN, ...args].map(quote).join(' ')
  // A person's shell: no colour settings of the test runner's own (vitest sets FORCE_COLOR), and
  // no CI variable (Node gives a terminal under CI=true two colours: hasColors() is false).
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !['NO_COLOR', 'FORCE_COLOR', 'NODE_DISABLE_COLORS', 'CI'].includes(name),
    ),
  )
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...inherited, TERM: 'xterm-256color', ...env },
    stdio: 'pipe',
  })
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.resume()
  const exited = once(child, 'close').then(([code]) => code as number | null)
  const started = { child, stdout: () => stdout.replaceAll('\r\n', '\n'), stderr: () => '', exited }
  running.push(started)
  return started
}

describe('listening beyond loopback', () => {
  it('lists the reachable URLs, warns, says how to restrict, and never shows 0.0.0.0 as a link', async () => {
    const { cli, port } = await start(['--host', '0.0.0.0', '--port', '0'])
    const banner = cli.stdout()
    const addresses = lanAddresses()
    if (addresses.length === 0) {
      expect(banner).toMatch(/^Network: +no network interface is up yet$/m)
    } else {
      expect(banner).toMatch(
        new RegExp(`^Network: +${addresses.map((address) => `http://${address}:${port}`).join(', ')}$`, 'm'),
      )
    }
    expect(banner).toMatch(
      /^Warning: +--host 0\.0\.0\.0 opens the API and the admin routes to that network; from other machines the admin routes want an API key\.$/m,
    )
    expect(banner).toMatch(
      /^Restrict: +--allowed-host <the name clients use> and --api-key <a key of your own> \(petstore-sandbox-key is public\)\.$/m,
    )
    expect(banner).not.toContain('0.0.0.0:')
    expect(banner).toMatch(new RegExp(`^Dashboard: +http://127\\.0\\.0\\.1:${port}/__sandbox/$`, 'm'))
  })

  it('answers the API from the network, and the admin routes there only with a key', async () => {
    const [address] = lanAddresses()
    // A machine with no network interface up has no other machine to test from.
    if (address === undefined) {
      expect(lanAddresses()).toEqual([])
      return
    }
    const { port } = await start(['--host', '0.0.0.0', '--port', '0', '--api-key', 'team-secret-1'])
    const lan = `http://${address}:${port}`
    const local = `http://127.0.0.1:${port}`
    const auth = { Authorization: 'Bearer team-secret-1' }

    expect((await fetch(`${lan}/v1/pets?limit=1`, { headers: auth })).status).toBe(200)
    // From the LAN address, the peer is not loopback: the admin routes want the key.
    const refused = await fetch(`${lan}/__sandbox/health`)
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="petstore"')
    expect(await refused.json()).toEqual({
      code: 'unauthorized',
      message:
        '/__sandbox answers another machine only with one of the sandbox\'s API keys (--api-key): Authorization header is missing; send "Authorization: Bearer <API key>"',
      status: 401,
    })
    const wrong = await fetch(`${lan}/__sandbox/reset`, { method: 'POST', headers: { Authorization: 'Bearer guess' } })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="petstore", error="invalid_token"')
    expect((await fetch(`${lan}/__sandbox/health`, { headers: auth })).status).toBe(200)
    // This machine needs none, and its page carries the key; another machine's page does not.
    expect((await fetch(`${local}/__sandbox/health`)).status).toBe(200)
    expect(await (await fetch(`${local}/__sandbox/`)).text()).toContain('data-api-key="team-secret-1"')
    const page = await (await fetch(`${lan}/__sandbox/`)).text()
    expect(page).toContain('data-api-key=""')
    expect(page).not.toContain('team-secret-1')
    // The API's reference page too: on this machine it shows the key, to another it asks for one.
    expect(await (await fetch(`${local}/`)).text()).toContain('API key: <code>team-secret-1</code>')
    const reference = await (await fetch(`${lan}/`)).text()
    expect(reference).toContain('data-api-key=""')
    expect(reference).toContain("The API wants one of the sandbox's API keys: enter it under Authorize.")
    expect(reference).not.toContain('team-secret-1')
  })

  it('says nothing of the network on loopback, and warns about --allowed-host all', async () => {
    const { cli } = await start(['--port', '0'])
    expect(cli.stdout()).not.toMatch(/^(?:Network|Warning|Restrict):/m)
    const open = await start(['--port', '0', '--allowed-host', 'all'])
    expect(open.cli.stdout()).toMatch(
      /^Warning: +--allowed-host all answers any Host name: a web page can reach the sandbox through DNS rebinding\.$/m,
    )
  })
})

describe.skipIf(!needs('script'))('colours', () => {
  it('colours the banner and the log on a terminal, the status by its class', async () => {
    const cli = startInTerminal(['--port', '0'])
    const [, url = ''] = await waitFor(cli, ansi('listening on ~\\[36m(http://\\S+)/v1~\\[39m'))
    await waitFor(cli, /Press Ctrl-C to stop\./)
    expect(cli.stdout()).toContain(`${ESC}1mDashboard:  ${ESC}22m`)
    await fetch(`${url}/v1/pets`, { headers: { Authorization: `Bearer ${KEY}` } })
    await fetch(`${url}/v1/pets`)
    await waitFor(cli, ansi('^GET /v1/pets ~\\[32m200~\\[39m ~\\[2m\\d+\\.\\d ms~\\[22m$'))
    await waitFor(cli, ansi('^GET /v1/pets ~\\[33m401~\\[39m '))
  })

  it('writes no colour with NO_COLOR, nor into a pipe', async () => {
    const cli = startInTerminal(['--port', '0'], { NO_COLOR: '1' })
    const [, url = ''] = await waitFor(cli, /listening on (http:\/\/\S+)\/v1 with/)
    await waitFor(cli, /Press Ctrl-C to stop\./)
    await fetch(`${url}/v1/pets`, { headers: { Authorization: `Bearer ${KEY}` } })
    await waitFor(cli, /^GET \/v1\/pets 200 \d+\.\d ms$/m)
    expect(cli.stdout()).not.toContain(ESC)
    const piped = await start(['--port', '0'])
    expect(piped.cli.stdout()).not.toContain(ESC)
  })
})

describe('the access log in isolated mode', () => {
  it("names each request's tenant with the label the dashboard and /__sandbox/tenants use", async () => {
    const { cli, port } = await start(['--port', '0', '--isolate'])
    const api = `http://127.0.0.1:${port}/v1`
    await fetch(`${api}/pets?limit=1`, { headers: { Authorization: 'Bearer worker-1' } })
    await fetch(`${api}/pets?limit=2`, { headers: { Authorization: `Bearer ${KEY}` } })
    await waitFor(cli, /^GET \/v1\/pets\?limit=1 200 \d+\.\d ms \[wo\*{5}1 \(8 characters\)\]$/m)
    await waitFor(cli, /^GET \/v1\/pets\?limit=2 200 \d+\.\d ms \[default\]$/m)
    const tenants = (await (await fetch(`http://127.0.0.1:${port}/__sandbox/tenants`)).json()) as { label: string }[]
    expect(tenants.map(({ label }) => label)).toEqual(['default', 'wo*****1 (8 characters)'])
  })
})

describe('--help', () => {
  it('gives every default and variable in one format', async () => {
    const cli = spawnCli(['--help'])
    running.push(cli)
    expect(await cli.exited).toBe(0)
    const help = cli.stdout().replace(/\n\s+/g, ' ')
    expect(help).not.toMatch(/\(default: [^)]*\) \(env:/)
    expect(help).toContain('(default: 3210, env: PORT)')
    expect(help).toContain('(default: 127.0.0.1, env: PETSTORE_HOST)')
    expect(help).toContain('(default: petstore-sandbox-key, env: PETSTORE_API_KEYS)')
    expect(help).toContain('(default: 1000, env: PETSTORE_JOURNAL_LIMIT)')
  })
})
