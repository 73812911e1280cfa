/** A copied table's column as the read model declares it. */
export interface ColumnInfo {
  name: string;
  type: string;
}

/** The key the read model matches changes on: each table's PostgreSQL primary key. */
const KEYS: Record<string, string[]> = {
  users: ['workspace_id', 'id'],
  members: ['workspace_id', 'user_id'],
  project_members: ['project_id', 'user_id'],
  team_payment_allocations: ['payment_id', 'bill_id'],
};
export const keyColumns = (table: string): string[] => KEYS[table] ?? ['id'];

/** The column list of an INSERT of copied columns (a table may also have derived ones). */
export function columnNames(columns: ColumnInfo[]): string {
  return columns.map((c) => c.name).join(', ');
}
