// The HTTP load generator of bench/http.mjs and bench/relay-memory.mjs: Debian's wrk (C, one thread),
// pinned to LOAD_CORE and run under /usr/bin/time, which gives its CPU share. autocannon, in
// JavaScript, used 93-95% of its core against the bare server and so set bare's pace itself.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const LOAD_CORE = 1
const TIME = '/usr/bin/time'
const INSTALL = 'apt-get install -y wrk time'
const here = (path) => fileURLToPath(new URL(path, import.meta.url))

/**
 * wrk's version line. Throws, saying how to install them, when wrk or /usr/bin/time is missing:
 * call it before a long run rather than finding out half-way.
 */
export function requireWrk() {
  const missing = []
  // wrk --version prints its banner and exits 1; only a failed spawn means it is missing.
  const version = spawnSync('wrk', ['--version'], { encoding: 'utf8' })
  if (version.error) missing.push('wrk')
  if (!existsSync(TIME)) missing.push(TIME)
  if (missing.length > 0) throw new Error(`${missing.join(' and ')} not found: install with \`${INSTALL}\``)
  return version.stdout.split('\n')[0].replace(/\s+Copyright.*$/, '')
}

function toMs(value, unit) {
  return Number(value) * { us: 0.001, ms: 1, s: 1000, m: 60_000 }[unit]
}

/** What wrk --latency printed: req/s, requests, p50 and p99 in ms, non-2xx and socket errors. */
function parseWrk(text) {
  const number = (pattern) => Number(pattern.exec(text)?.[1] ?? NaN)
  const latency = (percent) => {
    const match = new RegExp(`^\\s*${percent}%\\s+([\\d.]+)(us|ms|s|m)\\b`, 'm').exec(text)
    return match ? toMs(match[1], match[2]) : NaN
  }
  return {
    rps: number(/Requests\/sec:\s*([\d.]+)/),
    requests: number(/(\d+) requests in/),
    p50: latency(50),
    p99: latency(99),
    // wrk prints these two lines only when there were any.
    non2xx: number(/Non-2xx or 3xx responses:\s*(\d+)/) || 0,
    socketErrors: /Socket errors: (.*)/.exec(text)?.[1],
  }
}

/** The Lua script and its arguments for a body (sent as a POST) or for keys in rotation. */
function scriptArgs({ body, rotateKeys }) {
  if (body !== undefined) return ['-s', here('./wrk-post.lua'), '--', body]
  if (rotateKeys !== undefined) return ['-s', here('./wrk-keys.lua'), '--', String(rotateKeys)]
  return []
}

/**
 * One run of `wrk -t1 -c<connections> -d<seconds>s --latency` against `url`, with `headers`, and
 * either a POST `body` or `rotateKeys` (N: Authorization `Bearer worker-0` .. `worker-<N-1>` in
 * turn). Answers parseWrk's figures plus wrkCpu, wrk's (user + system) / elapsed. Any non-2xx
 * answer or socket error fails the run: its figures would not be the server's.
 */
export async function wrk(label, url, { seconds, connections = 32, headers = {}, body, rotateKeys }) {
  const args = [
    ...['-f', 'TIME %U %S %e', 'taskset', '-c', String(LOAD_CORE)],
    ...['wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency'],
    ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    url,
    ...scriptArgs({ body, rotateKeys }),
  ]
  const child = spawn(TIME, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
  const [code] = await once(child, 'exit')
  const time = /TIME ([\d.]+) ([\d.]+) ([\d.]+)/.exec(stderr)
  const run = parseWrk(stdout)
  if (code !== 0 || !time || !Number.isFinite(run.rps)) {
    throw new Error(`${label}: wrk exited with ${code}:\n${stdout}\n${stderr}`)
  }
  if (run.non2xx > 0 || run.socketErrors) {
    throw new Error(`${label}: ${run.non2xx} non-2xx, socket errors ${run.socketErrors ?? 'none'}\n${stdout}`)
  }
  return { ...run, wrkCpu: (Number(time[1]) + Number(time[2])) / Number(time[3]) }
}
