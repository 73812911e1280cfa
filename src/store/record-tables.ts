import type { Selectable } from 'kysely';
import type { DB } from './generated/store-tables.ts';

// The API's record tables, as src/store/schema.ts types them (from the migrated catalog).

export type ClientTable = DB['clients'];
export type TaskTable = DB['tasks'];
export type ExpenseTable = DB['expenses'];
export type TimeEntryRow = Selectable<DB['time_entries']>;
