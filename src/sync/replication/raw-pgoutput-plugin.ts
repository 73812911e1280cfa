import { PgoutputPlugin, type Pgoutput } from 'pg-logical-replication';

const keepText = (raw: string): string => raw;

/**
 * pgoutput, with every column value kept as PostgreSQL's own text. The stock plugin runs
 * node-postgres type parsers, which would turn timestamps into JS Dates (losing
 * microseconds) and arrays into JS arrays; the read model wants the exact text, as the
 * initial copy has it. A relation message arrives before the rows that use it and the
 * parser keeps that same object, so resetting its column parsers here covers those rows.
 */
export class RawPgoutputPlugin extends PgoutputPlugin {
  override parse(buffer: Buffer): Pgoutput.Message {
    const message: Pgoutput.Message = super.parse(buffer);
    if (message.tag === 'relation') {
      for (const column of message.columns) column.parser = keepText;
    }
    return message;
  }
}
