// The JSON reader (src/core/http/json*.ts) against maintained libraries, for issue 44 item 6:
// speed on a createPet body, a 1 MiB and an 8 MiB state import, deep nesting and big integers,
// the longest time each holds the event loop, minified sizes, and what each does with the
// inputs the reader's guarantees are about.
//
//   nice node --harmony-json-parse-with-source bench/json-reader.mjs [rounds] > out.json
//
// The reader is bundled from src with esbuild (JSON_READER_ENTRY=path/to/json.ts to bench
// another copy; JSON_READER_BEFORE=path/to/json.ts to bench one more beside it, say the one
// before a change). The flag gives Node 20 JSON.parse's
// `context.source` (on by default from Node 21); without it that candidate is skipped.
// lossless-json is a devDependency. secure-json-parse, destr and @discoveryjs/json-ext are not:
// install them anywhere (`npm i --prefix DIR secure-json-parse destr @discoveryjs/json-ext`) and
// set JSON_CANDIDATES=DIR; each one missing is skipped. Rounds are interleaved (the order of the
// candidates turns every round, as each pays for the garbage of the one before it) and every
// figure is a median over rounds, with min..max beside it.
import { build } from 'esbuild'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { parse as parseLossless } from 'lossless-json'
import { stateBody } from './state-body.mjs'

const ROUNDS = Number(process.argv[2] ?? 15)
const root = resolve(import.meta.dirname, '..')
const scratch = mkdtempSync(join(os.tmpdir(), 'json-reader-'))

/** Bundles `contents` (an ES module importing from the repo) to a file and imports it. */
async function bundle(name, contents, minify = false) {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify,
    write: false,
    metafile: true,
    nodePaths: process.env.JSON_CANDIDATES ? [join(process.env.JSON_CANDIDATES, 'node_modules')] : [],
  })
  const file = join(scratch, `${name}.mjs`)
  writeFileSync(file, result.outputFiles[0].contents)
  return { file, bytes: result.outputFiles[0].contents, metafile: result.metafile }
}

const entry = resolve(process.env.JSON_READER_ENTRY ?? join(root, 'src/core/http/json.ts'))
const reader = await import(
  pathToFileURL(
    (await bundle('reader', `export { readJson, readJsonInSlices, InexactNumber } from ${JSON.stringify(entry)}`)).file,
  ).href
)

// Another copy of the reader, benched beside this one in the same rounds (say the one before a change).
const before = process.env.JSON_READER_BEFORE
  ? await import(
      pathToFileURL(
        (
          await bundle(
            'before',
            `export { readJson, readJsonInSlices } from ${JSON.stringify(resolve(process.env.JSON_READER_BEFORE))}`,
          )
        ).file,
      ).href
    )
  : undefined

/** A package from JSON_CANDIDATES, or undefined when it is not installed there. */
async function optional(name) {
  if (!process.env.JSON_CANDIDATES) return undefined
  try {
    const require = createRequire(join(resolve(process.env.JSON_CANDIDATES), 'x.js'))
    return await import(pathToFileURL(require.resolve(name)).href)
  } catch {
    return undefined
  }
}
const secureJson = await optional('secure-json-parse')
const destr = await optional('destr')
const jsonExt = await optional('@discoveryjs/json-ext')

// ---------------------------------------------------------------------------------------------
// The candidates. Each takes (text) and gives { ok: true, value } or { ok: false, problems }.
// Where a library has a hook for a guarantee, it is used, so each does as much of the job as it
// can: the reader's exactness rule for numbers, a note of each duplicated key.

const stripBom = (text) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)

/** The reader's rule: a literal that a number would change stays text (InexactNumber). */
function exactNumber(literal) {
  const value = Number(literal)
  if (/^-?\d{1,15}$/.test(literal)) return value
  return Number.isFinite(value) && digits(literal) === digits(String(value)) ? value : new reader.InexactNumber(literal)
}
const digits = (number) =>
  number
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^[-0]+/, '')
    .replace(/0+$/, '')

