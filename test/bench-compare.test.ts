/**
 * `npm run bench:compare`'s plumbing, not its figures (a benchmark measures; a test never times):
 * which commit is the previous release, and a command line it cannot run is refused with exit 2
 * before anything is built or measured.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { previousRelease, versionAt } from '../bench/compare-refs.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const script = join(root, 'bench', 'compare.mjs')
const folders: string[] = []
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`)
  return run.stdout.trim()
}

/** A repository whose commits carry these package.json versions, oldest first; their shas. */
function history(versions: string[]): { folder: string; commits: string[] } {
  const folder = mkdtempSync(join(tmpdir(), 'bench-compare-'))
  folders.push(folder)
  git(folder, 'init', '-q')
  const commits = versions.map((version, index) => {
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'x', version }))
    writeFileSync(join(folder, 'other.txt'), String(index))
    git(folder, 'add', '-A')
    git(folder, 'commit', '-qm', `commit ${index}`)
    return git(folder, 'rev-parse', 'HEAD')
  })
  return { folder, commits }
}

describe('bench:compare', () => {
  it('takes as the previous release the newest commit whose version differs from HEAD’s', () => {
    const { folder, commits } = history(['1.0.0', '1.1.0', '1.1.0', '1.2.0', '1.2.0'])
    expect(previousRelease(folder)).toBe(commits[2])
    expect(versionAt(folder, commits[2] ?? '')).toBe('1.1.0')
  })

  it('skips commits that did not touch package.json, and reads the version, not the text', () => {
    const { folder, commits } = history(['2.0.0', '2.0.1'])
    writeFileSync(join(folder, 'other.txt'), 'changed')
    git(folder, 'commit', '-qam', 'no version change')
    expect(previousRelease(folder)).toBe(commits[0])
  })

  it('refuses a history with no other version', () => {
    const { folder } = history(['3.0.0', '3.0.0'])
    expect(() => previousRelease(folder)).toThrow(/no commit before HEAD has a package.json version other than 3.0.0/)
  })

  it.each([
    [['--rounds', '0'], /--rounds must be a whole number of at least 1, got 0/],
    [['--seconds', 'two'], /--seconds must be a whole number of at least 1, got two/],
    [['--fast'], /Unknown option '--fast'/],
    [['HEAD', 'HEAD'], /each REF once, got HEAD HEAD/],
    [['no-such-ref-anywhere'], /no-such-ref-anywhere/],
    [['HEAD', '--head', 'no-such-head'], /no-such-head/],
  ])('refuses %j with exit 2 and the usage, building nothing', (args, message) => {
    const run = spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8' })
    expect(run.status).toBe(2)
    expect(run.stderr).toMatch(message)
    expect(run.stdout).not.toMatch(/Building/)
  })
})
