import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';
import { ids, smallSnapshot, TOKENS } from '../support/small-snapshot.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked by value
type Body = Record<string, any>;

const projectId = (n: number) => `41000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const invoiceId = (n: number) => `81000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function snapshot() {
  const s = smallSnapshot();
  s.projects.push(
    {
      id: projectId(1),
      clientId: null,
      name: 'Internal tools',
      status: 'COMPLETED',
      rateType: 'NON_BILLABLE',
      dueDate: '2026-05-01',
      memberIds: [ids.manager],
    } as never,
    {
      id: projectId(2),
      clientId: ids.client,
      name: 'Retainer',
      status: 'ACTIVE',
      rateType: 'FIXED',
      fixedFeeAmount: '3000',
      startDate: '2026-01-01',
      dueDate: '2026-03-01',
      budgetHours: '40.5',
      memberIds: [ids.member],
    } as never,
  );
  s.invoices.push(
    {
      id: invoiceId(1),
      clientId: ids.client,
      number: 'INV-0002',
      status: 'PAID',
      paymentStatus: 'paid',
      currency: 'USD',
      issueDate: '2026-09-30',
      dueDate: null,
      subtotal: '1000.00',
      discountAmount: '0',
      taxRate: '7.5',
      total: '1075.00',
      amountPaid: '1075.00',
      recurring: true,
      lines: [],
    } as never,
    {
      id: invoiceId(2),
      clientId: ids.client,
      number: 'INV-0003',
      status: 'DRAFT',
      paymentStatus: 'unpaid',
      currency: 'USD',
      issueDate: null,
      dueDate: null,
      subtotal: '50.00',
      discountAmount: '0',
      total: '50.00',
      amountPaid: '0',
      lines: [],
    } as never,
  );
  return s;
}

describe('GET /projects and /invoices', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
    await h.importObject(snapshot());
    await h.sync();
  });
  afterAll(() => h.close());

  const get = async (path: string, token = TOKENS.owner) => {
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/v1${path}`,
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: res.statusCode, body: res.json<Body>() };
  };
  const field = (body: Body, name: string) => (body.data as Body[]).map((r) => r[name] as unknown);

  it('shows a Member only the projects granted to them, without rates', async () => {
    const { status, body } = await get('/projects?sort=name', TOKENS.member);
    expect(status).toBe(200);
    expect(field(body, 'name')).toEqual(['Retainer', 'Website']);
    for (const project of body.data as Body[]) {
      for (const hidden of [
        'hourlyRate',
        'fixedFeeAmount',
        'fixedFeePriorInvoicedAmount',
        'fixedFeeBillingInitializedAt',
        'budgetAmount',
      ])
        expect(project).not.toHaveProperty(hidden);
    }
    const owner = await get('/projects?sort=name');
    expect(field(owner.body, 'name')).toEqual(['Internal tools', 'Retainer', 'Website']);
    const retainer = (owner.body.data as Body[]).find((p) => p.name === 'Retainer')!;
    expect(retainer).toMatchObject({
      fixedFeeAmount: '3000.00',
      hourlyRate: null,
      budgetHours: '40.5',
      startDate: '2026-01-01',
    });
  });

  it('filters projects by status, rate type, timeline, budget, member and client name', async () => {
    const names = async (q: string) => field((await get(`/projects?sort=name&${q}`)).body, 'name');
    expect(await names('status=COMPLETED&status=ARCHIVED')).toEqual(['Internal tools']);
    expect(await names('rateType=FIXED')).toEqual(['Retainer']);
    expect(await names('timeline=undated')).toEqual(['Website']);
    expect(await names('timeline=dated&timeline=undated')).toHaveLength(3);
    expect(await names('budget=present')).toEqual(['Retainer', 'Website']);
    expect(await names(`memberId=${ids.manager}`)).toEqual(['Internal tools']);
    expect(await names('clientName=GLOB')).toEqual(['Retainer', 'Website']);
    expect(await names('dueDateFrom=2026-03-01&dueDateTo=2026-05-01')).toEqual([
      'Internal tools',
      'Retainer',
    ]);
    expect((await get('/projects?status=DONE')).status).toBe(422);
  });

  it('sorts undated projects last in both directions', async () => {
    expect(field((await get('/projects?sort=dueDate')).body, 'name')).toEqual([
      'Retainer',
      'Internal tools',
      'Website',
    ]);
    expect(field((await get('/projects?sort=-dueDate')).body, 'name')).toEqual([
      'Internal tools',
      'Retainer',
      'Website',
    ]);
  });

  it('lists invoices with money at the currency scale, filtered by status, flags and amounts', async () => {
    const numbers = async (q: string) =>
      field((await get(`/invoices?sort=number&${q}`)).body, 'number');
    expect(await numbers('')).toEqual(['INV-0001', 'INV-0002', 'INV-0003']);
    expect(await numbers('status=PAID&status=DRAFT')).toEqual(['INV-0002', 'INV-0003']);
    expect(await numbers('paymentStatus=partially_paid')).toEqual(['INV-0001']);
    expect(await numbers('recurring=true')).toEqual(['INV-0002']);
    expect(await numbers('balanceMin=0.01')).toEqual(['INV-0001', 'INV-0003']);
    expect(await numbers('totalMin=50&totalMax=192.78')).toEqual(['INV-0001', 'INV-0003']);
    expect(await numbers('currency=usd&issueDateTo=2026-09-30')).toEqual(['INV-0002']);
    expect(await numbers('clientName=obe')).toHaveLength(3);
    expect((await get('/invoices?totalMin=1e3')).body.error.fields).toHaveProperty('totalMin');
    expect(field((await get('/invoices?sort=-total')).body, 'total')).toEqual([
      '1075.00',
      '192.78',
      '50.00',
    ]);
  });

  it('answers one invoice by id, and 404 for a missing, malformed or foreign id', async () => {
    const { status, body } = await get(`/invoices/${ids.invoice}`);
    expect(status).toBe(200);
    expect(body.data).toEqual({
      id: ids.invoice,
      orgId: ids.workspace,
      clientId: ids.client,
      number: 'INV-0001',
      billToName: null,
      notes: null,
      currency: 'USD',
      status: 'SENT',
      paymentStatus: 'partially_paid',
      subtotal: '180.00',
      discountAmount: '18.00',
      total: '192.78',
      amountPaid: '100.00',
      taxRate: '19',
      issueDate: '2026-10-31',
      dueDate: '2026-11-30',
      sentAt: null,
      paidAt: null,
      createdAt: expect.any(String) as string,
      updatedAt: expect.any(String) as string,
      deletedAt: null,
    });
    for (const id of [invoiceId(99), 'not-a-uuid']) {
      const missing = await get(`/invoices/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('not_found');
    }
    expect((await get(`/invoices/${ids.invoice}`, TOKENS.member)).status).toBe(403);
  });
});
