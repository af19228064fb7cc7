// GET /error: a self-contained HTML page (spec §2) showing the error code from ?error,
// default 'Unknown', HTML-escaped, with a 'Return to Application' link to /.
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch,
  );
}

export function renderErrorPage(code: string | undefined): string {
  const shown = escapeHtml(code && code.length > 0 ? code.slice(0, 200) : "Unknown");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Error · Packyard</title>
<style>
  :root { color-scheme: light dark; font-family: ui-sans-serif, system-ui, sans-serif; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
  main { max-width: 28rem; padding: 2rem; text-align: center; }
  h1 { font-size: 1.5rem; margin: 0 0 .75rem; }
  code { display: inline-block; padding: .25rem .5rem; border-radius: .375rem; background: color-mix(in srgb, CanvasText 8%, Canvas); font-size: .95rem; word-break: break-all; }
  a { display: inline-block; margin-top: 1.5rem; padding: .6rem 1rem; border-radius: .5rem; background: #4f46e5; color: #fff; text-decoration: none; font-weight: 600; }
  a:focus-visible { outline: 3px solid #a5b4fc; outline-offset: 2px; }
</style>
</head>
<body>
<main>
<h1>Something went wrong</h1>
<p>The request could not be completed. Error code:</p>
<p><code data-testid="error-code">${shown}</code></p>
<a href="/">Return to Application</a>
</main>
</body>
</html>
`;
}
