// npm run bench:compare [REF ...] [--head REF] [--only MEASURES] [--no-anchors] [--no-bare]
//   [--rounds N] [--seconds S] [--in-process-rounds N] [--rss-runs N] [--npm-test-seconds S]
//   [--json FILE]
// This build against the previous release (the newest commit whose package.json version differs
// from HEAD's) and against each measure's anchor (bench/anchors.json: the commit that did it best
// in a same-sitting run), in one sitting, beside bare node:http. Exits 1 when head falls under a
// threshold against the previous release or against an anchor, on any gated measure; 2 on a usage
// error. REFs given replace the previous release: `npm run bench:compare -- v1 v2` puts several
// side by side.
//
// The measures (--only picks some; the rest are neither run nor gated):
// - listPets, getPet, createPet: req/s over HTTP with wrk, on servers that live through a round
//   and take the three in that order (bench/compare-http.mjs);
// - inProcess: µs per listPets through msw's setupServer, in a child per build;
// - tenantsRss, install, persistBundle: the peak RSS with 1,000 --isolate tenants, what `npm
//   install` adds, the gzipped browser bundle of createSandbox({ persist: true })
//   (bench/compare-costs.mjs);
// - npmTest: `npm test`'s wall time: head's given by --npm-test-seconds (CI passes its own npm
//   test's), each other tree's read from bench/anchors.json's record of it (bench/test-times.mjs).
//
// Why a same-sitting comparison: bare node:http moves ±30% between rounds on a 2-core machine, so
// a ratio to bare from another day proves nothing. Two builds measured round by round move 3-8%
// when they are the same code. Why anchors too: a gate against the previous release alone lets a
// cost that landed before it, or one that creeps in under the threshold a release at a time, stay
// (createPet lost a third between 0.9.0 and 0.10.0 and no gate saw it).
//
// Each REF, anchor and --head REF is built once in node_modules/.cache/petstore-bench-compare/SHA
// (bench/compare-refs.mjs); the head is this checkout as it is.
import { writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { readAnchors } from './anchors.mjs'
import { costsOf } from './compare-costs.mjs'
import { httpRounds, inProcessRounds, OPERATIONS, TURNS, CONNECTIONS } from './compare-http.mjs'
import { buildCommits, git, previousRelease, UsageError, versionAt, workingTree } from './compare-refs.mjs'
import { beaten, MEASURES, regressions, render, verdicts } from './compare-report.mjs'
import { recordedTestSeconds } from './test-times.mjs'
import { requireWrk } from './wrk.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const DEFAULTS = { rounds: 5, seconds: 1, inProcessRounds: 6, rssRuns: 1 }
const HTTP = Object.keys(OPERATIONS)
const COSTS = ['tenantsRss', 'install', 'persistBundle']

const USAGE =
  'usage: npm run bench:compare -- [REF ...] [--head REF] [--only MEASURES] [--no-anchors] [--no-bare] [--rounds N] [--seconds S] [--in-process-rounds N] [--rss-runs N] [--npm-test-seconds S] [--json FILE]'

const wholeNumber = (name, text, min = 1) => {
  const value = Number(text)
  if (!Number.isInteger(value) || value < min) {
    throw new UsageError(`--${name} must be a whole number of at least ${min}, got ${text}\n${USAGE}`)
  }
  return value
}

/** The command line, or a UsageError saying what is wrong with it. */
function options() {
  let parsed
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        head: { type: 'string' },
        only: { type: 'string' },
        'no-anchors': { type: 'boolean', default: false },
        'no-bare': { type: 'boolean', default: false },
        rounds: { type: 'string', default: String(DEFAULTS.rounds) },
        seconds: { type: 'string', default: String(DEFAULTS.seconds) },
        'in-process-rounds': { type: 'string', default: String(DEFAULTS.inProcessRounds) },
        'rss-runs': { type: 'string', default: String(DEFAULTS.rssRuns) },
        'npm-test-seconds': { type: 'string' },
        json: { type: 'string' },
      },
    })
  } catch (error) {
    throw new UsageError(`${error.message}\n${USAGE}`)
  }
  const { values, positionals } = parsed
  const measures = values.only === undefined ? Object.keys(MEASURES) : values.only.split(',')
  // createPet's turns give both its req/s and what they promote: one is never run without the other.
  for (const [one, other] of [
    ['createPet', 'createPromoted'],
    ['createPromoted', 'createPet'],
  ]) {
    if (measures.includes(one) && !measures.includes(other)) measures.push(other)
  }
  const unknown = measures.filter((name) => MEASURES[name] === undefined)
  if (unknown.length > 0) {
    throw new UsageError(`--only takes ${Object.keys(MEASURES).join(', ')}; got ${unknown.join(', ')}\n${USAGE}`)
  }
  const npmTestSeconds = values['npm-test-seconds'] === undefined ? undefined : Number(values['npm-test-seconds'])
  if (npmTestSeconds !== undefined && !(npmTestSeconds > 0)) {
    throw new UsageError(`--npm-test-seconds must be a number of seconds, got ${values['npm-test-seconds']}\n${USAGE}`)
  }
  if (new Set(positionals).size !== positionals.length) {
    throw new UsageError(`each REF once, got ${positionals.join(' ')}\n${USAGE}`)
  }
  // Resolved now, before anything is built: a ref git does not know is a usage error.
  for (const ref of [...positionals, ...(values.head === undefined ? [] : [values.head])]) {
    git(root, 'rev-parse', '--verify', `${ref}^{commit}`)
  }
  return {
    rounds: wholeNumber('rounds', values.rounds),
    seconds: wholeNumber('seconds', values.seconds),
    inProcessRounds: wholeNumber('in-process-rounds', values['in-process-rounds']),
    rssRuns: wholeNumber('rss-runs', values['rss-runs']),
    refs: positionals.length > 0 ? positionals : [previousRelease(root)],
    named: positionals.length > 0,
    head: values.head,
    anchors: !values['no-anchors'],
    bare: !values['no-bare'],
    measures,
    npmTestSeconds,
    json: values.json,
  }
}

