import type { Role } from '../store/schema.ts';

/** Clients, invoices and expenses: Manager and above (api-v1 "Role rules by area"). */
export const MANAGER_UP: Role[] = ['MANAGER', 'ADMIN', 'OWNER'];
