/**
 * The rule that lets CI skip the speed gate's rehearsals (bench/gate-files.mjs): they run unless
 * the files the gate reads are as they were when the rehearsals last passed (bench/rehearsed.json).
 * Proved two ways: the rule's list holds every module bench/compare.mjs loads, as Node itself
 * reports them, and the child scripts it starts; and in a scratch folder, a change to one of them
 * is seen while a change elsewhere (the sources, a release's version, another CI stage) is not.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { gateFiles, recordRehearsed, unrehearsedGateFiles } from '../bench/gate-files.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const folders: string[] = []
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

/** The bench/ modules Node loads for bench/compare.mjs, from a resolve hook, before it exits on a usage error. */
function modulesLoaded(): string[] {
  const folder = mkdtempSync(join(tmpdir(), 'gate-loaded-'))
  folders.push(folder)
  const log = join(folder, 'loaded.txt')
  writeFileSync(
    join(folder, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  if (resolved.url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n')
  return resolved
}`,
  )
  writeFileSync(
    join(folder, 'register.mjs'),
    `import { register } from 'node:module'\nregister(${JSON.stringify(`file://${join(folder, 'hooks.mjs')}`)})\n`,
  )
  const run = spawnSync(
    process.execPath,
    ['--import', join(folder, 'register.mjs'), 'bench/compare.mjs', '--rounds', '0'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  )
  expect(run.status, run.stderr).toBe(2)
  return [
    ...new Set(
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((url) => url !== '')
        .map((url) => relative(root, fileURLToPath(url)))
        .filter((file) => file.startsWith('bench/')),
    ),
  ]
}

describe("the speed gate's files", () => {
  it('hold every bench module bench/compare.mjs loads, the child scripts it starts, its records and its command lines', () => {
    const files = gateFiles()
    const loaded = modulesLoaded()
    expect(loaded).toContain('bench/compare-http.mjs')
    for (const file of loaded) expect(files).toContain(file)
    for (const file of [
      'bench/baseline-server.mjs',
      'bench/compare-in-process.mjs',
      'bench/wrk-post.lua',
      'bench/anchors.json',
      '.ci/run',
      'package.json',
    ]) {
      expect(files).toContain(file)
    }
    expect(files.filter((file) => file.startsWith('src/') || file.startsWith('dist/'))).toEqual([])
  })

  it('are seen changed when one of them is, and not for a change to the sources, a version or another stage', () => {
    const folder = mkdtempSync(join(tmpdir(), 'gate-changed-'))
    folders.push(folder)
    for (const file of [...gateFiles(), 'src/core/dispatch.ts']) {
      mkdirSync(join(folder, dirname(file)), { recursive: true })
      copyFileSync(join(root, file), join(folder, file))
    }
    const edit = (file: string, change: (text: string) => string) => {
      writeFileSync(join(folder, file), change(readFileSync(join(folder, file), 'utf8')))
    }
    // No record: every file is unrehearsed.
    expect(unrehearsedGateFiles(folder)).toEqual(gateFiles(folder))
    recordRehearsed(folder)
    expect(unrehearsedGateFiles(folder)).toEqual([])

    edit('src/core/dispatch.ts', (text) => `${text}\n// a change to the sources\n`)
    edit('package.json', (text) => text.replace(/"version": "[^"]+"/, '"version": "99.0.0"'))
    edit('.ci/run', (text) => `${text}\n# another stage\necho other\n`)
    expect(unrehearsedGateFiles(folder)).toEqual([])

    edit('bench/wrk.mjs', (text) => `${text}\n// a change to the load generator\n`)
    expect(unrehearsedGateFiles(folder)).toEqual(['bench/wrk.mjs'])

    edit('package.json', (text) =>
      text.replace(/"bench:compare": "[^"]+"/, '"bench:compare": "node bench/compare.mjs"'),
    )
    edit('.ci/run', (text) => text.replace(/bench:compare --silent --/, 'bench:compare --silent -- --rounds 1'))
    edit('bench/anchors.json', (text) => text.replace('"anchors"', '"anchors" '))
    expect(unrehearsedGateFiles(folder)).toEqual(['.ci/run', 'bench/anchors.json', 'bench/wrk.mjs', 'package.json'])

    // Rehearsed again, as they are now: nothing to prove until the next change.
    recordRehearsed(folder)
    expect(unrehearsedGateFiles(folder)).toEqual([])
  })
})
