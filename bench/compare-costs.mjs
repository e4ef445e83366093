// bench/compare.mjs's measures of cost, for one built tree each: what installing the package
// puts in node_modules, the browser bundle of a persisted sandbox, and the peak RSS of the CLI
// with 1,000 --isolate tenants (bench/tenants-memory.mjs). Sizes do not move between runs of the
// same tree; the RSS moves a little, so it is the median of its runs.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { median } from './stats.mjs'
import { tenantsMemory } from './tenants-memory.mjs'

/** Runs a command for its output; its chatter on stderr is shown only when it fails. */
function run(command, args, cwd, env) {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    })
  } catch (error) {
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${error.stderr}`, { cause: error })
  }
}

/**
 * MB (10^6 bytes) that `npm install TARBALL` puts in an empty project's node_modules (`du -sk`):
 * the package and what it depends on, without its optional peers, as a user's install meets it.
 * The tarball is packed from the tree's build as it is (no prepack), into a scratch folder.
 */
export function installSize(tree) {
  const work = mkdtempSync(join(tmpdir(), 'petstore-compare-install-'))
  try {
    const [packed] = JSON.parse(
      run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], tree.folder),
    )
    const project = join(work, 'project')
    mkdirSync(project)
    writeFileSync(join(project, 'package.json'), '{"name":"install-size","version":"1.0.0","private":true}\n')
    run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', join(work, packed.filename)],
      project,
    )
    const kilobytes = Number(run('du', ['-sk', 'node_modules'], project).split('\t')[0])
    return (kilobytes * 1024) / 1e6
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/**
 * KB (10^3 bytes), gzipped, of what a browser loads for a persisted sandbox: an app's `import {
 * createSandbox } from 'petstore-sandbox'` and `createSandbox({ persist: true })`, built by esbuild
 * for the browser, minified, split as a bundler splits it; counted: the entry, what it imports,
 * and the chunks its dynamic imports load for `persist` (the keeper's), not those it loads only
 * for other options (faker, for `generate`). msw stays out: it is the app's own, sandbox or not.
 * Null for a tree whose sandbox has no `persist` (before 0.14.0): nothing to hold head against.
 */
export async function persistBundle(tree) {
  const index = join(tree.folder, 'dist', 'src', 'index.js')
  if (!readFileSync(index, 'utf8').includes('persist')) return null
  const outdir = mkdtempSync(join(tmpdir(), 'petstore-compare-bundle-'))
  try {
    const result = await build({
      stdin: {
        contents:
          "import { createSandbox } from 'petstore-sandbox'\nexport const sandbox = createSandbox({ persist: true })\n",
        resolveDir: tree.folder,
        loader: 'js',
      },
      alias: { 'petstore-sandbox': index },
      bundle: true,
      splitting: true,
      outdir,
      format: 'esm',
      platform: 'browser',
      minify: true,
      write: false,
      metafile: true,
      external: ['msw', 'msw/*'],
      logLevel: 'silent',
    })
    const outputs = result.metafile.outputs
    // The metafile names outputs from the working directory.
    const files = new Map(result.outputFiles.map((file) => [relative(process.cwd(), file.path), file.contents]))
    const entry = Object.keys(outputs).find((name) => outputs[name].entryPoint !== undefined)
    const loaded = new Set()
    const visit = (name) => {
      if (loaded.has(name) || outputs[name] === undefined) return
      loaded.add(name)
      for (const { path, kind } of outputs[name].imports) {
        const keeper = Object.keys(outputs[path]?.inputs ?? {}).some((input) => /persist/.test(input))
        if (kind === 'import-statement' || (kind === 'dynamic-import' && keeper)) visit(path)
      }
    }
    visit(entry)
    const bytes = [...loaded].reduce((sum, name) => sum + gzipSync(files.get(name) ?? new Uint8Array()).length, 0)
    return bytes / 1e3
  } finally {
    rmSync(outdir, { recursive: true, force: true })
  }
}

/** Every cost of one tree; `runs` RSS measures, their median. */
export async function costsOf(tree, { rssRuns, log = console.log }) {
  const rss = []
  for (let index = 0; index < rssRuns; index++) {
    const { rssMB, seconds } = await tenantsMemory(tree.folder)
    log(`${tree.name}: RSS with 1,000 tenants ${rssMB.toFixed(1)} MB (${seconds.toFixed(0)} s)`)
    rss.push(rssMB)
  }
  const install = installSize(tree)
  log(`${tree.name}: installed ${install.toFixed(1)} MB`)
  const bundle = await persistBundle(tree)
  log(`${tree.name}: persisted sandbox's browser bundle ${bundle === null ? 'n/a' : `${bundle.toFixed(1)} KB gzipped`}`)
  return { tenantsRss: rss.length === 0 ? undefined : median(rss), install, persistBundle: bundle }
}
