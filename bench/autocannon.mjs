// The second opinion on bench/http.mjs's wrk figures: autocannon, in this process (pinned to the
// load core by `npm run bench`). It runs in JavaScript and nearly fills its core against a bare
// server, so its ratios to bare come out high; a gap between its ratio and wrk's shows by how much.
import autocannon from 'autocannon'

const WARM_UP_SECONDS = 1

/** One autocannon run of GET `url`: req/s and the share of its core this process used. */
export async function autocannonRun(label, url, { seconds, connections, headers }) {
  const startedAt = performance.now()
  const startedCpu = process.cpuUsage()
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    headers,
    warmup: { duration: WARM_UP_SECONDS },
  })
  const { user, system } = process.cpuUsage(startedCpu)
  for (const [run, name] of [
    [result.warmup, 'warm-up'],
    [result, 'run'],
  ]) {
    if (run.non2xx > 0 || run.errors > 0 || run.timeouts > 0) {
      throw new Error(
        `${label} (autocannon ${name}): ${run.non2xx} non-2xx, ${run.errors} errors, ${run.timeouts} timeouts`,
      )
    }
  }
  return { rps: result.requests.average, loadCpu: (user + system) / 1000 / (performance.now() - startedAt) }
}
