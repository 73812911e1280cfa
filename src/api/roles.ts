import type { Role } from '../store/schema.ts';

/** Clients, invoices and expenses: Manager and above (docs/contract.md, "Role rules by area"). */
export const MANAGER_UP: Role[] = ['MANAGER', 'ADMIN', 'OWNER'];
