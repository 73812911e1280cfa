import { z } from 'zod';

/**
 * `links` of team-payout records (docs/contract.md, "Links object"): where the record lives in the
 * app, app-relative, for an Owner/Admin session. A link that does not apply is ''.
 */
export const linksRecord = z.object({
  app: z.string(),
  payee: z.string(),
  project: z.string(),
  task: z.string(),
});
export type Links = z.infer<typeof linksRecord>;

export function links(
  app: string,
  ids: { payeeId?: string | null; projectId?: string | null; taskId?: string | null },
): Links {
  return {
    app,
    payee: ids.payeeId ? `/app/team-payouts/payees/${ids.payeeId}` : '',
    project: ids.projectId ? `/app/projects/${ids.projectId}` : '',
    task: ids.taskId ? `/app/tasks/${ids.taskId}` : '',
  };
}
