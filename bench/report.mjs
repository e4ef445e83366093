// bench/results.md from the results of bench/run.mjs: the targets first, then each section.
import { fileURLToPath } from 'node:url'
import prettier from 'prettier'
import { CONNECTIONS, ISOLATE_KEYS, SECOND_OPINION_SECONDS, WARM_UP_SECONDS } from './http.mjs'

const fmt = (value, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const percent = (value, reference) => `${fmt((100 * value) / reference)}%`
const times = (value, reference) => `${fmt(value / reference, 2)}x`
// du counts KiB; MB here are 10^6 bytes, as for the RSS.
const megabytes = (kilobytes) => (kilobytes * 1024) / 1e6
// Fewer rounds than this read the machine's noise as often as the code: such a run is indicative,
// and its table never says a target was met.
export const ROUNDS_FOR_VERDICT = 3
let indicative = false
const yesNo = (met) => (indicative ? 'indicative' : met ? 'yes' : '**no**')

// Above this share of its core, wrk rather than the server it loads may set the pace.
const WRK_BUSY = 0.9

const plural = (count, noun) => `${count} ${noun}${count === 1 ? '' : 's'}`

/** A markdown table; `align` has one letter per column, l or r (numbers). */
function table(header, align, rows) {
  const rule = [...align].map((side) => (side === 'r' ? '---:' : '---'))
  return [header, rule, ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n')
}

/** A throughput target: the sandbox's req/s at least `share` of the reference's. */
function throughputTarget(measure, sandbox, reference, referenceName, share, target = `≥ ${fmt(share, 2)}`) {
  return [
    measure,
    fmt(sandbox),
    `${fmt(reference)} (${referenceName})`,
    fmt(sandbox / reference, 2),
    target,
    yesNo(sandbox >= share * reference),
  ]
}

/** A time target: the sandbox's time at most `factor` times the reference's. */
function timeTarget(measure, sandbox, reference, referenceName, factor, digits) {
  return [
    measure,
    fmt(sandbox, digits),
    `${fmt(reference, digits)} (${referenceName})`,
    times(sandbox, reference),
    `≤ ${fmt(factor, 2)}x`,
    yesNo(sandbox <= factor * reference),
  ]
}

// The targets of issue 40 (0.12.6): listPets and getPet at 0.85 of bare, createPet at 0.65 of a
// bare POST, p99 within 1.3x, in-process within 1.00x alone and shared, a cold start within 1.10x,
// start-up within 1.3x.
function targetsTable({ http, startup, inProcess, coldStart, scale, install, dashboard }) {
  const { bare, sandbox, isolate } = http
  const wrk = `wrk, ${CONNECTIONS} connections`
  const [small, large] = [scale[0], scale.at(-1)]
  const slowestReset = Math.max(...scale.map((row) => row.resetMs))
  const extraMB = megabytes(install.withSandbox.kilobytes - install.alone.kilobytes)
  return table(['measure', 'sandbox', 'reference', 'ratio', 'target', 'met?'], 'lrrrll', [
    throughputTarget(
      `listPets over HTTP / bare, req/s (${wrk})`,
      sandbox.listPets.rps,
      bare.listPets.rps,
      'bare',
      0.85,
    ),
    throughputTarget(`getPet over HTTP / bare, req/s (${wrk})`, sandbox.getPet.rps, bare.getPet.rps, 'bare', 0.85),
    throughputTarget(
      `createPet over HTTP / bare POST, req/s (${wrk})`,
      sandbox.createPet.rps,
      bare.createPet.rps,
      'bare POST',
      0.65,
    ),
    timeTarget(`listPets p99 / bare p99, ms (${wrk})`, sandbox.listPets.p99, bare.listPets.p99, 'bare', 1.3, 2),
    timeTarget(
      'In-process listPets / trivial msw handler, µs per request (sequential fetches through setupServer)',
      inProcess.sandbox,
      inProcess.floor,
      'trivial msw handler',
      1,
      1,
    ),
    timeTarget(
      'In-process listPets in a setupServer shared with another API / trivial msw handler in the same, µs per request',
      inProcess.shared.sandbox,
      inProcess.shared.floor,
      'trivial msw handler, shared',
      1,
      1,
    ),
    timeTarget(
      "A test file's cold start / msw with a trivial handler, ms (fresh node: imports, setupServer, first fetch)",
      coldStart.sandbox,
      coldStart.msw,
      'msw, trivial handler',
      1.1,
      0,
    ),
    timeTarget(
      'Start-up to the first 200 / bare, s (spawn, then GET /v1/pets until 200)',
      startup.sandbox / 1000,
      startup.bare / 1000,
      'bare',
      1.3,
      2,
    ),
    [
      `RSS at ${fmt(large.count)} pets, MB (in-process, after a GC)`,
      fmt(large.rssMB),
      '',
      '',
      '≤ 260 MB',
      yesNo(large.rssMB <= 260),
    ],
    throughputTarget(
      `listPets under ${ISOLATE_KEYS} keys with --isolate / shared, req/s (${wrk})`,
      isolate.isolate.rps,
      sandbox.listPets.rps,
      'shared mode, one key',
      1 / 1.2,
      '≥ 0.83 (within 1.2x)',
    ),
    timeTarget(
      `getPet p50 at ${fmt(large.count)} pets / at ${fmt(small.count)}, µs (in-process getResponse)`,
      large.getPetMicros,
      small.getPetMicros,
      `at ${fmt(small.count)}`,
      2,
      1,
    ),
    timeTarget(
      `listPets?status=sold p50 at ${fmt(large.count)} pets / at ${fmt(small.count)}, µs (in-process getResponse)`,
      large.listSoldMicros,
      small.listSoldMicros,
      `at ${fmt(small.count)}`,
      2,
      1,
    ),
    ['reset(), slowest scale, ms (in-process)', fmt(slowestReset, 3), '', '', '< 1 ms', yesNo(slowestReset < 1)],
    [
      'Install size, MB (npm install of the packed tarball, du -sk)',
      fmt(megabytes(install.withSandbox.kilobytes), 1),
      `${fmt(megabytes(install.alone.kilobytes), 1)} (msw + zod alone)`,
      `+${fmt(extraMB, 1)} MB`,
      '≤ +15 MB',
      yesNo(extraMB <= 15),
    ],
    [
      `Dashboard: navigation to the first rows, ${fmt(dashboard.pets)} pets, ms (headless chromium)`,
      fmt(dashboard.medianMs),
      '',
      '',
      '< 1000 ms',
      yesNo(dashboard.medianMs < 1000),
    ],
  ])
}

function httpTable({ bare, jsonServer, sandbox, isolate }, jsonServerName) {
  const row = (scenario, server, run, versus) => [
    scenario,
    server,
    fmt(run.rps),
    `${fmt(run.rpsRange[0])}–${fmt(run.rpsRange[1])}`,
    fmt(run.p50, 2),
    fmt(run.p99, 2),
    versus,
    `${fmt(100 * run.wrkCpu)}%`,
  ]
  const ofBare = (run, reference) => `${percent(run.rps, reference.rps)} of bare`
  return table(
    ['scenario', 'server', 'req/s', 'req/s over rounds', 'p50 ms', 'p99 ms', 'req/s vs reference', 'wrk CPU'],
    'llrrrrrr',
    [
      row('listPets', 'bare node:http', bare.listPets, 'reference'),
      row('listPets', jsonServerName, jsonServer.listPets, ofBare(jsonServer.listPets, bare.listPets)),
      row('listPets', 'sandbox', sandbox.listPets, ofBare(sandbox.listPets, bare.listPets)),
      row('getPet', 'bare node:http', bare.getPet, 'reference'),
      row('getPet', jsonServerName, jsonServer.getPet, ofBare(jsonServer.getPet, bare.getPet)),
      row('getPet', 'sandbox', sandbox.getPet, ofBare(sandbox.getPet, bare.getPet)),
      row('createPet', 'bare node:http', bare.createPet, 'reference'),
      row('createPet', 'sandbox', sandbox.createPet, ofBare(sandbox.createPet, bare.createPet)),
      row(
        `listPets, ${ISOLATE_KEYS} keys`,
        'sandbox --isolate',
        isolate.isolate,
        `${percent(isolate.isolate.rps, sandbox.listPets.rps)} of shared listPets`,
      ),
    ],
  )
}

/** A warning when wrk nearly filled its core against bare: then wrk, not bare, may set the pace. */
function saturationWarning({ bare }) {
  const busy = Object.entries(bare).filter(([, run]) => run.wrkCpu > WRK_BUSY)
  if (busy.length === 0) return `wrk used at most ${fmt(100 * WRK_BUSY)}% of its core against bare: bare set the pace.`
  const list = busy.map(([scenario, run]) => `${scenario} ${fmt(100 * run.wrkCpu)}%`).join(', ')
  return (
    `**Warning:** wrk used more than ${fmt(100 * WRK_BUSY)}% of its core against bare (${list}): wrk, not bare, ` +
    "may have set the pace there, so bare's req/s is a floor and the sandbox's ratio to it generous."
  )
}

function secondOpinionTable({ bare, sandbox }) {
  const row = (server, run, versus) => [
    server,
    fmt(run.rps),
    `${fmt(run.rpsRange[0])}–${fmt(run.rpsRange[1])}`,
    versus,
    `${fmt(100 * run.loadCpu)}%`,
  ]
  return table(['listPets, server', 'req/s', 'req/s over rounds', 'req/s vs reference', 'autocannon CPU'], 'lrrrr', [
    row('bare node:http', bare, 'reference'),
    row('sandbox', sandbox, `${percent(sandbox.rps, bare.rps)} of bare`),
  ])
}

function scaleTable(scale) {
  const [small, large] = [scale[0], scale.at(-1)]
  return table(
    ['pets', 'getPet µs', 'listPets?status=sold&limit=20 µs', 'reset() ms', 'seeding ms', 'RSS MB'],
    'rrrrrr',
    scale
      .map((row) => [
        fmt(row.count),
        fmt(row.getPetMicros, 1),
        fmt(row.listSoldMicros, 1),
        fmt(row.resetMs, 3),
        fmt(row.seedMs),
        fmt(row.rssMB),
      ])
      .concat([
        [
          `ratio ${fmt(large.count)} / ${fmt(small.count)}`,
          times(large.getPetMicros, small.getPetMicros),
          times(large.listSoldMicros, small.listSoldMicros),
          '',
          '',
          '',
        ],
      ]),
  )
}

function installTable({ msw, zod, tarball, alone, withSandbox }) {
  return table(['project', 'node_modules MB', 'packages'], 'lrr', [
    [`${msw} + ${zod}`, fmt(megabytes(alone.kilobytes), 1), fmt(alone.packages)],
    [`${tarball.filename} + ${msw}`, fmt(megabytes(withSandbox.kilobytes), 1), fmt(withSandbox.packages)],
    [
      'difference',
      `+${fmt(megabytes(withSandbox.kilobytes - alone.kilobytes), 1)}`,
      `+${fmt(withSandbox.packages - alone.packages)}`,
    ],
  ])
}

const indicativeNote = (meta) =>
  meta.rounds < ROUNDS_FOR_VERDICT
    ? `**Indicative:** ${plural(meta.rounds, 'round')}, fewer than the ${ROUNDS_FOR_VERDICT} a verdict needs; no target is said to be met or missed.`
    : `${plural(meta.rounds, 'round')}: each target's verdict is the median's.`

/**
 * docs/performance.md's "This release" section, written by the same run: the version, the
 * sitting, and the targets' table. What follows the section's table in the page is written by hand.
 */
export async function renderHeadline(results, meta) {
  indicative = meta.rounds < ROUNDS_FOR_VERDICT
  const markdown = [
    '## This release',
    `${meta.version}, measured by \`npm run bench\` on ${meta.date} (${meta.cpu}, Node ${meta.node}, load average ` +
      `${fmt(meta.load[0], 2)} at the start and ${fmt(meta.load[1], 2)} at the end). ${indicativeNote(meta)} ` +
      'Written by the run itself, with [`bench/results.md`](../bench/results.md), which has every section.',
    targetsTable(results),
  ].join('\n\n')
  const config = await prettier.resolveConfig(fileURLToPath(new URL('../docs/performance.md', import.meta.url)))
  return prettier.format(markdown, { ...config, parser: 'markdown' })
}

/** The whole of results.md, formatted by the repo's prettier config so `prettier --check` passes. */
export async function renderReport(results, meta) {
  const { http, startup, inProcess, coldStart, scale, install, dashboard } = results
  indicative = meta.rounds < ROUNDS_FOR_VERDICT
  const jsonServerName = `json-server ${meta.jsonServer}`
  const markdown = [
    '# Benchmark results',
    `petstore-sandbox ${meta.version}. ${indicativeNote(meta)}`,
    `${meta.date}, Node ${meta.node}, ${meta.cpu}, load average ${fmt(meta.load[0], 2)} at the start and ` +
      `${fmt(meta.load[1], 2)} at the end (the machine may be shared). Medians of interleaved rounds. ` +
      `Servers and child scripts pinned to core 0, the load generators (wrk, autocannon, chromium) to core 1. Whole run: ` +
      `${fmt(meta.wholeRunSeconds)} s. Reproduce: \`npm run bench\`.`,
    '## Targets',
    targetsTable(results),
    '## 1. HTTP, side by side',
    `${meta.wrk}: \`wrk -t1 -c${CONNECTIONS} -d${meta.seconds}s --latency\` under \`taskset -c 1\` and ` +
      `\`/usr/bin/time\`, each counted run after an uncounted ${WARM_UP_SECONDS} s one, ` +
      `${plural(meta.rounds, 'round')}, each starting every server fresh. Medians over rounds; "req/s over ` +
      'rounds" is the slowest and the fastest round; p50 and p99 are wrk\'s. "wrk CPU" is wrk\'s (user + ' +
      "system) / elapsed: near 100%, wrk rather than the server set the pace, and that server's req/s is a " +
      'floor. Every run answered only 2xx, with no socket errors.',
    httpTable(http, jsonServerName),
    saturationWarning(http),
    'The sandbox runs with its defaults (`--port 0 --quiet`, request journal on). The bare POST parses the ' +
      `body and serializes a new pet. ${jsonServerName} (installed by the benchmark into a scratch folder, ` +
      'not a dependency of this project) serves fixtures/pets.json as `pets`: GET /pets ' +
      'answers every pet, pretty-printed, where the others answer a page of 20; its ids are strings, so ' +
      `/pets/7 is pet 7. Under --isolate each key (\`worker-0\`..\`worker-${ISOLATE_KEYS - 1}\`, in ` +
      "rotation) has its own copy of the data, created in the warm-up; it is compared with the shared sandbox's " +
      'listPets of the same rounds. createPet posts `{"name":"Rex","categoryId":1}` through a Lua script ' +
      '(bench/wrk-post.lua), the rotating keys come from bench/wrk-keys.lua.',
    '### Second opinion: autocannon',
    `Not used by any target. One autocannon run per round of bare and sandbox listPets, in the benchmark's ` +
      `own process on core 1, ${CONNECTIONS} connections, ${SECOND_OPINION_SECONDS} s after a 1 s warm-up, on ` +
      'the same server after its wrk runs. autocannon runs in JavaScript and nearly fills its core against ' +
      'bare ("autocannon CPU"), so its ratio to bare comes out higher than wrk\'s.',
    secondOpinionTable(http.secondOpinion),
    '## 2. Start-up: spawn to the first 200 on GET /v1/pets',
    `Median of ${startup.rounds} interleaved rounds, after one uncounted round.`,
    table(['command', 'seconds', 'ratio to bare'], 'lrr', [
      ['node bench/baseline-server.mjs (bare node:http)', fmt(startup.bare / 1000, 2), '1.00x'],
      [
        'node bin/petstore-sandbox.js --port 0 --quiet',
        fmt(startup.sandbox / 1000, 2),
        times(startup.sandbox, startup.bare),
      ],
    ]),
    '## 3. In-process: sequential fetches through setupServer',
    `GET https://petstore.test/v1/pets, median of ${inProcess.rounds} interleaved rounds after an uncounted ` +
      'one. The sandbox is `createSandbox()` with its defaults, request journal on. Each runs in a setupServer ' +
      "of its own, and in one shared with another API's handlers, as a test suite with several APIs uses " +
      "them: `http.get('https://other.test/api/items', ...)` before, `http.get('https://other.test/api/items/:id', " +
      "...)` after (each shared server first checks that both answer); the shared rows' floor is the trivial handler in the same " +
      'shared server. All four are interleaved in each round.',
    table(['setupServer', 'handlers', 'µs per request', 'ratio to the floor'], 'llrr', [
      ['its own', "a trivial msw handler returning the first 20 pets (msw's floor)", fmt(inProcess.floor, 1), '1.00x'],
      ['its own', "the sandbox's handlers", fmt(inProcess.sandbox, 1), times(inProcess.sandbox, inProcess.floor)],
      [
        'shared with another API',
        "the other API's handler, the trivial handler, the other API's second",
        fmt(inProcess.shared.floor, 1),
        '1.00x',
      ],
      [
        'shared with another API',
        "the other API's handler, the sandbox's handlers, the other API's second",
        fmt(inProcess.shared.sandbox, 1),
        times(inProcess.shared.sandbox, inProcess.shared.floor),
      ],
    ]),
    "## 4. A test file's cold start",
    'A fresh `node` process pinned to core 0 (bench/cold-start-child.mjs) imports `msw/node` and either the ' +
      'sandbox (`dist/src/index.js`, `createSandbox()` with its defaults) or `msw` for a trivial handler ' +
      '(`http.get(url, () => HttpResponse.json(first20))`), calls `setupServer(...handlers).listen()` and ' +
      'fetches GET https://petstore.test/v1/pets once. Milliseconds from the process start ' +
      `(\`performance.now()\`) to the first answer's body read; median of ${coldStart.rounds} interleaved ` +
      'rounds after an uncounted one.',
    table(['test file', 'ms', 'ratio to msw'], 'lrr', [
      ['msw with a trivial handler returning the first 20 pets', fmt(coldStart.msw), '1.00x'],
      ["the sandbox's handlers", fmt(coldStart.sandbox), times(coldStart.sandbox, coldStart.msw)],
    ]),
    '## 5. Scale: through the handlers in-process (getResponse), p50',
    '`createSandbox({ generate: N, randomSeed: 1, journalLimit: 0 })`, one process per size. Seeding runs ' +
      'from createSandbox() to the first answer; reset() is the median of 200, each after one create; RSS after a GC.',
    scaleTable(scale),
    '## 6. Install size',
    `\`npm pack\` (${fmt(install.tarball.bytes / 1e6, 2)} MB packed, ${fmt(install.tarball.unpackedBytes / 1e6, 2)} MB ` +
      'unpacked), then each project installed empty with `npm install --prefer-offline`. node_modules MB from ' +
      '`du -sk node_modules`; packages from `npm ls --all --parseable`, unique paths, the project itself left out.',
    installTable(install),
    `## 7. Dashboard: navigation to the first rows at ${fmt(dashboard.pets)} pets`,
    `\`node bin/petstore-sandbox.js --port 0 --quiet --generate ${dashboard.pets} ` +
      "--random-seed 1`, pinned to core 0; Debian's chromium (headless, playwright-core) on the load " +
      "generator's core. From `page.goto('/__sandbox/')` to the first row of the pet table visible, each run " +
      `in a fresh browser context (nothing cached), median of ${plural(dashboard.runs.length, 'run')} after ` +
      'an uncounted one that also seeds the store.',
    table(['runs, ms', 'median ms'], 'lr', [[dashboard.runs.map((ms) => fmt(ms)).join(', '), fmt(dashboard.medianMs)]]),
  ].join('\n\n')
  const resultsFile = fileURLToPath(new URL('./results.md', import.meta.url))
  const config = await prettier.resolveConfig(resultsFile)
  return prettier.format(markdown, { ...config, parser: 'markdown' })
}
