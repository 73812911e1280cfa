import { PgoutputPlugin, type Pgoutput } from 'pg-logical-replication';
import { keyColumns } from '../apply-changes.ts';
import { PgoutputTextParser } from './pgoutput-parser.ts';

/**
 * pgoutput, with every column value kept as PostgreSQL's own text, as the first load has
 * it. The stock plugin runs node-postgres type parsers (timestamps would become JS Dates and
 * lose microseconds) and decodes every value of every old row; PgoutputTextParser keeps the
 * text and decodes only what the sync uses.
 */
export class RawPgoutputPlugin extends PgoutputPlugin {
  private readonly textParser = new PgoutputTextParser(keyColumns);

  override parse(buffer: Buffer): Pgoutput.Message {
    return this.textParser.parse(buffer);
  }
}
