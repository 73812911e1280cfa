import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADA,
  E,
  F,
  PROJECT,
  P_ADA,
  TASK_DESIGN,
  W1,
  id,
  label,
  openPayoutWorkspace,
  rows,
} from '../support/payout-workspace.ts';

// The unpaid-time items (docs/contract.md, "Unpaid-time item") over the hand-made workspace of
// test/support/payout-workspace.ts, whose comments work out every expected figure.

let opened: Awaited<ReturnType<typeof openPayoutWorkspace>>;

beforeAll(async () => {
  opened = await openPayoutWorkspace();
});

afterAll(() => opened.close());

describe('unpaid_time_items', () => {
  it('lists one item per payable, priced entry with its amount rounded half away from zero', async () => {
    const items = await rows(
      `SELECT time_entry_id, id, name, work_date, duration_seconds, currency, hourly_rate, amount,
              section, selected_by_default
       FROM unpaid_time_items WHERE workspace_id = $ws ORDER BY work_date, id`,
      { ws: W1 },
    );
    for (const item of items) expect(item.id).toBe(item.time_entry_id);
    expect(
      items.map((i) => [
        label.get(String(i.id)),
        i.name,
        i.work_date,
        i.duration_seconds,
        i.currency,
        i.hourly_rate,
        i.amount,
        i.section,
        i.selected_by_default,
      ]),
    ).toEqual([
      ['E01', 'Ada Lovelace', '2026-10-02', 100, 'EUR', '18.0000', '0.5000', 'default', true],
      ['E02', 'Ada Lovelace', '2026-10-03', 1, 'EUR', '18.0000', '0.0100', 'default', true],
      ['G04', 'Chiyo Tanaka', '2026-10-05', 4500, 'JPY', '2500.0000', '3125.0000', 'default', true],
      ['E08', 'Ada Lovelace', '2026-10-06', 3600, 'EUR', '18.0000', '18.0000', 'default', true],
      ['G05', 'Chiyo Tanaka', '2026-10-06', 18, 'JPY', '2500.0000', '13.0000', 'default', true],
      ['E09', 'Ada Lovelace', '2026-10-07', 1800, 'EUR', '18.0000', '9.0000', 'default', true],
      ['E03', 'Ada Lovelace', '2026-10-12', 3600, 'EUR', '18.0000', '18.0000', 'default', true],
      ['F03', 'Ben Okafor', '2026-10-15', 2700, 'USD', '60.0000', '45.0000', 'default', true],
      ['E04', 'Ada Lovelace', '2026-10-16', 5400, 'EUR', '45.5000', '68.2500', 'default', true],
      ['E14', 'Ada Lovelace', '2026-10-17', 1, 'EUR', '45.5000', '0.0100', 'default', true],
      ['F04', 'Ben Okafor', '2026-10-19', 30, 'USD', '60.0000', '0.5000', 'default', true],
      [
        'E05',
        'Ada Lovelace',
        '2026-10-20',
        7200,
        'EUR',
        '45.5000',
        '91.0000',
        'non_billable',
        false,
      ],
      ['F05', 'Ben Okafor', '2026-10-20', 1000, 'USD', '62.2500', '17.2900', 'default', true],
      ['F06', 'Ben Okafor', '2026-10-21', 24, 'USD', '62.2500', '0.4200', 'default', true],
      ['F08', 'Ben Okafor', '2026-10-25', 5400, 'USD', '62.2500', '93.3800', 'non_billable', false],
      ['G06', 'Chiyo Tanaka', '2026-11-03', 3600, 'KWD', '7.1255', '7.1260', 'default', true],
      ['G07', 'Chiyo Tanaka', '2026-11-04', 100, 'KWD', '7.1255', '0.1980', 'default', true],
    ]);
  });

  it('labels an item with its project, task, note and the rate it was priced with', async () => {
    const [item] = await rows(
      `SELECT payee_id, user_id, project_id, project_name, task_id, task_name, description, rate_id
       FROM unpaid_time_items WHERE id = $id`,
      { id: E(4) },
    );
    expect(item).toEqual({
      payee_id: P_ADA,
      user_id: ADA,
      project_id: PROJECT,
      project_name: 'Website relaunch',
      task_id: TASK_DESIGN,
      task_name: 'Design',
      description: 'work 2026-10-16',
      rate_id: id(0xc13), // 45.50 from 10-16, the rate in force on the entry's date
    });
  });

  it('still names the archived task of an unpaid entry', async () => {
    const [item] = await rows(
      'SELECT task_name, description FROM unpaid_time_items WHERE id = $id',
      { id: E(14) },
    );
    expect(item).toEqual({ task_name: 'Old wireframes', description: null });
  });

  it('keeps entries on DRAFT, VOID and deleted bills unpaid, and drops those on APPROVED ones', async () => {
    const flags = await rows(
      `SELECT time_entry_id, on_approved_bill, is_payable FROM payee_entry_rates
       WHERE time_entry_id IN ($e3, $e7, $e8, $e9, $f7) ORDER BY time_entry_id`,
      { e3: E(3), e7: E(7), e8: E(8), e9: E(9), f7: F(7) },
    );
    expect(
      flags.map((f) => [label.get(String(f.time_entry_id)), f.on_approved_bill, f.is_payable]),
    ).toEqual([
      ['E03', false, true], // only on the deleted bill B7
      ['E07', true, false], // APPROVED B1
      ['E08', false, true], // DRAFT B2
      ['E09', false, true], // VOID B3
      ['F07', true, false], // APPROVED B4
    ]);
  });
});
