/**
 * Who owns which data. Shared mode: one store for every key. Isolated mode: each API key gets
 * its own copy of the seed when it first reads or writes pet data, so parallel test workers with
 * their own keys never see each other's pets. At most `maxTenants` stores are kept (the default
 * key's included), a hard cap: past it the least recently used one with no request in flight is
 * evicted, and that key starts again from the seed; when every one has a request in flight, a
 * new key is answered 503 with Retry-After instead of passing the cap.
 *
 * Handles name tenants without their keys (`?tenant=`). They are random, so a page or script
 * cannot guess another worker's handle and reset its data; the dashboard reads them from
 * GET /__sandbox/tenants, which only local pages may read.
 *
 * May import: core/state, core/api, core/http, core/limits.ts, zod. No msw, no node:*, no adapter.
 */
import type { Pet } from '../api/contract.js'
import { ApiError } from '../http/errors.js'
import { indexPets, type PetIndex } from '../api/pet-index.js'
import { createCheckpointBook, type CheckpointBook, type CheckpointPool } from './checkpoint-pool.js'
import { createScenarioBook, type WritableScenarioBook } from './scenarios.js'
import { createTenantStore, type StoreBudgets, type TenantStore } from '../api/store.js'
import { maskKey } from '../api/auth.js'

/**
 * How a tenant is shown in the access log, the journal, the dashboard and GET /tenants, the same
 * everywhere: "default" for the default key, otherwise the key masked (maskKey), and a hue that
 * stays with the key, so two workers are told apart at a glance. The hue is one of 12 (0, 30,
 * ... 330 degrees) from a hash of the key: it gives away less than 4 bits, and never the key.
 */
export interface TenantLabel {
  readonly label: string
  readonly hue: number
}

export function labelTenant(key: string, defaultKey: string): TenantLabel {
  // FNV-1a over the UTF-16 code units: stable across runs and platforms, and cheap.
  let hash = 0x811c9dc5
  for (let index = 0; index < key.length; index++) {
    hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193) >>> 0
  }
  return { label: key === defaultKey ? 'default' : maskKey(key), hue: (hash % 12) * 30 }
}

/**
 * Whose data a request's key means, the one rule for it: `owner` is the key whose store it reads
 * and writes (the default key's without a key, and in shared mode everyone's one store), `scope`
 * the key that scopes the journal, scenarios and events (isolated mode), or undefined: everyone's.
 */
export interface TenantRef {
  readonly owner: string
  readonly scope: string | undefined
}

export interface Tenants {
  /** Whose data and whose scope a key means (TenantRef). */
  of(key: string | undefined): TenantRef
  /**
   * The store of a request that reads or writes pet data, created on first use. It is not
   * evicted until `release`: a tenant is never dropped with a request in flight.
   */
  acquire(key: string): TenantStore
  release(key: string): void
  /** The store a control works on (arranging data, importing state), created on first use. */
  storeFor(key: string): TenantStore
  /** The store of a key that has one already, without creating or touching it. */
  existing(key: string): TenantStore | undefined
  /** A tenant's own scenarios (isolated mode only): adding one creates the tenant. */
  scenariosFor(key: string): WritableScenarioBook | undefined
  /** A tenant's own scenarios if it has any, without creating them. */
  existingScenarios(key: string): WritableScenarioBook | undefined
  /** A tenant's checkpoints (in shared mode, everyone's), created on first use with the tenant. */
  checkpointsFor(key: string): CheckpointBook
  /** A tenant's checkpoints if it has any, without creating them. */
  existingCheckpoints(key: string): CheckpointBook | undefined
  /** Resets one tenant, or every store when no key is given. */
  reset(key?: string): void
  /** Replaces the seed (fixtures reloaded) and resets every store to it. */
  reseed(seed: readonly Pet[]): void
  /** How many stores exist. */
  count(): number
  /** How many tenants have been evicted since the sandbox started. */
  evictions(): number
  /** The index of the seed every new store starts from. */
  seed(): PetIndex
  /** Every tenant, least recently used first, with the handle that names it without its key. */
  list(): { handle: string; key: string; store: TenantStore }[]
  /** The most pets any one tenant created since its reset. */
  mostCreated(): number
  /** The most checkpoints any one tenant keeps. */
  mostCheckpoints(): number
  /** The key a handle stands for, if that tenant still exists. */
  keyOf(handle: string): string | undefined
  /** The handle of a key's tenant, if it has one. */
  handleOf(key: string): string | undefined
  /** How a key's tenant is shown (labelTenant), made once per tenant: the access log asks per request. */
  labelOf(key: string): TenantLabel
}

interface Tenant {
  /** `t-` and 16 random hex digits: how the dashboard and `?tenant=` name a tenant without its key. */
  readonly handle: string
  readonly label: TenantLabel
  readonly store: TenantStore
  scenarios: WritableScenarioBook | undefined
  checkpoints: CheckpointBook | undefined
  inFlight: number
}

/** The one rule for whose data and scope a key means (TenantRef), as a function of the mode. */
export function tenantRefs(isolated: boolean, defaultKey: string): (key: string | undefined) => TenantRef {
  const everyone: TenantRef = Object.freeze({ owner: defaultKey, scope: undefined })
  return (key) => (isolated && key !== undefined ? { owner: key, scope: key } : everyone)
}

