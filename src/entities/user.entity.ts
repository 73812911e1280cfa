import { snapshotName } from '../value-schemas.ts';
import { ROLES } from '../value-sets.ts';
import { audit, createdAt, defineEntity, filled, oneOf, text, uuid } from './entity.ts';

/** A user of a workspace, over `users r`; the API has no record of it, a snapshot does. */
export const userEntity = defineEntity(
  'r',
  {
    id: uuid(),
    orgId: uuid().column('workspace_id').only('snapshot'),
    name: text().inSnapshot(snapshotName),
    email: text().nullable(),
    ...audit,
  },
  [filled('orgId'), 'id', 'name', 'email', 'createdAt', 'updatedAt', 'deletedAt'],
);

/** A user's membership and role in a workspace, over `members r`. */
export const memberEntity = defineEntity(
  'r',
  {
    orgId: uuid().column('workspace_id').only('snapshot'),
    userId: uuid(),
    role: oneOf(ROLES),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  [filled('orgId'), 'userId', 'role', 'createdAt', 'updatedAt'],
);
