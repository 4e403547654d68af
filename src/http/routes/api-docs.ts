// GET /api/v2/docs: Swagger UI over the OpenAPI document. Its scripts and styles
// are swagger-ui-dist's files, served from Folio itself, so the page runs under the
// site-wide CSP (script-src 'self', no inline scripts). A handful of fixed files,
// served by name: @fastify/swagger-ui and the static-file server it loads would
// add to every start for a page few requests ask for.
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../../oauth/errors.ts';
import { refuseOtherMethods } from '../errors.ts';
import { openApiPaths } from '../openapi.ts';

const ASSETS_PATH = `${openApiPaths.ui}/static`;

/** The files the page and Swagger UI's OAuth redirect load, by name; nothing else of the package is served. */
const DISTRIBUTED_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui.css.map': 'application/json',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'oauth2-redirect.html': 'text/html; charset=utf-8',
  'oauth2-redirect.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

// The files change only with the installed package; an hour spares a revisit the 1.7 MB bundle.
const ASSET_CACHE_CONTROL = 'public, max-age=3600';

/** Where swagger-ui-dist's files are; resolved without loading its index, which would load the 1.7 MB bundle into Node. */
function distributionDirectory(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

function pageHtml(): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Folio API docs</title>
<link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css">
<link rel="stylesheet" href="${ASSETS_PATH}/index.css">
<link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${ASSETS_PATH}/swagger-ui-bundle.js" charset="utf-8"></script>
<script src="${ASSETS_PATH}/swagger-initializer.js" charset="utf-8"></script>
</body>
</html>
`;
}

// In a file of its own: the CSP allows no inline script. No validator: it would
// send the document to validator.swagger.io. The base layout, without the
// standalone one's top bar: that bar only loads other documents by URL, and its
// logo is an SVG with an inline style, which the CSP (style-src 'self') refuses.
function initializerScript(): string {
  const at = (path: string) => `new URL(${JSON.stringify(path)}, window.location.href).href`;
  return `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${at(openApiPaths.document)},
    oauth2RedirectUrl: ${at(`${ASSETS_PATH}/oauth2-redirect.html`)},
    dom_id: '#swagger-ui',
    deepLinking: false,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'BaseLayout',
  });
};
`;
}

export function registerApiDocs(app: FastifyInstance): void {
  const directory = distributionDirectory();
  const page = pageHtml();
  const initializer = initializerScript();

  for (const url of [openApiPaths.ui, `${openApiPaths.ui}/`]) {
    app.get(url, { config: { html: true } }, async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return reply.type('text/html; charset=utf-8').send(page);
    });
    refuseOtherMethods(app, url, ['GET'], { html: true });
  }

  app.get(`${ASSETS_PATH}/swagger-initializer.js`, async (_request, reply) => {
    reply.header('cache-control', ASSET_CACHE_CONTROL);
    return reply.type('text/javascript; charset=utf-8').send(initializer);
  });

  app.get<{ Params: { name: string } }>(`${ASSETS_PATH}/:name`, async (request, reply) => {
    const { name } = request.params;
    // An own property only: a name such as "constructor" is not an asset.
    const contentType = Object.hasOwn(DISTRIBUTED_ASSETS, name) ? DISTRIBUTED_ASSETS[name] : undefined;
    if (contentType === undefined) throw new OAuthError('not_found', 'No such file among the API docs\' assets');
    reply.header('cache-control', ASSET_CACHE_CONTROL);
    return reply.type(contentType).send(createReadStream(join(directory, name)));
  });
  refuseOtherMethods(app, `${ASSETS_PATH}/:name`, ['GET']);
}
