/**
 * The panel's styles. They live in its shadow root, so they reach nothing of the page, and the
 * page's selectors reach nothing inside. What a page can still reach is the host element itself
 * (`* {…}`, an attribute selector) and what the host inherits (font, colour): `:host` resets all
 * of it, and with `!important`, because an important declaration of a shadow tree wins over an
 * important one of the page (CSS Cascade 4, "context"), while a normal one would lose.
 *
 * May import: nothing.
 */
export const PANEL_CSS = `
:host {
  all: initial !important;
  display: block !important;
  position: fixed !important;
  inset: auto 1rem 1rem auto !important;
  z-index: 2147483647 !important;
  visibility: visible !important;
  opacity: 1 !important;
  transform: none !important;
  pointer-events: auto !important;
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
.panel {
  --text: #1a1a1a;
  --muted: #4a4a4a;
  --back: #ffffff;
  --raised: #f2f2f2;
  --line: #767676;
  --focus: #0b57d0;
  --error: #b00020;
  display: block;
  width: 22rem;
  max-width: calc(100vw - 2rem);
  max-height: calc(100vh - 2rem);
  overflow: auto;
  padding: 0.75rem 1rem 1rem;
  border: 1px solid var(--line);
  border-radius: 8px;
  background: var(--back);
  color: var(--text);
  box-shadow: 0 6px 24px rgb(0 0 0 / 25%);
  font: 14px/1.4 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  text-align: left;
}
@media (prefers-color-scheme: dark) {
  .panel {
    --text: #f0f0f0;
    --muted: #c8c8c8;
    --back: #1e1e1e;
    --raised: #2d2d2d;
    --line: #8a8a8a;
    --focus: #8ab4f8;
    --error: #ff8a80;
  }
}
header { display: flex; align-items: center; justify-content: space-between; gap: 0.5rem; }
h2 { margin: 0; font-size: 1rem; font-weight: 600; }
h3 { margin: 0.9rem 0 0.4rem; font-size: 0.8rem; font-weight: 600; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
p, ul { margin: 0.3rem 0; }
ul { padding: 0; list-style: none; }
li { display: flex; align-items: center; justify-content: space-between; gap: 0.5rem; padding: 0.15rem 0; }
.muted, .hint { color: var(--muted); }
.hint { font-size: 0.8rem; margin-top: 0.75rem; }
.buttons { display: flex; flex-wrap: wrap; gap: 0.4rem; }
button, input {
  display: inline-block;
  font: inherit;
  color: var(--text);
  background: var(--raised);
  border: 1px solid var(--line);
  border-radius: 4px;
  padding: 0.3rem 0.6rem;
  margin: 0;
  visibility: visible;
  opacity: 1;
}
button { cursor: pointer; }
input { background: var(--back); flex: 1; min-width: 0; }
input::placeholder { color: var(--muted); opacity: 1; }
button:focus-visible, input:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
form { display: flex; gap: 0.4rem; align-items: center; }
label { display: block; margin-bottom: 0.2rem; }
.status { min-height: 1.4em; margin-top: 0.75rem; font-weight: 500; }
.status[data-kind='error'] { color: var(--error); }
`
