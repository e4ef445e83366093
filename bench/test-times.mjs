// npm test's wall time per release, the one cost bench:compare does not measure in its own
// sitting: running three releases' suites would add three minutes to every CI run. Each release's
// time is measured once, in fresh clones at rest on this project's 2-core machine, releases
// interleaved in one sitting, and kept in bench/test-times.json; head's time is CI's own npm test,
// alone on the machine (bench:compare --npm-test-seconds).
//
//   node bench/test-times.mjs REF [REF ...] [--runs N]   measures and records each REF's time
//
// A clone per REF in a scratch folder: `git clone`, `npm ci`, then `npm test` timed, alternating
// the REFs run by run; the median of the runs is recorded under the commit's sha, with the date,
// the runs and the load average.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import prettier from 'prettier'
import { git, versionAt } from './compare-refs.mjs'
import { median } from './stats.mjs'

const FILE = (root) => join(root, 'bench', 'test-times.json')

/** The recorded npm test seconds of a commit, or undefined when none was recorded. */
export function recordedTestSeconds(root, sha) {
  if (!existsSync(FILE(root))) return undefined
  return JSON.parse(readFileSync(FILE(root), 'utf8')).times[sha]?.seconds
}

function run(command, args, cwd, env = {}) {
  const done = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 28 })
  if (done.status !== 0)
    throw new Error(`${command} ${args.join(' ')} in ${cwd} exited ${done.status}:\n${done.stdout}\n${done.stderr}`)
  return done.stdout
}

async function record() {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { runs: { type: 'string', default: '3' } },
  })
  const runs = Number(values.runs)
  const work = mkdtempSync(join(tmpdir(), 'petstore-test-times-'))
  try {
    const clones = positionals.map((ref) => {
      const sha = git(root, 'rev-parse', '--verify', `${ref}^{commit}`)
      const folder = join(work, sha.slice(0, 12))
      run('git', ['clone', '-q', root, folder])
      run('git', ['checkout', '-q', sha], folder)
      run('npm', ['ci', '--no-audit', '--no-fund'], folder)
      // The first run builds dist/ (pretest) and warms the disk: not counted.
      run('npm', ['test'], folder)
      return { ref, sha, folder, seconds: [] }
    })
    const load = [loadavg()[0]]
    for (let index = 0; index < runs; index++) {
      for (const clone of index % 2 === 0 ? clones : [...clones].reverse()) {
        const started = performance.now()
        run('npm', ['test'], clone.folder)
        clone.seconds.push((performance.now() - started) / 1000)
        console.log(`${clone.ref}: npm test ${clone.seconds.at(-1).toFixed(1)} s`)
      }
    }
    load.push(loadavg()[0])
    const file = existsSync(FILE(root)) ? JSON.parse(readFileSync(FILE(root), 'utf8')) : { times: {} }
    for (const clone of clones) {
      file.times[clone.sha] = {
        release: versionAt(root, clone.sha),
        seconds: Number(median(clone.seconds).toFixed(1)),
        runs: clone.seconds.map((seconds) => Number(seconds.toFixed(1))),
        measured: `${new Date().toISOString().slice(0, 10)}, a fresh clone${
          clones.length === 1
            ? ''
            : `, interleaved with ${clones
                .filter((other) => other !== clone)
                .map((other) => versionAt(root, other.sha))
                .join(', ')}`
        }, load average ${load.map((l) => l.toFixed(2)).join(' -> ')}`,
      }
    }
    // In the repository's style, so that lint passes on the record as written.
    writeFileSync(FILE(root), await prettier.format(JSON.stringify(file), { parser: 'json' }))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await record()
