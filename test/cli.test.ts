import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createSandbox, PetSchema } from '../src/index.js'
import { DEFAULT_PORT } from '../src/node/server-options.js'
import { checkedFetch } from './support/openapi-check.js'
import { switchOf } from '../src/node/flags.js'
import { refusal } from './support/cli-in-process.js'
import { spawnCli, spawnNode, waitFor, type Cli } from './support/spawn-cli.js'

const KEY = 'petstore-sandbox-key'
// Waits for an event, not a pause: the bound only turns a hang into a failure with a message.
const PATIENCE = { timeout: 10_000, interval: 20 }

const running: Cli[] = []
afterEach(async () => {
  for (const cli of running.splice(0)) {
    if (cli.child.exitCode === null) {
      cli.child.kill('SIGKILL')
      await cli.exited
    }
  }
})

async function start(args: string[], env: Record<string, string> = {}) {
  const cli = spawnCli(args, env)
  running.push(cli)
  const [, apiUrl = ''] = await waitFor(cli, /listening on (http:\/\/\S+\/v1) with \d+ pets?\n/)
  return { cli, apiUrl }
}

function tempFile(name: string, content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'petstore-cli-')), name)
  writeFileSync(path, content)
  return path
}

describe('the petstore-sandbox command', () => {
  it('prints the URL, the key and a curl line, answers requests, logs them and stops on SIGTERM', async () => {
    const { cli, apiUrl } = await start(['--port', '0'])
    expect(apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    expect(cli.stdout()).toContain('API key:    petstore-sandbox-key')
    expect(cli.stdout()).toMatch(new RegExp(`^Dashboard: +${apiUrl.replace(/\/v1$/, '')}/__sandbox/$`, 'm'))
    expect(cli.stdout()).toContain(`curl -H 'Authorization: Bearer petstore-sandbox-key' '${apiUrl}/pets?limit=3'`)

    const response = await checkedFetch(`${apiUrl}/pets?limit=3`, {
      headers: { Authorization: 'Bearer petstore-sandbox-key' },
    })
    expect(response.status).toBe(200)
    expect(((await response.json()) as unknown[]).length).toBe(3)
    await waitFor(cli, /^GET \/v1\/pets\?limit=3 200 \d+\.\d ms$/m)

    cli.child.kill('SIGTERM')
    expect(await cli.exited).toBe(0)
    expect(cli.stdout()).toContain('Stopped (SIGTERM).')
  })

  it('stops cleanly on SIGINT (Ctrl-C)', async () => {
    const { cli } = await start(['--port', '0', '--quiet'])
    cli.child.kill('SIGINT')
    expect(await cli.exited).toBe(0)
    expect(cli.stdout()).toContain('Stopped (SIGINT).')
  })

  describe('stopping', () => {
    /**
     * A listPets held in a 60 s delay, and in flight for sure: the request is sent once a scenario
     * waits for it, and returned once the scenario is used up (the admin API shows it gone): the
     * sandbox took it and began the delay in the same step. `answer` is the status, or the code
     * of the socket error that ended it.
     */
    async function heldInDelay(apiUrl: string): Promise<{ answer: Promise<number | string> }> {
      const origin = apiUrl.replace(/\/v1$/, '')
      const added = await fetch(`${origin}/__sandbox/scenarios`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ operation: 'listPets', delayMs: 60_000, times: 1 }),
      })
      expect(added.status).toBe(201)
      const answer = fetch(`${apiUrl}/pets?limit=1`, { headers: { Authorization: `Bearer ${KEY}` } }).then(
        (response) => response.status,
        (error: unknown) => (error as { cause?: { code?: string } }).cause?.code ?? String(error),
      )
      await vi.waitFor(async () => {
        expect(await (await fetch(`${origin}/__sandbox/scenarios`)).json()).toEqual([])
      }, PATIENCE)
      return { answer }
    }

    /**
     * A createPet whose body the client holds back: in flight for sure once the server asks for
     * the body (100 Continue, sent when the sandbox reads it). `send()` sends the body; `answer`
     * is everything that came back, once the connection closes.
     */
    async function uploadInFlight(apiUrl: string): Promise<{ send: () => void; answer: Promise<string> }> {
      const { hostname, port } = new URL(apiUrl)
      const body = '{"name":"In flight","categoryId":1}'
      const socket = connect(Number(port), hostname)
      let received = ''
      let asked: () => void = () => undefined
      const continued = new Promise<void>((resolve) => (asked = resolve))
      socket.setEncoding('latin1').on('data', (chunk: string) => {
        received += chunk
        if (received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) asked()
      })
      const answer = once(socket, 'close').then(() => received)
      socket.write(
        `POST /v1/pets HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${KEY}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      )
      await Promise.race([
        continued,
        answer.then((text) => {
          throw new Error(`closed before 100 Continue: ${JSON.stringify(text)}`)
        }),
      ])
      return { send: () => socket.write(body), answer }
    }

    it('lets a request in flight finish on SIGTERM, then exits 0', async () => {
      // A bound far past the test's own timeout: only the request's end can end the wait.
      const { cli, apiUrl } = await start(['--port', '0', '--quiet', '--shutdown-timeout', '600000'])
      const upload = await uploadInFlight(apiUrl)
      cli.child.kill('SIGTERM')
      await waitFor(cli, /Stopping \(SIGTERM\): letting 1 request in flight finish, for up to 600000 ms/)
      upload.send()
      const answer = await upload.answer
      expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 Created\r\n/)
      expect(answer).toMatch(/^Connection: close\r$/im)
      expect(JSON.parse(answer.slice(answer.lastIndexOf('\r\n\r\n') + 4))).toEqual({
        id: 33,
        name: 'In flight',
        categoryId: 1,
      })
      expect(await cli.exited).toBe(0)
      expect(cli.stdout()).toContain('Stopped (SIGTERM).')
    })

    it('cuts what is left after --shutdown-timeout, and still exits 0', async () => {
      const { cli, apiUrl } = await start(['--port', '0', '--quiet', '--shutdown-timeout', '200'])
      const { answer } = await heldInDelay(apiUrl)
      cli.child.kill('SIGINT')
      // The server had the request at the signal; so the end of its connection is the cut.
      await waitFor(cli, /Stopping \(SIGINT\): letting 1 request in flight finish, for up to 200 ms/)
      expect(await cli.exited).toBe(0)
      // undici's code for a connection the server closed before the answer came.
      expect(await answer).toBe('UND_ERR_SOCKET')
    })

    it.each([
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const)('exits at once with %s given twice: code %i', async (signal, code) => {
      const { cli, apiUrl } = await start(['--port', '0', '--quiet', '--shutdown-timeout', '600000'])
      const { answer } = await heldInDelay(apiUrl)
      cli.child.kill(signal)
      // With a request in flight and a bound of 10 minutes, only the second signal ends it.
      await waitFor(cli, new RegExp(`Stopping \\(${signal}\\): letting 1 request in flight finish`))
      cli.child.kill(signal)
      expect(await cli.exited).toBe(code)
      expect(await answer).toBe('UND_ERR_SOCKET')
      expect(cli.stdout()).not.toContain('Stopped')
      expect(cli.stderr()).toContain(`Stopped at once (${signal} again): 1 request was cut without an answer.`)
    })

    it('says on the second Ctrl-C that the state file misses changes, and leaves no lock', async () => {
      const folder = mkdtempSync(join(tmpdir(), 'petstore-abandon-'))
      const file = join(folder, 'state.json')
      const { cli, apiUrl } = await start([
        '--port',
        '0',
        '--quiet',
        '--shutdown-timeout',
        '600000',
        '--state-file',
        file,
        // Saved on an interval, not before each answer (the default), and no save after the
        // first one: the pet below is a change the file misses.
        '--state-save',
        'interval',
        '--limit',
        'stateSaveIntervalMs=600000',
      ])
      const created = await fetch(`${apiUrl}/pets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Not saved', categoryId: 1 }),
      })
      expect(created.status).toBe(201)
      const { answer } = await heldInDelay(apiUrl)
      cli.child.kill('SIGINT')
      await waitFor(cli, /Stopping \(SIGINT\): letting 1 request in flight finish/)
      cli.child.kill('SIGINT')
      expect(await cli.exited).toBe(130)
      expect(await answer).toBe('UND_ERR_SOCKET')
      expect(cli.stderr()).toContain('1 request was cut without an answer.')
      expect(cli.stderr()).toMatch(
        new RegExp(
          `The state file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} was NOT saved: the changes since its last save at \\S+ are lost\\. Its lock is released\\.`,
        ),
      )
      expect(existsSync(`${file}.lock`)).toBe(false)
      expect(JSON.stringify(JSON.parse(readFileSync(file, 'utf8')))).not.toContain('Not saved')
      rmSync(folder, { recursive: true, force: true })
    })
    it('says on the second Ctrl-C that the state file holds every change when each was saved before its answer', async () => {
      const folder = mkdtempSync(join(tmpdir(), 'petstore-abandon-'))
      const file = join(folder, 'state.json')
      const args = ['--port', '0', '--quiet', '--shutdown-timeout', '600000', '--state-file', file]
      const first = await start(args)
      const created = await fetch(`${first.apiUrl}/pets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Kept', categoryId: 1 }),
      })
      expect(created.status).toBe(201)
      const { id } = (await created.json()) as { id: number }
      const { answer } = await heldInDelay(first.apiUrl)
      first.cli.child.kill('SIGINT')
      await waitFor(first.cli, /Stopping \(SIGINT\): letting 1 request in flight finish/)
      first.cli.child.kill('SIGINT')
      expect(await first.cli.exited).toBe(130)
      expect(await answer).toBe('UND_ERR_SOCKET')
      expect(first.cli.stderr()).toMatch(
        new RegExp(
          `The state file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} holds every change \\(saved \\S+\\)\\. Its lock is released\\.`,
        ),
      )
      expect(existsSync(`${file}.lock`)).toBe(false)
      // The answered create is there after a restart.
      const second = await start(args)
      const read = await fetch(`${second.apiUrl}/pets/${String(id)}`, { headers: { Authorization: `Bearer ${KEY}` } })
      expect(read.status).toBe(200)
      expect(((await read.json()) as { name: string }).name).toBe('Kept')
      second.cli.child.kill('SIGTERM')
      await second.cli.exited
      rmSync(folder, { recursive: true, force: true })
    })
  })

  describe('environment variables', () => {
    it('takes keys, allowed hosts, CORS origins and quiet from the environment', async () => {
      const { cli, apiUrl } = await start(['--port', '0'], {
        PETSTORE_API_KEYS: 'alpha, beta',
        PETSTORE_ALLOWED_HOSTS: 'mybox.lan',
        PETSTORE_CORS_ORIGINS: 'https://app.example.com',
        PETSTORE_QUIET: '1',
      })
      expect(cli.stdout()).toContain('API keys:   alpha, beta')
      const { port } = new URL(apiUrl)
      const { rawRequest } = await import('./support/raw-http.js')
      const viaName = await rawRequest(
        apiUrl,
        `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: mybox.lan:${port}\r\nAuthorization: Bearer beta\r\nConnection: close\r\n\r\n`,
      )
      expect(viaName.status).toBe(200)
      const cors = await fetch(`${apiUrl}/pets?limit=1`, {
        headers: { Authorization: 'Bearer alpha', Origin: 'https://app.example.com' },
      })
      expect(cors.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
      cli.child.kill('SIGTERM')
      await cli.exited
      expect(cli.stdout()).not.toMatch(/^GET /m)
    })

    it('lets the command line win over the environment', async () => {
      const { apiUrl } = await start(['--port', '0', '--api-key', 'gamma'], { PETSTORE_API_KEYS: 'alpha' })
      const status = async (key: string) =>
        (await fetch(`${apiUrl}/pets`, { headers: { Authorization: `Bearer ${key}` } })).status
      expect(await status('gamma')).toBe(200)
      expect(await status('alpha')).toBe(401)
    })
  })

  it('logs no request lines with --quiet', async () => {
    const { cli, apiUrl } = await start(['--port', '0', '--quiet'])
    await checkedFetch(`${apiUrl}/pets`)
    cli.child.kill('SIGTERM')
    await cli.exited
    expect(cli.stdout()).not.toMatch(/^GET /m)
  })

  it('replaces the default key with the --api-key values', async () => {
    const { cli, apiUrl } = await start(['--port', '0', '--api-key', 'alpha', '--api-key', 'beta'])
    expect(cli.stdout()).toContain('API keys:   alpha, beta')
    const status = async (key: string) =>
      (await checkedFetch(`${apiUrl}/pets`, { headers: { Authorization: `Bearer ${key}` } })).status
    expect(await status('alpha')).toBe(200)
    expect(await status('beta')).toBe(200)
    expect(await status('petstore-sandbox-key')).toBe(401)
  })

  it('serves the pets of a --fixtures file', async () => {
    const file = tempFile('pets.json', JSON.stringify([{ id: 5, name: 'Only', categoryId: 2, status: 'sold' }]))
    const { apiUrl } = await start(['--port', '0', '--fixtures', file])
    const response = await checkedFetch(`${apiUrl}/pets`, { headers: { Authorization: 'Bearer petstore-sandbox-key' } })
    expect(await response.json()).toEqual([{ id: 5, name: 'Only', categoryId: 2, status: 'sold' }])
  })

  it('takes the port from PORT', async () => {
    // PORT=0: a port of the system's choosing, never the default one; were PORT not read, the
    // command would try the default port.
    const { apiUrl } = await start([], { PORT: '0' })
    expect(apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    expect(Number(new URL(apiUrl).port)).not.toBe(DEFAULT_PORT)
    const refused = spawnCli([], { PORT: 'abc' })
    expect(await refused.exited).toBe(1)
    expect(refused.stderr()).toContain(
      "value 'abc' from env 'PORT' is invalid. port must be an integer from 0 to 65535.\n",
    )
  })

  // A flag's variable says on or off in words, any case; empty is unset; anything else is refused.
  it.each([
    ['1', true],
    ['true', true],
    ['YES', true],
    ['On', true],
    ['0', false],
    ['false', false],
    ['No', false],
    ['OFF', false],
    ['', undefined],
    [' ', undefined],
    ['maybe', null],
    ['constructor', null],
    ['__proto__', null],
  ])('reads a switch variable set to %j as %s (null: refused)', (value, read) => {
    expect(switchOf(value)).toBe(read)
  })

  it.each([
    ['YES', true],
    ['OFF', false],
    [' ', false],
  ])('reads PETSTORE_ISOLATE=%j as %s', async (value, isolated) => {
    const { cli } = await start(['--port', '0'], { PETSTORE_ISOLATE: value })
    const keys = /^API keys?: +.*$/m.exec(cli.stdout())?.[0]
    expect(keys).toBe(
      isolated
        ? 'API keys:   petstore-sandbox-key, or any key (each key has its own data)'
        : 'API key:    petstore-sandbox-key',
    )
  })

  it('refuses PETSTORE_QUIET=maybe in a real process: exit 1, naming the variable', async () => {
    const refused = spawnCli(['--port', '0'], { PETSTORE_QUIET: 'maybe' })
    running.push(refused)
    expect(await refused.exited).toBe(1)
    expect(refused.stderr()).toContain('PETSTORE_QUIET="maybe" is not a switch')
  })

  it.each(['2', 'enabled', 'constructor', '__proto__'])(
    'refuses PETSTORE_QUIET=%j, naming the variable',
    async (value) => {
      const refused = await refusal(['--port', '0'], { PETSTORE_QUIET: value })
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(`PETSTORE_QUIET=${JSON.stringify(value)} is not a switch`)
    },
  )

  it('lets --isolate on the command line win over PETSTORE_ISOLATE=false', async () => {
    const { cli } = await start(['--port', '0', '--isolate'], { PETSTORE_ISOLATE: 'false' })
    expect(cli.stdout()).toMatch(/^API keys: +.*or any key/m)
  })

  it('counts one pet as one, and lines up the banner', async () => {
    const { cli } = await start(['--port', '0', '--generate', '1', '--delay', '5', '--host', '0.0.0.0'])
    expect(cli.stdout()).toMatch(/ with 1 pet\n/)
    const labels = [
      'Network:',
      'Warning:',
      'Restrict:',
      'API key:',
      'Simulating:',
      'Try:',
      'Docs:',
      'Dashboard:',
      'Reset:',
    ].map((label) => new RegExp(`^${label} +\\S`, 'm').exec(cli.stdout())?.[0])
    expect(new Set(labels.map((match) => match?.length)).size).toBe(1)
  })

  it('seeds generated pets with --generate, the same for the same --random-seed', async () => {
    const spawnNames = async (args: string[]) => {
      const { cli, apiUrl } = await start(['--port', '0', '--quiet', ...args])
      expect(cli.stdout()).toContain('with 40 pets')
      const pets = (await (
        await checkedFetch(`${apiUrl}/pets?limit=100`, { headers: { Authorization: 'Bearer petstore-sandbox-key' } })
      ).json()) as { name: string }[]
      cli.child.kill('SIGTERM')
      await cli.exited
      return pets.map((pet) => pet.name)
    }
    // One process, held to another run of the same seed in this process (a second process
    // repeated Node's and faker's start-up, about 0.6 CPU-s each, for the same comparison).
    const namesHere = async (randomSeed: number) =>
      (await createSandbox({ generate: 40, randomSeed }).pets.list()).map((pet) => pet.name)
    const first = await spawnNames(['--generate', '40', '--random-seed', '7'])
    expect(first).toHaveLength(40)
    expect(await namesHere(7)).toEqual(first)
    const other = await namesHere(8)
    expect(other).toHaveLength(40)
    expect(other).not.toEqual(first)
  })

  it('reloads the seed when the --watch-ed fixtures file changes, and keeps it when the new file is invalid', async () => {
    const file = tempFile('pets.json', JSON.stringify([{ id: 1, name: 'First', categoryId: 1 }]))
    const { cli, apiUrl } = await start(['--port', '0', '--fixtures', file, '--watch', '--quiet'])
    const names = async () =>
      (
        (await (
          await checkedFetch(`${apiUrl}/pets`, { headers: { Authorization: 'Bearer petstore-sandbox-key' } })
        ).json()) as { name: string }[]
      ).map((pet) => pet.name)
    expect(await names()).toEqual(['First'])

    writeFileSync(
      file,
      JSON.stringify([
        { id: 1, name: 'Second', categoryId: 1 },
        { id: 2, name: 'Third', categoryId: 2 },
      ]),
    )
    await waitFor(cli, /Reloaded .*pets\.json: 2 pets; the data is reset to them\./)
    expect(await names()).toEqual(['Second', 'Third'])

    writeFileSync(file, '[{"id": 1, "name": "Broken"')
    await waitFor(
      cli,
      /petstore-sandbox: kept the previous seed: fixtures file .*pets\.json is not valid JSON/,
      10_000,
      'stderr',
    )
    expect(await names()).toEqual(['Second', 'Third'])
  })

  it('runs isolated tenants with --isolate, and says so in the banner', async () => {
    const { cli, apiUrl } = await start([
      '--port',
      '0',
      '--isolate',
      '--api-key-pattern',
      'team-[a-z]+',
      '--delay',
      '10-20',
      '--quiet',
    ])
    expect(cli.stdout()).toContain(
      'API keys:   petstore-sandbox-key, or any key matching /team-[a-z]+/ (each key has its own data)',
    )
    expect(cli.stdout()).toMatch(/^Simulating: +delay 10-20 ms$/m)
    const create = (key: string) =>
      checkedFetch(`${apiUrl}/pets`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: '{"name":"Mine","categoryId":1}',
      })
    expect((await create('team-red')).status).toBe(201)
    expect((await create('team-9')).status).toBe(401)
    const count = async (key: string) =>
      (
        (await (
          await checkedFetch(`${apiUrl}/pets?limit=100`, { headers: { Authorization: `Bearer ${key}` } })
        ).json()) as unknown[]
      ).length
    expect(await count('team-red')).toBe(33)
    expect(await count('team-blue')).toBe(32)
  })

  it('prints its version', async () => {
    const cli = spawnCli(['--version'])
    expect(await cli.exited).toBe(0)
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    expect(cli.stdout().trim()).toBe(version)
  })

  describe('exits with code 1 and one clear message', () => {
    it.each([
      [
        'a fixtures entry with a bad field',
        JSON.stringify([
          { id: 1, name: 'a', categoryId: 1 },
          { id: 2, name: 'b', categoryId: 'two' },
        ]),
        /^petstore-sandbox: Invalid fixtures file .*pets\.json: entry 1 \(id 2\): categoryId must be an integer, got "two"\n$/,
      ],
      [
        'a fixtures file that is not JSON',
        '[{"id": 1,',
        /^petstore-sandbox: fixtures file .*pets\.json is not valid JSON: /,
      ],
      // An object with pets is a saved state, taken as one (test/state-format.test.ts).
      ['a fixtures file that is not an array', '{"animals": []}', /expected a JSON array of pets, got object\n$/],
    ])('for %s', async (_, content, message) => {
      const refused = await refusal(['--port', '0', '--fixtures', tempFile('pets.json', content)])
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(message)
      expect(refused.stderr).not.toContain('Usage:')
    })

    it('for a missing fixtures file', async () => {
      const cli = spawnCli(['--fixtures', '/nonexistent/pets.json'])
      expect(await cli.exited).toBe(1)
      expect(cli.stderr()).toMatch(/^petstore-sandbox: cannot read fixtures file \/nonexistent\/pets\.json: ENOENT/)
    })

    it('for a port in use', async () => {
      const blocker = createServer().listen(0, '127.0.0.1')
      await once(blocker, 'listening')
      const { port } = blocker.address() as { port: number }
      try {
        const cli = spawnCli(['--port', String(port)])
        expect(await cli.exited).toBe(1)
        expect(cli.stderr()).toBe(
          `petstore-sandbox: Port ${port} on 127.0.0.1 is already in use. Choose another port, or 0 for a free one.\n`,
        )
      } finally {
        blocker.close()
      }
    })

    it.each([
      [['--bogus'], "error: unknown option '--bogus'"],
      [['--port', 'abc'], "argument 'abc' is invalid. port must be an integer from 0 to 65535.\n"],
      [['--max-tenants', '1e3'], "argument '1e3' is invalid. max tenants must be an integer from 2 to 1000000.\n"],
      // A value's control characters reach the terminal escaped, not as an escape sequence.
      [['--port', '\u001b[2J\u0007'], "argument '\\u001b[2J\\u0007' is invalid. port must be"],
      [['--port', '70000'], 'port must be an integer from 0 to 65535'],
      [['--api-key', 'has space'], 'API key "has space" is not a valid bearer token'],
      [['--failure-rate', '1.5'], 'failure rate must be a number from 0 to 1'],
      [['--delay', '500-100'], 'delay must be milliseconds (e.g. 200) or a range'],
      [['--now', 'tomorrow'], 'date must be ISO 8601'],
      [['--now', '1'], 'date must be ISO 8601'],
      [['--now', '2031-02-30'], 'date must be ISO 8601'],
      [['--generate', '-3'], 'generate must be an integer from 0 to 2000000, got -3.'],
      [['--journal-limit', '1.5'], 'journal limit must be an integer from 0 to 1000000, got 1.5.'],
      [['--failure-rate', '-0.1'], 'failure rate must be a number from 0 to 1, got -0.1.'],
      [['--limit', 'nope=3'], 'the limits you can set are bodyBytes'],
      [['--random-seed', '2147483648'], 'random seed must be an integer from 0 to 2147483647, got 2147483648.'],
      [['--watch'], '--watch needs --fixtures <file>'],
      [['--api-key-pattern', 'x'], '--api-key-pattern needs --isolate'],
      [['--isolate', '--api-key-pattern', '('], 'not a valid regular expression'],
    ])('for %j', async (args, message) => {
      const refused = await refusal(args)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(message)
      expect(refused.stderr).not.toMatch(/[^\P{Cc}\n]/u)
    })

    it('for an unknown option, in a real process', async () => {
      const cli = spawnCli(['--bogus'])
      expect(await cli.exited).toBe(1)
      expect(cli.stderr()).toContain("error: unknown option '--bogus'")
      expect(cli.stderr()).toContain('(run petstore-sandbox --help for usage)')
    })
  })
})

describe('the built command: bin/petstore-sandbox.js running the bundle', () => {
  // The bundle is made here, from the source as it is now, by the build's own script, in a folder
  // of its own: dist/ holds whatever the last `npm run build` left, and a test of that would pass
  // or fail with an old build.
  const repo = fileURLToPath(new URL('..', import.meta.url))
  let root = ''
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'petstore-built-'))
    cpSync(join(repo, 'bin'), join(root, 'bin'), { recursive: true })
    mkdirSync(join(root, 'scripts'))
    for (const script of ['bundle-cli.mjs', 'cli-bundle.mjs']) {
      cpSync(join(repo, 'scripts', script), join(root, 'scripts', script))
    }
    cpSync(join(repo, 'package.json'), join(root, 'package.json'))
    for (const shared of ['src', 'fixtures', 'node_modules']) symlinkSync(join(repo, shared), join(root, shared))
    const build = spawnNode(['scripts/bundle-cli.mjs'], {}, root)
    expect(await build.exited, `node scripts/bundle-cli.mjs failed: ${build.stderr()}`).toBe(0)
  }, 60_000)
  afterAll(() => {
    if (root !== '') rmSync(root, { recursive: true, force: true })
  })

  const spawnBuilt = (args: string[]) => {
    const cli = spawnNode([join(root, 'bin/petstore-sandbox.js'), ...args])
    running.push(cli)
    return cli
  }

  it('prints the version of the package', async () => {
    const cli = spawnBuilt(['--version'])
    expect(await cli.exited).toBe(0)
    const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }
    expect(cli.stdout()).toBe(`${version}\n`)
  })

  it('generates pets with --generate (faker, loaded apart from the bundle), serves them and stops on SIGTERM', async () => {
    const cli = spawnBuilt(['--port', '0', '--generate', '5', '--random-seed', '7'])
    const [, apiUrl = ''] = await waitFor(cli, /listening on (http:\/\/\S+\/v1) with 5 pets\n/)
    const response = await checkedFetch(`${apiUrl}/pets`, { headers: { Authorization: `Bearer ${KEY}` } })
    const pets = (await response.json()) as unknown[]
    expect(pets).toHaveLength(5)
    for (const pet of pets) expect(PetSchema.parse(pet)).toEqual(pet)
    await waitFor(cli, /^GET \/v1\/pets 200 \d+\.\d ms$/m)
    cli.child.kill('SIGTERM')
    expect(await cli.exited).toBe(0)
    expect(cli.stdout()).toContain('Stopped (SIGTERM).')
    expect(cli.stderr()).toBe('')
  })
})