/**
 * The contenders by the name their column gets: head, each REF (or "previous"), each anchor not
 * already among them (by its release), and bare. `gates` names, per measure, whom head is held
 * against: the REFs, and the measure's anchor. Every commit is built first, two at a time.
 */
async function contenders({ refs, named, head, anchors, bare, measures }) {
  const names = refs.map((ref) => (named ? ref : 'previous'))
  const wanted = anchors ? Object.entries(readAnchors(root)).filter(([measure]) => measures.includes(measure)) : []
  const commits = [...(head === undefined ? [] : [head]), ...refs, ...wanted.map(([, anchor]) => anchor.commit)]
  const built = Object.fromEntries((await buildCommits(root, commits)).map((tree, index) => [commits[index], tree]))
  const trees = { head: head === undefined ? workingTree(root) : built[head] }
  refs.forEach((ref, index) => {
    trees[names[index]] = built[ref]
  })
  if (!named)
    trees.previous = { ...trees.previous, label: `the previous release, ${versionAt(root, trees.previous.sha)}` }
  const gates = Object.fromEntries(measures.map((measure) => [measure, [...names]]))
  const anchorsOf = {}
  for (const [measure, anchor] of wanted) {
    const { sha } = built[anchor.commit]
    let name = Object.keys(trees).find((one) => one !== 'head' && trees[one].sha === sha)
    if (name === undefined) {
      name = anchor.release
      trees[name] = { ...built[anchor.commit], label: `${anchor.release}, an anchor` }
    }
    if (!gates[measure].includes(name)) gates[measure].push(name)
    anchorsOf[measure] = [name]
  }
  if (bare) trees.bare = { label: 'bare node:http', bare: true }
  return { trees, gates, anchorsOf, refNames: names }
}

