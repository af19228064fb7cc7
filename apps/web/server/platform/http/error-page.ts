// GET /error (spec §2): the error code from ?error (default 'Unknown', HTML-escaped) and a
// 'Return to Application' link to /, in the public site's look. A code that authentication
// redirects with (spec §8, better-auth's own, a provider's OAuth error) is explained — what
// happened and what to do — with the contract's texts, which the sign-in page shows too — the same header links and footer
// groups as the React app (the contract's site.ts), light or dark with the system. Self-contained
// server-rendered HTML: no script, styles inline, so it shows even when the app cannot.
import { explainAuthError } from "@packyard/contract/auth-errors.ts";
import { footerGroups, headerLinks, SIGN_IN_PATH, SIGN_UP_PATH } from "@packyard/contract/site.ts";

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch,
  );
}

const logo = `<svg viewBox="0 0 32 32" width="28" height="28" aria-hidden="true"><rect width="32" height="32" rx="7" class="logo-bg"/><path d="M8 11.5 16 7l8 4.5v9L16 25l-8-4.5z" fill="none" stroke="#fff" stroke-width="2.2" stroke-linejoin="round"/><path d="M8 11.5 16 16l8-4.5M16 16v9" fill="none" stroke="#fff" stroke-width="2.2" stroke-linejoin="round"/></svg>`;

const styles = `
:root { color-scheme: light dark; --bg:#fff; --fg:#0f172a; --muted:#f1f5f9; --muted-fg:#475569; --border:#e2e8f0; --primary:#4338ca; --primary-fg:#fff; --accent:#eef2ff; --ring:#6366f1; }
@media (prefers-color-scheme: dark) { :root { --bg:#0b1020; --fg:#e2e8f0; --muted:#151c2f; --muted-fg:#94a3b8; --border:#1f2a44; --primary:#818cf8; --primary-fg:#0b1020; --accent:#1e1b4b; --ring:#818cf8; } }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: flex; flex-direction: column; background: var(--bg); color: var(--fg);
  font-family: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; -webkit-font-smoothing: antialiased; }
a { color: inherit; text-decoration: none; }
:focus-visible { outline: 2px solid var(--ring); outline-offset: 2px; border-radius: 6px; }
.wrap { max-width: 72rem; margin: 0 auto; padding: 0 1.5rem; }
header { border-bottom: 1px solid var(--border); }
.bar { height: 4rem; display: flex; align-items: center; justify-content: space-between; gap: 1rem; }
.brand { display: inline-flex; align-items: center; gap: .5rem; font-weight: 600; font-size: 1.125rem; letter-spacing: -.01em; }
.logo-bg { fill: var(--primary); }
nav.main { display: flex; gap: .25rem; }
nav.main a { padding: .5rem .75rem; font-size: .875rem; font-weight: 500; color: var(--muted-fg); border-radius: 6px; }
nav.main a:hover { color: var(--fg); }
.account { display: flex; gap: .5rem; align-items: center; }
.btn { display: inline-flex; align-items: center; height: 2rem; padding: 0 .75rem; border-radius: 6px; font-size: .75rem; font-weight: 500; }
.btn.primary { background: var(--primary); color: var(--primary-fg); }
.btn.ghost:hover { background: var(--muted); }
details.menu { display: none; }
details.menu summary { list-style: none; cursor: pointer; padding: .5rem .75rem; border-radius: 6px; font-size: .875rem; font-weight: 500; border: 1px solid var(--border); }
details.menu summary::-webkit-details-marker { display: none; }
details.menu[open] .panel { position: absolute; left: 0; right: 0; top: 4rem; background: var(--bg); border-bottom: 1px solid var(--border); padding: .5rem 1.5rem 1rem; display: grid; gap: .25rem; z-index: 10; }
details.menu .panel a { padding: .6rem .75rem; border-radius: 6px; font-weight: 500; }
details.menu .panel a:hover { background: var(--muted); }
@media (max-width: 1023px) { nav.main { display: none; } details.menu { display: block; } }
@media (max-width: 639px) { .account .ghost { display: none; } }
main { flex: 1; }
.content { max-width: 36rem; margin: 0 auto; padding: 4rem 1.5rem; }
.icon { width: 3rem; height: 3rem; border-radius: .75rem; background: var(--accent); color: var(--primary); display: flex; align-items: center; justify-content: center; }
h1 { font-size: 1.875rem; line-height: 1.2; letter-spacing: -.02em; margin: 1.5rem 0 .75rem; }
p { color: var(--muted-fg); line-height: 1.6; margin: 0 0 .75rem; }
code { display: inline-block; padding: .25rem .5rem; border-radius: .375rem; background: var(--muted); color: var(--fg); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .95rem; word-break: break-all; }
.link { color: var(--primary); text-decoration: underline; }
.todo { color: var(--fg); }
.code-line { font-size: .875rem; }
.actions { margin-top: 2rem; display: flex; flex-wrap: wrap; gap: .75rem; }
.actions a { display: inline-flex; align-items: center; height: 2.5rem; padding: 0 1rem; border-radius: 6px; font-weight: 500; font-size: .875rem; }
.actions a { background: var(--primary); color: var(--primary-fg); }
.actions a + a { background: transparent; border: 1px solid var(--border); color: var(--fg); }
.actions a + a:hover { background: var(--muted); }
footer { border-top: 1px solid var(--border); background: color-mix(in srgb, var(--muted) 30%, transparent); }
.cols { display: grid; gap: 2.5rem; padding: 3rem 1.5rem; grid-template-columns: 1.4fr repeat(3, 1fr); }
@media (max-width: 767px) { .cols { grid-template-columns: 1fr; } }
.cols h2 { font-size: .875rem; margin: 0 0 .75rem; }
.cols ul { list-style: none; margin: 0; padding: 0; display: grid; gap: .5rem; font-size: .875rem; }
.cols ul a { color: var(--muted-fg); }
.cols ul a:hover { color: var(--fg); }
.tagline { font-size: .875rem; max-width: 20rem; margin-top: .75rem; }
.copy { border-top: 1px solid var(--border); padding: 1.25rem 0; font-size: .875rem; color: var(--muted-fg); }
`;

