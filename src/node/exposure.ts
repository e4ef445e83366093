/**
 * Where a server bound beyond loopback can be reached from other machines: the banner lists these
 * instead of a wildcard address no browser opens.
 *
 * May import: node:*, commander, the core, the other files here. Never msw or express.
 */
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os'
/**
 * `http://address:port` for each non-internal interface address the host covers: every IPv4 one
 * for 0.0.0.0, every one for `::` (dual stack), the address itself otherwise. IPv6 link-local
 * addresses are left out: a browser needs a zone id for them.
 */
export function reachableUrls(host: string, port: number): string[] {
  const wildcard = host === '0.0.0.0' ? 'IPv4' : host === '::' || host === '[::]' ? 'any' : undefined
  const shown = (address: string, family: string) => `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`
  if (wildcard === undefined) return [shown(host.replace(/^\[(.*)\]$/, '$1'), host.includes(':') ? 'IPv6' : 'IPv4')]
  return Object.values(networkInterfaces())
    .flat()
    .filter((info): info is NetworkInterfaceInfo => info !== undefined && !info.internal)
    .filter((info) => wildcard === 'any' || info.family === 'IPv4')
    .filter((info) => !(info.family === 'IPv6' && info.address.toLowerCase().startsWith('fe80:')))
    .map((info) => shown(info.address, info.family))
}
