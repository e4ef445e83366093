/**
 * The Traffic panel's chart: requests per second over the last 5 minutes from
 * `/__sandbox/traffic`, stacked by status class in an inline SVG (one path per class), with
 * the totals in text beside it for those who cannot see or tell the colours apart.
 *
 * May import: other dashboard files.
 */
import { ADMIN, getJson, type Traffic } from './api.js'
import { byId, h, messageOf, num } from './dom.js'

const NS = 'http://www.w3.org/2000/svg'
const CLASSES = ['c2xx', 'c3xx', 'c4xx', 'c5xx'] as const
const paths: SVGPathElement[] = []
const totals: HTMLElement[] = []
let grid: SVGPathElement | undefined

export function setUpChart(): void {
  const svg = byId('chart-svg')
  grid = document.createElementNS(NS, 'path')
  grid.setAttribute('class', 'grid')
  grid.setAttribute('vector-effect', 'non-scaling-stroke')
  svg.append(grid)
  for (const name of CLASSES) {
    const path = document.createElementNS(NS, 'path')
    path.setAttribute('class', `bar ${name}`)
    path.setAttribute('shape-rendering', 'crispEdges')
    paths.push(path)
    svg.append(path)
    const total = h('b', undefined, '0')
    totals.push(total)
    byId('chart-legend').append(h('li', undefined, h('span', `swatch ${name}`), `${name.slice(1)}: `, total))
  }
}

export async function loadTraffic(): Promise<void> {
  let traffic: Traffic
  try {
    traffic = await getJson<Traffic>(`${ADMIN}/traffic`)
  } catch (error) {
    byId('chart-summary').textContent = `Could not load the traffic: ${messageOf(error)}`
    return
  }
  const { series } = traffic
  const width = Math.max(traffic.seconds, series.length, 1)
  byId('chart-svg').setAttribute('viewBox', `0 0 ${width} 100`)
  grid?.setAttribute('d', `M0 50H${width}`)
  let peak = 0
  for (const second of series) peak = Math.max(peak, second.c2xx + second.c3xx + second.c4xx + second.c5xx)
  const top = niceCeiling(peak)
  const d = CLASSES.map(() => [] as string[])
  const sums = CLASSES.map(() => 0)
  series.forEach((second, index) => {
    const x = width - series.length + index
    let y = 100
    CLASSES.forEach((name, k) => {
      const count = second[name]
      if (count <= 0) return
      sums[k] = (sums[k] ?? 0) + count
      const height = (count / top) * 100
      y -= height
      d[k]?.push(`M${x} ${y.toFixed(2)}h1v${height.toFixed(2)}h-1z`)
    })
  })
  paths.forEach((path, k) => {
    path.setAttribute('d', d[k]?.join('') ?? '')
  })
  totals.forEach((total, k) => {
    total.textContent = num(sums[k] ?? 0)
  })
  const all = sums.reduce((a, b) => a + b, 0)
  byId('chart-peak').textContent = `${num(top)} per second`
  byId('chart-summary').textContent =
    all === 0
      ? 'No requests in the last 5 minutes.'
      : `${num(all)} requests in the last 5 minutes; at most ${num(peak)} in one second.`
}

/** 1, 2, 5, 10, 20, 50... at or above the peak, so the scale reads easily. */
function niceCeiling(peak: number): number {
  let step = 1
  for (;;) {
    for (const factor of [1, 2, 5]) if (step * factor >= peak) return step * factor
    step *= 10
  }
}
