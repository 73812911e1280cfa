import type { FastifyInstance } from 'fastify';

/**
 * The routes an app answers under /api/v1, as `METHOD /path/{param}`, read from Fastify's own
 * route tree (so a route is found however it was registered), sorted. The public reference
 * (`/openapi.json`, `/docs`) is left out.
 */
export function registeredApiRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    // `│   └── /:id (PATCH, DELETE)`: the depth is where the segment starts.
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    const url = stack.join('');
    if (!url.startsWith('/api/v1/') || !match[3]) continue;
    const path = url.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}');
    if (path === '/openapi.json' || path.startsWith('/docs')) continue;
    for (const method of match[3].split(', '))
      if (method !== 'HEAD') routes.push(`${method} ${path}`);
  }
  return routes.sort();
}
