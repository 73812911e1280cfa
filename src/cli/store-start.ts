import type { Config } from '../config.ts';
import { startEmbeddedStore, type EmbeddedStore } from '../store/embedded-postgres.ts';
import type { StartUpTimes } from './start-up-times.ts';

/**
 * Starts the embedded PostgreSQL under DATA_DIR (nothing with DATABASE_URL), as the phase
 * `store` of `startUp`. It imports little, so that `npm start` (src/main.ts) can start the
 * store, and its crash recovery, before it loads the rest of the server.
 */
export function startStore(
  config: Config,
  startUp: StartUpTimes,
  log: (line: string) => void = () => undefined,
): Promise<EmbeddedStore | undefined> {
  if (config.databaseUrl) return Promise.resolve(undefined);
  const from = process.uptime();
  return startEmbeddedStore({ dataDir: config.dataDir, onLog: (l) => log(l.trimEnd()) }).then(
    (store) => {
      startUp.record(store.recovered ? 'store (crash recovery)' : 'store', from);
      return store;
    },
  );
}