/** Which trees a measure runs on: head and whom it is gated against, or every one for speed. */
const treesFor = (measure, trees, gates) =>
  ['head', ...gates[measure].filter((name) => name !== 'head')].map((name) => ({ ...trees[name], name }))

async function main() {
  const opts = options()
  const { measures } = opts
  const { trees, gates, anchorsOf, refNames } = await contenders(opts)
  const loadBefore = loadavg()[0]
  const list = Object.entries(trees).map(([name, tree]) => ({ ...tree, name }))
  const speedOf = list.filter((tree) => !tree.bare)
  const measured = HTTP.filter((operation) => measures.includes(operation))
  let http
  if (measured.length > 0) {
    requireWrk()
    http = await httpRounds(list, { rounds: opts.rounds, seconds: opts.seconds, measured })
  }
  const inProcess = measures.includes('inProcess')
    ? await inProcessRounds(speedOf, { rounds: opts.inProcessRounds })
    : undefined
  const costs = {}
  for (const measure of COSTS.filter((name) => measures.includes(name))) {
    for (const tree of treesFor(measure, trees, gates)) {
      costs[tree.name] ??= await costsOf(tree, { rssRuns: measures.includes('tenantsRss') ? opts.rssRuns : 0 })
    }
  }
  if (measures.includes('npmTest')) {
    for (const tree of treesFor('npmTest', trees, gates)) {
      const seconds = tree.name === 'head' ? opts.npmTestSeconds : recordedTestSeconds(root, tree.sha)
      ;(costs[tree.name] ??= {}).npmTest = seconds
    }
  }
  const rows = verdicts({ http, inProcess, costs, gates })
  const names = Object.keys(trees).filter((name) => rows.some((row) => row.values[name] !== undefined))
  const load = [loadBefore, loadavg()[0]]
  const describe = (name) => {
    const tree = trees[name]
    if (name === 'bare') return 'bare: node:http (bench/baseline-server.mjs); in-process, a trivial msw handler'
    return `${name}: ${tree.label} (${tree.sha.slice(0, 7)}, ${versionAt(root, tree.sha)}${tree.folder === root ? ', this checkout' : ''})`
  }
  const layout =
    http === undefined
      ? ''
      : `, ${opts.rounds} rounds: each server takes listPets, getPet, createPet in ${TURNS} runs of ${opts.seconds} s each (wrk -t1 -c${CONNECTIONS}, the first uncounted)`
  const report = [
    `bench:compare, ${new Date().toISOString()}, Node ${process.version}${layout}, load average ${load.map((l) => l.toFixed(2)).join(' -> ')}`,
    ...names.map(describe),
    '',
    render(rows, names),
  ].join('\n')
  console.log(`\n${report}\n`)
  if (opts.json !== undefined) {
    writeFileSync(opts.json, `${JSON.stringify({ trees, gates, rows, http, inProcess, costs, load }, null, 2)}\n`)
  }
  const labelOf = (name) => trees[name]?.label ?? name
  for (const line of beaten(rows, anchorsOf)) {
    console.log(
      `bench:compare: head beats ${line}: a release that does so in a same-sitting run may move it (bench/anchors.json), by a commit that says so`,
    )
  }
  const failed = regressions(rows, labelOf)
  const against = [...new Set([...refNames, ...Object.values(anchorsOf).flat()])].map(labelOf).join(' and ')
  if (failed.length > 0) {
    console.log(`bench:compare: a regression against ${against}: ${failed.join('; ')}`)
    process.exitCode = 1
  } else {
    console.log(`bench:compare: nothing fell past its threshold against ${against}`)
  }
}

main().catch((error) => {
  console.error(error instanceof UsageError ? `bench:compare: ${error.message}` : error)
  process.exitCode = error instanceof UsageError ? 2 : 1
})