const hasSourceAccess = (() => {
  let seen = false
  JSON.parse('1', (key, value, context) => ((seen = context?.source === '1'), value))
  return seen
})()

const failed = (error) => ({ ok: false, problems: [`${error.name}: ${error.message}`] })
const attempt = (read) => {
  try {
    return read()
  } catch (error) {
    return failed(error)
  }
}

const SYNC = {
  'readJson (this project)': (text) => reader.readJson(text, 'body'),
  'JSON.parse': (text) => attempt(() => ({ ok: true, value: JSON.parse(stripBom(text)) })),
  'lossless-json 4.3.3 + hooks': (text) =>
    attempt(() => {
      const duplicates = []
      const value = parseLossless(stripBom(text), null, {
        parseNumber: exactNumber,
        onDuplicateKey: ({ key, position }) => void duplicates.push(`duplicate ${key} at ${position}`),
      })
      return duplicates.length === 0 ? { ok: true, value } : { ok: false, problems: duplicates }
    }),
}
if (before) SYNC['readJson (JSON_READER_BEFORE)'] = (text) => before.readJson(text, 'body')
if (hasSourceAccess) {
  SYNC['JSON.parse + context.source reviver'] = (text) =>
    attempt(() => ({
      ok: true,
      value: JSON.parse(stripBom(text), (key, value, context) =>
        typeof value === 'number' ? exactNumber(context.source) : value,
      ),
    }))
}
if (secureJson) {
  const parse = secureJson.default?.parse ?? secureJson.parse
  SYNC['secure-json-parse 4.1.1'] = (text) => attempt(() => ({ ok: true, value: parse(stripBom(text)) }))
}
if (destr) {
  const strict = destr.safeDestr ?? destr.default?.safeDestr
  SYNC['destr 2.0.5 (safeDestr)'] = (text) => attempt(() => ({ ok: true, value: strict(stripBom(text)) }))
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 0))

/** A reader's readJsonInSlices as a candidate: the reading, and the time between its pauses. */
const sliced = (readJsonInSlices) => async (text) => {
  const blocks = []
  let since = performance.now()
  const reading = await readJsonInSlices(text, 'body', async () => {
    blocks.push(performance.now() - since)
    await pause()
    since = performance.now()
  })
  blocks.push(performance.now() - since)
  return { reading, blocks }
}

/** Async candidates, for large texts: each gives the reading and the longest stretch between pauses. */
const SLICED = { 'readJsonInSlices (this project)': sliced(reader.readJsonInSlices) }
if (before) SLICED['readJsonInSlices (JSON_READER_BEFORE)'] = sliced(before.readJsonInSlices)
if (jsonExt) {
  // parseChunked takes the text in chunks and parses each as it comes; the chunks come between
  // pauses, as a body's would. 256 KiB chunks: about the reader's slice.
  SLICED['@discoveryjs/json-ext 1.1.0 parseChunked'] = async (text) => {
    const blocks = []
    let since = performance.now()
    async function* chunks() {
      for (let start = 0; start < text.length; start += 256 * 1024) {
        yield text.slice(start, start + 256 * 1024)
        blocks.push(performance.now() - since)
        await pause()
        since = performance.now()
      }
    }
    const value = await jsonExt.parseChunked(chunks)
    blocks.push(performance.now() - since)
    return { reading: { ok: true, value }, blocks }
  }
}

// ---------------------------------------------------------------------------------------------
// The texts.

