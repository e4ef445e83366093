/**
 * The dashboard runs under a Content-Security-Policy without 'unsafe-eval': zod is told not to
 * compile its parsers with `new Function`, which the browser would refuse and report as a policy
 * violation. It must be told before any schema is made (zod decides per schema, when it is
 * built), so main.ts imports this first; and it exports what it set, because the package is
 * marked free of side effects and a bare import of it would be dropped from the bundle.
 *
 * May import: zod.
 */
import { config } from 'zod'

export const zodConfig = config({ jitless: true })
