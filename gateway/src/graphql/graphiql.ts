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

/**
 * What the page's script is told (read by the tests too): where to send operations, and where the
 * API key typed once into the page is kept (this browser's localStorage).
 */
const CONFIG = { url: '/graphql', subscriptionPath: '/graphql', keyStorage: 'voice-api-key' };

/**
 * The schema and the docs load without a key (introspection needs none, so a stored key that went
 * bad cannot break them); everything else is sent with the stored key, over HTTP as a header and
 * over graphql-ws (subscriptions) in connection_init. A key or headers set in GraphiQL's Headers
 * tab win over the stored key.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Voice platform GraphQL</title>
  <link rel="stylesheet" href="/graphql/assets/graphiql.css" />
  <style>
    body { margin: 0; height: 100vh; display: flex; flex-direction: column; font: 14px system-ui, sans-serif; }
    #key-bar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 6px 12px; border-bottom: 1px solid #d0d7de; }
    #key-bar input { width: 24em; }
    #key-state { color: #57606a; }
    #graphiql { flex: 1; min-height: 0; }
  </style>
</head>
<body>
  <form id="key-bar">
    <label for="api-key">API key</label>
    <input id="api-key" type="password" autocomplete="off" spellcheck="false" placeholder="vk_..." />
    <button type="submit">Use this key</button>
    <button type="button" id="forget-key">Forget it</button>
    <span id="key-state"></span>
  </form>
  <div id="graphiql">Loading GraphiQL...</div>
  <script id="graphiql-config" type="application/json">${JSON.stringify(CONFIG)}</script>
  <script src="/graphql/assets/react.js"></script>
  <script src="/graphql/assets/react-dom.js"></script>
  <script src="/graphql/assets/graphiql.js"></script>
  <script>
    const config = JSON.parse(document.getElementById('graphiql-config').textContent);
    const storedKey = () => localStorage.getItem(config.keyStorage) || '';
    const keyInput = document.getElementById('api-key');
    const keyState = document.getElementById('key-state');
    function showKeyState() {
      keyState.textContent = storedKey()
        ? 'Key set, kept in this browser: queries, mutations and subscriptions use it.'
        : 'No key yet: the schema, the docs and the discovery queries work without one.';
    }
    document.getElementById('key-bar').addEventListener('submit', (event) => {
      event.preventDefault();
      const key = keyInput.value.trim().replace(/^Bearer\\s+/i, '');
      if (key) localStorage.setItem(config.keyStorage, key);
      keyInput.value = '';
      showKeyState();
    });
    document.getElementById('forget-key').addEventListener('click', () => {
      localStorage.removeItem(config.keyStorage);
      showKeyState();
    });
    showKeyState();
    const socketUrl = new URL(config.subscriptionPath, location.href);
    socketUrl.protocol = socketUrl.protocol === 'https:' ? 'wss:' : 'ws:';
    // Built for each operation, so a key set or forgotten applies to the next one.
    function fetcher(params, options) {
      const key = params.operationName === 'IntrospectionQuery' ? '' : storedKey();
      const auth = key ? { Authorization: 'Bearer ' + key } : {};
      return GraphiQL.createFetcher({
        url: config.url,
        subscriptionUrl: socketUrl.href,
        headers: auth,
        wsConnectionParams: auth,
      })(params, options);
    }
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, { fetcher, headerEditorEnabled: true, shouldPersistHeaders: false }),
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