const createPet = JSON.stringify({ name: 'Rex', categoryId: 1, status: 'available', photoUrls: ['rex.jpg'] })
const mib1 = stateBody(1024 * 1024).body
const mib8 = stateBody(8 * 1024 * 1024).body
const nested = (depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
const bigIntegers = JSON.stringify({
  ids: Array.from({ length: 1000 }, (_, index) => `${2n ** 63n - BigInt(index)}`),
})
  .replaceAll('"', '')
  .replace('{ids:', '{"ids":')

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const summary = (values, digits = 1) => ({
  median: Number(median(values).toFixed(digits)),
  min: Number(Math.min(...values).toFixed(digits)),
  max: Number(Math.max(...values).toFixed(digits)),
})
const turn = (list, round) => list.map((_, index) => list[(index + round) % list.length])

/**
 * The ratio of each candidate to `base` in every round, as a median: on a shared machine whose
 * load moves between rounds, the ratio within a round is steadier than either figure.
 */
function ratios(samples, base) {
  return Object.fromEntries(
    Object.entries(samples).map(([name, values]) => [
      name,
      summary(
        values.map((value, round) => value / samples[base][round]),
        2,
      ),
    ]),
  )
}

/** Per-operation time in µs of each sync candidate on `text`, `ops` calls a sample, interleaved. */
function timeSmall(text, ops) {
  const names = Object.keys(SYNC)
  const samples = Object.fromEntries(names.map((name) => [name, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of turn(names, round)) {
      const read = SYNC[name]
      for (let index = 0; index < ops / 10; index++) read(text) // warm, and the last round's garbage
      const start = performance.now()
      for (let index = 0; index < ops; index++) read(text)
      samples[name].push(((performance.now() - start) * 1000) / ops)
    }
  }
  return {
    us: Object.fromEntries(names.map((name) => [name, summary(samples[name], 3)])),
    vsReadJson: ratios(samples, 'readJson (this project)'),
  }
}

/** Total ms and longest block (ms) of every candidate, sync and sliced, on a large text. */
async function timeLarge(text) {
  const names = [...Object.keys(SYNC), ...Object.keys(SLICED)]
  const totals = Object.fromEntries(names.map((name) => [name, []]))
  const longest = Object.fromEntries(names.map((name) => [name, []]))
  const slices = Object.fromEntries(names.map((name) => [name, 0]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of turn(names, round)) {
      await pause()
      const start = performance.now()
      if (SYNC[name]) {
        SYNC[name](text)
        const took = performance.now() - start
        totals[name].push(took)
        longest[name].push(took)
        slices[name] = 1
      } else {
        const { blocks } = await SLICED[name](text)
        totals[name].push(performance.now() - start)
        longest[name].push(Math.max(...blocks))
        slices[name] = blocks.length
      }
    }
  }
  const vsSync = ratios(totals, 'readJson (this project)')
  const longestVsSliced = ratios(longest, 'readJsonInSlices (this project)')
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        totalMs: summary(totals[name]),
        longestBlockMs: summary(longest[name]),
        slices: slices[name],
        totalVsReadJson: vsSync[name],
        longestVsSliced: longestVsSliced[name],
      },
    ]),
  )
}

// ---------------------------------------------------------------------------------------------
// What each does with the inputs the reader's guarantees are about.

const CASES = {
  'depth 100 (the limit)': nested(100),
  'depth 101': nested(101),
  'depth 10,000': nested(10_000),
  'depth 100,000 (arrays)': '['.repeat(100_000) + ']'.repeat(100_000),
  '2^53 + 1': '{"id":9007199254740993}',
  '2^63': '{"id":9223372036854775808}',
  '1.00000000000000001': '{"id":1.00000000000000001}',
  '1e400': '{"id":1e400}',
  'duplicate key, equal values': '{"name":"Rex","name":"Rex"}',
  'duplicate key, different values': '{"name":"Rex","name":"Max"}',
  '"__proto__" key': '{"__proto__":{"admin":true}}',
  '"constructor.prototype"': '{"constructor":{"prototype":{"admin":true}}}',
  'lone surrogate escape': '{"name":"\\ud800"}',
  'lone surrogate, raw': `{"name":"${String.fromCharCode(0xd800)}"}`,
  'byte-order mark': '\ufeff{"name":"Rex"}',
  'trailing comma (line 2)': '{"name":"Rex",\n "tags":[1,],}',
  'single quotes': "{'name':'Rex'}",
  'empty text': '',
  'not JSON at all': 'Rex',
}