function links(items: { to: string; label: string }[]): string {
  return items.map(({ to, label }) => `<a href="${escapeHtml(to)}">${escapeHtml(label)}</a>`).join("");
}

export function renderErrorPage(code: string | undefined, year = new Date().getFullYear()): string {
  const explained = explainAuthError(code);
  const shown = escapeHtml(code && code.length > 0 ? code.slice(0, 200) : "Unknown");
  const body = explained.known
    ? `<h1>${escapeHtml(explained.title)}</h1>
<p>${escapeHtml(explained.explanation)}</p>
<p class="todo"><strong>What to do:</strong> ${escapeHtml(explained.action)}</p>
<p class="code-line">Error code: <code data-testid="error-code">${shown}</code></p>
<p class="code-line">Questions? <a class="link" href="/contact">Contact us</a> with this code.</p>
<div class="actions"><a href="${SIGN_IN_PATH}">Back to sign in</a><a href="/">Return to Application</a></div>`
    : `<h1>Something went wrong</h1>
<p>The request could not be completed. Error code:</p>
<p><code data-testid="error-code">${shown}</code></p>
<p>If it keeps happening, <a class="link" href="/contact">tell us</a> the code above.</p>
<div class="actions"><a href="/">Return to Application</a></div>`;
  const footer = footerGroups
    .map(
      (group) =>
        `<nav aria-label="${escapeHtml(group.title)}"><h2>${escapeHtml(group.title)}</h2><ul>${group.links
          .map(({ to, label }) => `<li><a href="${escapeHtml(to)}">${escapeHtml(label)}</a></li>`)
          .join("")}</ul></nav>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(explained.known ? explained.title : "Error")} · Packyard</title>
<link rel="icon" href="/favicon.ico" sizes="32x32">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>${styles}</style>
</head>
<body>
<header>
<div class="wrap bar">
<a class="brand" href="/" aria-label="Packyard home">${logo}<span>Packyard</span></a>
<nav class="main" aria-label="Main">${links(headerLinks)}</nav>
<div class="account">
<a class="btn ghost" href="${SIGN_IN_PATH}">Sign in</a>
<a class="btn primary" href="${escapeHtml(SIGN_UP_PATH)}">Get started</a>
<details class="menu"><summary>Menu</summary><nav class="panel" aria-label="Main menu">${links(headerLinks)}<a href="${SIGN_IN_PATH}">Sign in</a></nav></details>
</div>
</div>
</header>
<main>
<div class="content">
<div class="icon" aria-hidden="true"><svg width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><circle cx="12" cy="12" r="10"/><path d="M12 8v4M12 16h.01"/></svg></div>
${body}
</div>
</main>
<footer>
<div class="wrap cols">
<div><a class="brand" href="/" aria-label="Packyard home">${logo}<span>Packyard</span></a><p class="tagline">Package management made simple: signed APT and YUM/DNF repositories, release pages and stable download URLs for what you build.</p></div>
${footer}
</div>
<div class="copy"><div class="wrap">© ${year} Packyard</div></div>
</footer>
</body>
</html>
`;
}
