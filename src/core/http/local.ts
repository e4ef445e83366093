/**
 * One definition of "local", used by every rule that asks: the names `localhost` and
 * `*.localhost`, the IPv4 loopback block 127.0.0.0/8, and the IPv6 loopback `[::1]`. And the
 * Host allowlist against DNS rebinding, Vite's rule (`server.allowedHosts`, as
 * host-validation-middleware implements it): local names and every IP literal pass; other names
 * only when allowed, a leading dot allowing a domain and its subdomains.
 *
 * May import: core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */

const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/

/** Whether a hostname (as URL gives it: lower case, IPv6 in brackets) names this machine. */
function isLocalHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    (IPV4.test(name) && name.startsWith('127.')) ||
    name === '[::1]' ||
    name === '[0:0:0:0:0:0:0:1]'
  )
}

/**
 * Whether a peer's IP address (as a socket or a proxy's X-Forwarded-For gives it) is this
 * machine: 127.0.0.0/8, ::1, and IPv4 loopback mapped into IPv6 (::ffff:127.x.x.x).
 */
export function isLoopbackAddress(address: string): boolean {
  const text = address
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
  const v4 = text.startsWith('::ffff:') ? text.slice('::ffff:'.length) : text
  return (IPV4.test(v4) && v4.startsWith('127.')) || text === '::1' || text === '0:0:0:0:0:0:0:1'
}

/** Whether an address to listen on keeps the server on this machine ("localhost" and loopback addresses). */
export function isLoopbackHost(host: string): boolean {
  return host.toLowerCase() === 'localhost' || isLoopbackAddress(host)
}

/** Whether an Origin header names a page served from this machine. */
export function isLocalOrigin(origin: string): boolean {
  if (!URL.canParse(origin)) return false
  const url = new URL(origin)
  return /^https?:$/.test(url.protocol) && isLocalHostname(url.hostname)
}

/** What a Host header names: an IP literal, a name (lower case, without port), or nothing readable. */
export function readHost(host: string): { kind: 'ip' } | { kind: 'name'; name: string } | { kind: 'invalid' } {
  const text = host.trim()
  if (text.startsWith('[')) {
    const end = text.indexOf(']')
    return end > 0 && URL.canParse(`http://${text.slice(0, end + 1)}`) ? { kind: 'ip' } : { kind: 'invalid' }
  }
  const name = text.replace(/:\d*$/, '').toLowerCase()
  return IPV4.test(name) ? { kind: 'ip' } : { kind: 'name', name: name.replace(/\.$/, '') }
}

/** `all` turns the check off. */
export type AllowedHosts = readonly string[] | 'all'

/** Vite's rule: local names and IP literals always; other names when listed (`.example.com`: it and its subdomains). */
export function isHostAllowed(host: string, allowed: AllowedHosts): boolean {
  if (allowed === 'all') return true
  const read = readHost(host)
  if (read.kind !== 'name') return read.kind === 'ip'
  const { name } = read
  if (name === 'localhost' || name.endsWith('.localhost')) return true
  return allowed.some((entry) => {
    const pattern = entry.toLowerCase()
    return pattern.startsWith('.') ? name === pattern.slice(1) || name.endsWith(pattern) : name === pattern
  })
}
