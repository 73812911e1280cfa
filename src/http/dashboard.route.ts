import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * What the dashboard's pages may do (docs/dashboard.md): scripts and styles of this server only,
 * requests to this server only. ECharts writes style attributes, hence the inline styles; no
 * inline script runs, so a name that smuggles markup cannot run code next to the token.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/**
 * Serves the dashboard's built static files (src/cli/dashboard-build.ts) at `/`: a client of
 * the public API like any other, with no route of its own besides its files. Each file gets a
 * route of its own (no wildcard), so nothing it serves can shadow the API.
 */
export async function registerDashboard(app: FastifyInstance, dir: string): Promise<void> {
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/',
    wildcard: false,
    index: ['index.html'],
    // Small files, rebuilt at start: a browser revalidates them (ETag) rather than keeping
    // an old build.
    cacheControl: false,
    decorateReply: false,
    setHeaders: (reply) => {
      void reply.header('Cache-Control', 'no-cache');
      void reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      void reply.header('Referrer-Policy', 'no-referrer');
      void reply.header('X-Content-Type-Options', 'nosniff');
    },
  });
}
