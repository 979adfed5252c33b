import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '@voice/shared';
import type { FastifyInstance } from 'fastify';
import { PUBLIC } from '../http/route-auth';

/**
 * Set by platform/build.mjs in the bundle: each package's folder relative to the bundle, since
 * package names do not resolve from dist/. Undefined when running from source.
 */
declare const __VOICE_ASSET_PACKAGES__: Record<string, string> | undefined;

function packageDir(name: string): string {
  const bundled = typeof __VOICE_ASSET_PACKAGES__ === 'object' ? __VOICE_ASSET_PACKAGES__[name] : undefined;
  if (bundled) return fileURLToPath(new URL(`${bundled}/`, import.meta.url));
  return dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
}

/** GraphiQL and the React it runs on, served from node_modules: no CDN, works offline. */
const ASSETS: Record<string, { file: string; type: string }> = {
  'react.js': { file: join(packageDir('react'), 'umd/react.production.min.js'), type: 'text/javascript' },
  'react-dom.js': {
    file: join(packageDir('react-dom'), 'umd/react-dom.production.min.js'),
    type: 'text/javascript',
  },
  'graphiql.js': { file: join(packageDir('graphiql'), 'graphiql.min.js'), type: 'text/javascript' },
  'graphiql.css': { file: join(packageDir('graphiql'), 'graphiql.min.css'), type: 'text/css' },
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Voice platform GraphQL</title>
  <link rel="stylesheet" href="/graphql/assets/graphiql.css" />
  <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
</head>
<body>
  <div id="graphiql">Loading GraphiQL...</div>
  <script src="/graphql/assets/react.js"></script>
  <script src="/graphql/assets/react-dom.js"></script>
  <script src="/graphql/assets/graphiql.js"></script>
  <script>
    const fetcher = GraphiQL.createFetcher({ url: '/graphql' });
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, {
        fetcher,
        defaultHeaders: '{ "Authorization": "Bearer <your API key>" }',
        headerEditorEnabled: true,
        shouldPersistHeaders: false,
      }),
    );
  </script>
</body>
</html>`;

/** Whether a GET /graphql comes from a browser wanting the IDE rather than a GraphQL answer. */
export function wantsGraphiql(accept: string | undefined): boolean {
  return typeof accept === 'string' && accept.includes('text/html');
}

export function sendGraphiql(reply: { type(t: string): { send(body: string): unknown } }): unknown {
  return reply.type('text/html; charset=utf-8').send(PAGE);
}

/** The IDE's static files, read once and cached by browsers for a day. */
export function registerGraphiqlAssets(app: FastifyInstance): void {
  const loaded = new Map<string, Buffer>();
  app.get<{ Params: { name: string } }>(
    '/graphql/assets/:name',
    { config: { auth: PUBLIC }, schema: { hide: true } },
    async (request, reply) => {
      // Own names only: `constructor` or `toString` would find Object's.
      const asset = Object.hasOwn(ASSETS, request.params.name) ? ASSETS[request.params.name] : undefined;
      if (!asset) throw new AppError('NOT_FOUND', 'No such GraphiQL asset');
      const body = loaded.get(request.params.name) ?? readFileSync(asset.file);
      loaded.set(request.params.name, body);
      return reply.type(asset.type).header('cache-control', 'public, max-age=86400').send(body);
    },
  );
}
