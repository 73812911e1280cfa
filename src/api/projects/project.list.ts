import { z } from 'zod';
import type { Caller } from '../caller.ts';
import { liveInWorkspace, type ListEndpoint } from '../list/list-endpoint.ts';
import { dateRanges, listQuery, many, once } from '../list/list-query.ts';
import type { SqlParams } from '../../readmodel/sql-params.ts';
import { searchQuery } from '../../search/search.ts';
import { clientNameCondition, dateRangeConditions, sortKeys } from '../list-filters.ts';
import { PROJECT_STATUSES, RATE_TYPES } from '../../value-sets.ts';
import { PROJECT_COLUMNS, projectRowToRecord } from './project.record.ts';

export const PROJECT_SORT_FIELDS = [
  'createdAt',
  'dueDate',
  'id',
  'name',
  'relevance',
  'startDate',
  'status',
  'updatedAt',
] as const;

/** GET /projects query (docs/contract.md, "GET /projects"). */
export const projectListQuery = listQuery(PROJECT_SORT_FIELDS, {
  clientName: once(z.string().max(200)).optional(),
  clientId: many(z.uuid()).optional(),
  memberId: many(z.uuid()).optional(),
  status: many(z.enum(PROJECT_STATUSES)).optional(),
  rateType: many(z.enum(RATE_TYPES)).optional(),
  timeline: many(z.enum(['dated', 'undated'])).optional(),
  budget: many(z.enum(['present', 'absent'])).optional(),
  ...dateRanges(['startDate', 'dueDate', 'createdAt', 'updatedAt']),
});
export type ProjectListQuery = z.output<typeof projectListQuery>;

const DATED = '(r.start_date IS NOT NULL OR r.due_date IS NOT NULL)';
const BUDGETED = '(r.budget_amount IS NOT NULL OR r.budget_hours IS NOT NULL)';

/** `condition` when only `yes` is asked, its negation when only `no`, nothing for both. */
function either(values: string[] | undefined, yes: string, condition: string): string[] {
  if (!values || values.length !== 1) return [];
  return [values[0] === yes ? condition : `NOT ${condition}`];
}

export const projectList: ListEndpoint<ProjectListQuery> = {
  name: 'projects',
  from: `projects r LEFT JOIN clients c ON c.id = r.client_id
    JOIN workspaces w ON w.id = r.workspace_id`,
  rowsFrom: 'projects r',
  // money_currency reads the client's currency and the workspace's base currency.
  cached: { table: 'projects', dependsOn: ['clients', 'workspaces'] },
  select: PROJECT_COLUMNS,
  sortKeys: sortKeys({
    dueDate: { expression: 'r.due_date', type: 'date', nullable: true },
    name: { expression: 'lower(r.name)', type: 'text' },
    startDate: { expression: 'r.start_date', type: 'date', nullable: true },
    status: { expression: 'r.status', type: 'text' },
    updatedAt: { expression: 'r.updated_at', type: 'timestamp' },
  }),
  where(query: ProjectListQuery, params: SqlParams, caller: Caller): string[] {
    const member = (users: string[]) =>
      `EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = r.id AND ${params.in('pm.user_id', users, 'UUID')})`;
    return [
      ...liveInWorkspace(params, caller.workspaceId),
      // Members see only the projects they were granted (docs/contract.md, "GET /projects").
      ...(caller.role === 'MEMBER' ? [member([caller.userId])] : []),
      ...(query.clientName ? [clientNameCondition(params, query.clientName)] : []),
      ...(query.clientId ? [params.in('r.client_id', query.clientId, 'UUID')] : []),
      ...(query.memberId ? [member(query.memberId)] : []),
      ...(query.status ? [params.oneOf('r.status', query.status)] : []),
      ...(query.rateType ? [params.oneOf('r.rate_type', query.rateType)] : []),
      ...either(query.timeline, 'dated', DATED),
      ...either(query.budget, 'present', BUDGETED),
      ...dateRangeConditions(query, params, {
        startDate: { expression: 'r.start_date', type: 'date' },
        dueDate: { expression: 'r.due_date', type: 'date' },
        createdAt: { expression: 'r.created_at', type: 'timestamp' },
        updatedAt: { expression: 'r.updated_at', type: 'timestamp' },
      }),
    ];
  },
  search: (workspaceId, text) => searchQuery('project', workspaceId, text),
  toRecord: projectRowToRecord,
};
