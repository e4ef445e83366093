/**
 * `petstore-sandbox/panel`: a small control panel a browser demo mounts in its page, over the
 * sandbox the page already runs (`createSandbox()` behind msw's `setupWorker`). Reset, three
 * scenarios (an error state, a slow list, an outage), and checkpoints to save and rewind to, each
 * saying how it went in the panel's status line. It sits in a shadow root, closed until
 * Alt+Shift+P (the `shortcut` option), and calls the sandbox in-process: no request of its own.
 * Its own entry, browser-only and ESM-only: `petstore-sandbox` alone never loads it.
 *
 * May import: src/browser/panel, and types from the core's facade (src/core/sandbox.ts).
 */
export { HOST_TAG, mountPanel, type MountedPanel } from './browser/panel/mount.js'
export type { PanelChange, PanelOptions } from './browser/panel/panel-options.js'
export type { PanelSandbox } from './browser/panel/panel-sandbox.js'
