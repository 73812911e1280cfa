import { describe, expect, it } from 'vitest';
import { taskEntity } from '../entities/task.entity.ts';
import { rowToRecord } from './entity-record.ts';
import { ApiError } from './errors.ts';

const taskRowToRecord = rowToRecord(taskEntity);
const at = new Date('2026-10-01T09:00:00.000Z');
const row = {
  id: '50000000-0000-4000-8000-000000000001',
  workspace_id: '10000000-0000-4000-8000-000000000001',
  project_id: '40000000-0000-4000-8000-000000000001',
  name: 'Design',
  description: null,
  status: 'TODO',
  priority: 'LOW',
  billable: true,
  estimated_hours: '1.5000',
  assignee_ids: ['20000000-0000-4000-8000-000000000002'],
  tags: ['NULL', 'a'],
  start_date: null,
  due_date: null,
  end_date: null,
  created_at: at,
  updated_at: at,
  deleted_at: null,
};

/** The error `read` throws, or undefined. */
function errorOf(read: () => unknown): unknown {
  try {
    read();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('rowToRecord', () => {
  it('turns a row into the record, lists as they are', () => {
    expect(taskRowToRecord(row)).toMatchObject({
      estimatedHours: '1.5',
      assigneeIds: row.assignee_ids,
      tags: ['NULL', 'a'],
      createdAt: '2026-10-01T09:00:00.000Z',
    });
  });

  it('answers a stored list holding NULL with a 500 that names the field, not the reader', () => {
    const error = errorOf(() => taskRowToRecord({ ...row, tags: ['a', null] }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 500, code: 'internal_error' });
    expect((error as ApiError).message).toMatch(/\btags\b.*not completed/);
    expect((error as ApiError).cause).toBeInstanceOf(Error);
  });

  it('names the field of any value its reader refuses', () => {
    const error = errorOf(() => taskRowToRecord({ ...row, billable: null }));
    expect((error as ApiError).message).toMatch(/\bbillable\b/);
  });
});
