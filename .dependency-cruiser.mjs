// The layers of docs/architecture.md ("Layers"), enforced by `npm run check`: an import only
// points down. Scope is src/; tests and benchmarks may import anything.

/** The composition root: builds the pieces and wires them. */
const ROOT = '^src/(cli/|main[.]ts$)';
const HTTP = '^src/http/';
/** Route plugins with their queries, writes and derived tables. */
const FEATURES = '^src/(api/(?!list/)[^/]+/|reports/|exports/)';
/** What the features share: the files at the root of src/api/, and src/api/list/. */
const KIT = '^src/api/([^/]+[.]ts$|list/)';
const READMODEL = '^src/readmodel/';
/** PostgreSQL: the store, the tokens kept in it, the snapshot files imported into it. */
const STORE = '^src/(store|tokens|snapshot)/';
const SEARCH = '^src/search/';
const SYNC = '^src/sync/';
/** Webhooks: targets, secrets, event types, and (below the features) their producer and sender. */
const WEBHOOKS = '^src/webhooks/';
const LEAVES =
  '^src/(money/|time/|entities/|value-sets[.]ts$|stored-values[.]ts$|value-schemas[.]ts$|schema-doc[.]ts$|processes[.]ts$|config[.]ts$)';

const forbid = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

export default {
  forbidden: [
    forbid('no-circular', 'An import cycle: one of its arrows points up.', {}, { circular: true }),
    forbid(
      'root-imported',
      'Only the composition root (src/cli/, src/main.ts) imports itself.',
      { path: '^src/', pathNot: ROOT },
      { path: ROOT },
    ),
    forbid(
      'http-imported',
      'src/http/ is the app; only the composition root imports it.',
      { path: '^src/', pathNot: `${ROOT}|${HTTP}` },
      { path: HTTP },
    ),
    forbid(
      'feature-imported-from-below',
      'A feature is imported only by the app, the composition root and the exports.',
      { path: `${KIT}|${READMODEL}|${STORE}|${SEARCH}|${SYNC}|${WEBHOOKS}|${LEAVES}` },
      { path: FEATURES },
    ),
    forbid(
      'feature-to-feature',
      'A resource or report imports no other feature: what two share belongs in the kit or below.',
      { path: '^src/(api/(?!list/)[^/]+|reports/[^/]+)/' },
      { path: FEATURES, pathNot: '^src/$1/' },
    ),
    forbid(
      'exports-to-feature',
      'The exports read reports (a report date range), never a resource or the other way round.',
      { path: '^src/exports/' },
      { path: FEATURES, pathNot: '^src/(exports|reports)/' },
    ),
    forbid(
      'feature-imports-sync',
      'A feature reads the read model; a write waits for the sync through RouteContext, never by importing it.',
      { path: FEATURES },
      { path: SYNC },
    ),
    forbid(
      'kit-imports-up',
      'The API kit uses only what lies below it.',
      { path: KIT },
      { path: '^src/', pathNot: `${KIT}|${READMODEL}|${STORE}|${SEARCH}|${LEAVES}` },
    ),
    forbid(
      'search-imports-up',
      'The search is a derived part of the read model and its query.',
      { path: SEARCH },
      { path: '^src/', pathNot: `${SEARCH}|${READMODEL}|${LEAVES}` },
    ),
    forbid(
      'sync-imports-up',
      'The sync imports the read model, the store and the leaves only; it calls derived parts through the interface they register.',
      { path: SYNC },
      { path: '^src/', pathNot: `${SYNC}|${READMODEL}|${STORE}|${LEAVES}` },
    ),
    forbid(
      'readmodel-imports-up',
      'The read model imports only itself and the leaves.',
      { path: READMODEL },
      { path: '^src/', pathNot: `${READMODEL}|${LEAVES}` },
    ),
    forbid(
      'webhooks-imports-up',
      'The webhooks import the store, the sync, the read model and the leaves only.',
      { path: WEBHOOKS },
      { path: '^src/', pathNot: `${WEBHOOKS}|${STORE}|${SYNC}|${READMODEL}|${LEAVES}` },
    ),
    forbid(
      'store-imports-up',
      'The store imports only itself and the leaves.',
      { path: STORE },
      { path: '^src/', pathNot: `${STORE}|${LEAVES}` },
    ),
    forbid(
      'leaf-imports-non-leaf',
      'A leaf (money, time, value sets, ...) imports only other leaves.',
      { path: LEAVES },
      { path: '^src/', pathNot: LEAVES },
    ),
    forbid(
      'no-orphans',
      'A module nothing imports is dead code, unless it is an entry point run by a script.',
      {
        orphan: true,
        path: '^src/',
        pathNot: '^src/(main[.]ts|cli/main[.]ts|search/folding[.]ts)$',
      },
      {},
    ),
    forbid(
      'not-to-unresolvable',
      'An import that does not resolve.',
      { path: '^src/' },
      { couldNotResolve: true },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Unit tests beside their code may import anything, like test/ and bench/.
    exclude: { path: '[.]test[.]ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