/** One line per case: what the candidate gives, short. */
function describe(result) {
  if (!result.ok) return `refused: ${result.problems.join('; ').slice(0, 140)}`
  const value = result.value
  const id = value?.id
  if (id instanceof reader.InexactNumber) return `InexactNumber ${id.literal}`
  if (id !== undefined && typeof id === 'object') return `${id.constructor?.name} ${String(id)}`
  if (typeof id === 'number')
    return `number ${id}${Number.isSafeInteger(id) || !Number.isInteger(id) ? '' : ' (rounded)'}`
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
    return `own "__proto__", prototype ${Object.getPrototypeOf(value) === Object.prototype ? 'untouched' : 'CHANGED'}`
  }
  if (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) !== Object.prototype
  ) {
    return 'prototype CHANGED'
  }
  const depth = depthOf(value)
  if (depth > 10) return `accepted, ${depth} levels`
  const text = JSON.stringify(value)
  return `accepted: ${text === undefined ? String(value) : text.slice(0, 60)}`
}

/** Levels of nesting down the first member of each container, without recursion. */
function depthOf(value) {
  let depth = 0
  for (let node = value; node !== null && typeof node === 'object'; depth++) node = Object.values(node)[0]
  return depth
}

function correctness() {
  const table = {}
  for (const [label, text] of Object.entries(CASES)) {
    table[label] = Object.fromEntries(Object.entries(SYNC).map(([name, read]) => [name, describe(read(text))]))
  }
  return table
}

// ---------------------------------------------------------------------------------------------
// Sizes, minified as a browser bundle would carry them (the dashboard and the msw worker do).

async function sizes() {
  const size = async (name, contents) => {
    const { bytes, metafile } = await bundle(`size-${name}`, contents, true)
    // What a bundle that has the core already adds: limits.ts is there anyway.
    const inputs = Object.values(metafile.outputs)[0].inputs
    const limits = Object.entries(inputs).find(([input]) => input.endsWith('limits.ts'))?.[1].bytesInOutput ?? 0
    return { minified: bytes.length, gzip: gzipSync(bytes).length, ofWhichLimitsTs: limits }
  }
  const out = {
    'readJson + readJsonInSlices (this project)': await size(
      'reader',
      `export { readJson, readJsonInSlices } from ${JSON.stringify(entry)}`,
    ),
    'lossless-json parse': await size('lossless', `export { parse } from 'lossless-json'`),
  }
  if (secureJson) out['secure-json-parse'] = await size('secure', `export { parse } from 'secure-json-parse'`)
  if (destr) out.destr = await size('destr', `export { safeDestr } from 'destr'`)
  if (jsonExt)
    out['@discoveryjs/json-ext parseChunked'] = await size(
      'ext',
      `export { parseChunked } from '@discoveryjs/json-ext'`,
    )
  return out
}

// ---------------------------------------------------------------------------------------------

const loadBefore = os.loadavg()
const results = {
  machine: `${os.cpus()[0].model}, ${os.cpus().length} cores`,
  node: process.version,
  v8: process.versions.v8,
  date: new Date().toISOString(),
  rounds: ROUNDS,
  sourceAccess: hasSourceAccess,
  skipped: [!secureJson && 'secure-json-parse', !destr && 'destr', !jsonExt && '@discoveryjs/json-ext'].filter(Boolean),
  texts: {
    createPet: createPet.length,
    mib1: mib1.length,
    mib8: mib8.length,
    bigIntegers: bigIntegers.length,
  },
  correctness: correctness(),
  sizes: await sizes(),
  createPetUs: timeSmall(createPet, 20_000),
  depth100Us: timeSmall(nested(100), 2_000),
  depth10kUs: timeSmall(nested(10_000), 20),
  bigIntegersUs: timeSmall(bigIntegers, 200),
  mib1: await timeLarge(mib1),
  mib8: await timeLarge(mib8),
}
results.loadAverage = { before: loadBefore.map((n) => n.toFixed(2)), after: os.loadavg().map((n) => n.toFixed(2)) }
console.log(JSON.stringify(results, null, 2))
