import { type SafeHtml, html } from './html.ts';

export interface LayoutOptions {
  title: string;
  /** Shown in the header when someone is signed in. */
  signedInAs?: { name: string; email: string; csrfToken: string };
  /** The page has Copy buttons (web/copy-script.ts). */
  copyButtons?: boolean;
}

export function layout(options: LayoutOptions, body: SafeHtml): string {
  const nav = options.signedInAs === undefined ? '' : html`
    <nav aria-label="Account">
      <a href="/portfolios">Portfolios</a>
      <a href="/settings/applications">API settings</a>
      <a href="/settings/connections">Connected applications</a>
      <a href="/activity">Activity</a>
      <form method="post" action="/logout" class="inline">
        <input type="hidden" name="csrf_token" value="${options.signedInAs.csrfToken}">
        <button type="submit" class="link">Sign out</button>
      </form>
    </nav>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Folio</title>
<link rel="stylesheet" href="/assets/folio.css">
${options.copyButtons === true ? html`<script src="/assets/copy.js" defer></script>` : ''}
</head>
<body>
<header class="site"><a class="brand" href="/">Folio</a>${nav}</header>
<main id="main">
${body}
</main>
</body>
</html>`.value;
}