export function createTenants(options: {
  seed: readonly Pet[]
  isolated: boolean
  defaultKey: string
  maxTenants: number
  maxCreatedPets: number
  /** What every tenant's store shares: the list cache and the pool of created pets. */
  budgets: StoreBudgets
  /** Checkpoints: how many one tenant keeps, and the bytes all of them share. */
  checkpoints: { readonly max: number; readonly pool: CheckpointPool }
  /** Told the key of each evicted tenant. */
  onEvict: (key: string) => void
}): Tenants {
  const { isolated, defaultKey, maxTenants, maxCreatedPets, budgets } = options
  // One index per seed, shared by every tenant: a million seeded pets are held once.
  let seedIndex = indexPets(options.seed)
  // Map order is insertion order: re-inserting a tenant on use keeps the least recent first.
  const tenants = new Map<string, Tenant>()
  const keysByHandle = new Map<string, string>()
  let evicted = 0
  // Whose data a key means is decided once, by tenantRefs; the rest asks it.
  const of = tenantRefs(isolated, defaultKey)
  const idOf = (key: string) => of(key).owner
  /** Under isolation a key has its own scenarios; shared, the sandbox's one book serves every key. */
  const ownsScenarios = (key: string) => of(key).scope !== undefined

  const evictOne = (): boolean => {
    const key = evictOneOf(tenants, keysByHandle, defaultKey)
    if (key === undefined) return false
    evicted++
    options.onEvict(key)
    return true
  }
  const tenantOf = (key: string): Tenant => {
    const id = idOf(key)
    let tenant = tenants.get(id)
    if (tenant === undefined) {
      while (tenants.size >= maxTenants && evictOne()) {
        // Back under the cap, the default key's tenant never counting as evictable.
      }
      if (tenants.size >= maxTenants) {
        throw new ApiError(
          'service_unavailable',
          `Every one of the ${maxTenants} tenants has a request in flight (the tenants limit); try again in a moment`,
          { 'Retry-After': '1' },
        )
      }
      tenant = {
        handle: randomHandle(),
        label: labelTenant(id, defaultKey),
        store: createTenantStore(seedIndex, maxCreatedPets, budgets),
        scenarios: undefined,
        checkpoints: undefined,
        inFlight: 0,
      }
      keysByHandle.set(tenant.handle, id)
    } else if (!isolated) {
      return tenant
    } else {
      tenants.delete(id)
    }
    tenants.set(id, tenant)
    return tenant
  }
  tenantOf(defaultKey)

  return {
    of,
    acquire(key) {
      const tenant = tenantOf(key)
      tenant.inFlight++
      return tenant.store
    },
    release(key) {
      const tenant = tenants.get(idOf(key))
      if (tenant !== undefined && tenant.inFlight > 0) tenant.inFlight--
    },
    storeFor: (key) => tenantOf(key).store,
    labelOf: (key) => tenants.get(idOf(key))?.label ?? labelTenant(key, defaultKey),
    existing: (key) => tenants.get(idOf(key))?.store,
    scenariosFor(key) {
      if (!ownsScenarios(key)) return undefined
      const tenant = tenantOf(key)
      tenant.scenarios ??= createScenarioBook()
      return tenant.scenarios
    },
    existingScenarios: (key) => (ownsScenarios(key) ? tenants.get(idOf(key))?.scenarios : undefined),
    checkpointsFor(key) {
      const tenant = tenantOf(key)
      tenant.checkpoints ??= createCheckpointBook(options.checkpoints.max, options.checkpoints.pool)
      return tenant.checkpoints
    },
    existingCheckpoints: (key) => tenants.get(idOf(key))?.checkpoints,
    reset(key) {
      const scoped = of(key).scope
      const reset = scoped === undefined ? [...tenants.values()] : [tenants.get(scoped)]
      for (const tenant of reset) {
        tenant?.scenarios?.clear()
        tenant?.store.reset()
      }
    },
    reseed(next) {
      seedIndex = indexPets(next)
      for (const tenant of tenants.values()) tenant.store.reseed(seedIndex)
    },
    count: () => tenants.size,
    evictions: () => evicted,
    seed: () => seedIndex,
    mostCreated: () => mostOf(tenants, (tenant) => tenant.store.createdCount()),
    mostCheckpoints: () => mostOf(tenants, (tenant) => tenant.checkpoints?.list().length ?? 0),
    // The default key's data first, then the others from the least recently used.
    list: () =>
      [...tenants]
        .sort(([a], [b]) => Number(b === defaultKey) - Number(a === defaultKey))
        .map(([key, tenant]) => ({ handle: tenant.handle, key, store: tenant.store })),
    keyOf: (handle) => keysByHandle.get(handle),
    handleOf: (key) => tenants.get(idOf(key))?.handle,
  }
}

/**
 * Evicts the least recently used idle tenant other than the default key's, and answers its key;
 * undefined when none is idle. Its created pets go back to the pool, its cached answers to the
 * cache, its checkpoints' bytes to theirs.
 */
function evictOneOf(
  tenants: Map<string, Tenant>,
  keysByHandle: Map<string, string>,
  defaultKey: string,
): string | undefined {
  for (const [key, tenant] of tenants) {
    if (key === defaultKey || tenant.inFlight > 0) continue
    tenant.store.reset()
    tenant.checkpoints?.clear()
    tenants.delete(key)
    keysByHandle.delete(tenant.handle)
    return key
  }
  return undefined
}

/** The most of a measure any one tenant holds. */
function mostOf(tenants: Map<string, Tenant>, measure: (tenant: Tenant) => number): number {
  let most = 0
  for (const tenant of tenants.values()) most = Math.max(most, measure(tenant))
  return most
}

/** 64 random bits: not guessable, and short enough to read on the dashboard. */
function randomHandle(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8))
  return `t-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`
}
