import type { Client } from 'pg';

/**
 * The pgoutput plugin for pg-logical-replication's service, handing each message to the
 * sync undecoded. The library passes a view into its connection's read buffer, which it
 * reuses for later bytes, so the message is copied; PgoutputDecoder then decodes it in
 * order, straight into the change batch.
 */
export class RawPgoutputPlugin {
  readonly name = 'pgoutput';

  constructor(readonly options: { publicationNames: string[] }) {}

  parse(buffer: Buffer): Buffer {
    return Buffer.from(buffer);
  }

  start(client: Client, slotName: string, lastLsn: string): Promise<unknown> {
    const publications = this.options.publicationNames.join(',').replace(/'/g, "''");
    return client.query(
      `START_REPLICATION SLOT "${slotName.replace(/"/g, '""')}" LOGICAL ${lastLsn} (proto_version '1', publication_names '${publications}')`,
    );
  }
}
