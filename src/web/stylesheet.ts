// One small stylesheet, served from /assets/folio.css (a same-origin file keeps
// the Content-Security-Policy free of 'unsafe-inline'). Colours meet WCAG AA contrast.
export const stylesheet = `
:root { --ink: #1c2430; --muted: #4a5668; --line: #d8dee8; --bg: #f5f7fa; --card: #fff;
  --accent: #1f5fbf; --accent-ink: #fff; --danger: #b42318; --ok: #1d6b3a; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
header.site { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; padding: .75rem 1.25rem; background: var(--card); border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; font-size: 1.2rem; color: var(--ink); text-decoration: none; }
nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: center; }
nav a, .link { color: var(--accent); text-decoration: none; }
nav a:hover, .link:hover { text-decoration: underline; }
main { max-width: 960px; margin: 2rem auto; padding: 0 1rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1.5rem; margin-bottom: 1.5rem; }
.narrow { max-width: 440px; margin-left: auto; margin-right: auto; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.25rem 0 .5rem; }
.muted { color: var(--muted); }
label { display: block; font-weight: 600; margin: 1rem 0 .25rem; }
input[type=text], input[type=email], input[type=password], input[type=url], input[type=date], select, textarea {
  width: 100%; padding: .6rem .7rem; font: inherit; color: var(--ink); background: #fff; border: 1px solid #8a96a8; border-radius: 6px; }
textarea { min-height: 5rem; }
input:focus-visible, select:focus-visible, textarea:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid #7aa7ef; outline-offset: 2px; }
.hint { color: var(--muted); font-size: .9rem; margin: .25rem 0 0; }
.field-error { color: var(--danger); font-size: .9rem; margin: .25rem 0 0; }
.checkbox { display: flex; gap: .5rem; align-items: center; font-weight: 400; }
button { font: inherit; padding: .6rem 1.1rem; border-radius: 6px; border: 1px solid #8a96a8; background: #fff; color: var(--ink); cursor: pointer; margin-top: 1.25rem; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); }
button.danger { color: var(--danger); border-color: var(--danger); }
button.link { border: 0; background: none; padding: 0; margin: 0; }
form.inline { display: inline; margin: 0; }
.actions { display: flex; gap: .75rem; flex-wrap: wrap; align-items: center; margin-top: 1.25rem; }
.actions button { margin-top: 0; }
main a { color: var(--accent); }
.card > h2:first-child { margin-top: 0; }
main a:visited { color: #5a3d9a; }
.error { color: var(--danger); background: #fdf0ef; border: 1px solid #f4c7c3; padding: .6rem .8rem; border-radius: 6px; }
.warning { background: #fff6e5; border: 1px solid #f0c36d; padding: .6rem .8rem; border-radius: 6px; }
.notice { color: var(--ok); background: #eef8f1; border: 1px solid #bfe3cb; padding: .6rem .8rem; border-radius: 6px; }
.secret { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 1rem; word-break: break-all; user-select: all; background: #fff8e6; border: 1px solid #f0d48a; padding: .6rem .8rem; border-radius: 6px; }
ul.scopes { padding-left: 1.25rem; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .6rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: .9rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; word-break: break-all; }
a.button { display: inline-block; font: inherit; padding: .6rem 1.1rem; border-radius: 6px; border: 1px solid #8a96a8; background: #fff; color: var(--ink); text-decoration: none; margin-top: 1.25rem; }
a.button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); }
.danger-link { color: var(--danger); }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
fieldset { border: 0; padding: 0; margin: 1.25rem 0 1.5rem; min-width: 0; }
legend { font-size: 1.1rem; font-weight: 700; padding: 0; }
.heading-row { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: baseline; justify-content: space-between; }
.heading-row a.button { margin-top: 0; }
.empty { text-align: center; padding: 1rem 0; }
td.row-actions { white-space: nowrap; text-align: right; }
td.row-actions a + a { margin-left: 1rem; }
#error-summary p { margin: 0; }
#error-summary ul { margin: .25rem 0 0; padding-left: 1.25rem; }
#error-summary a { color: var(--danger); }
.field .hint, .field .field-error { margin: 0 0 .35rem; }
[aria-invalid=true] { border-color: var(--danger); box-shadow: 0 0 0 1px var(--danger); }
@media (max-width: 600px) { main { margin: 1rem auto; } .card { padding: 1rem; } th.optional, td.optional { display: none; } }
@media (max-width: 600px) {
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.stack tr { display: block; padding: .5rem 0; border-bottom: 1px solid var(--line); }
  table.stack td { display: flex; gap: .75rem; border: 0; padding: .15rem 0; }
  table.stack td[data-label]::before { content: attr(data-label); flex: 0 0 9.5rem; color: var(--muted); font-weight: 600; }
  table.stack td.row-actions { text-align: left; padding-top: .5rem; }
}
`;
