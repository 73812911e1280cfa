import { readFile, writeFile } from 'node:fs/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createHarness, type Harness } from '../support/harness.ts';
import { apiRequest, type Body } from '../support/api-request.ts';
import {
  DESKTOP,
  PHONE,
  launchBrowser,
  listen,
  money,
  newPage,
  screenshot,
  signIn,
} from '../support/browser.ts';
import {
  AWKWARD_NAMES,
  BIG_JPY,
  FIGURES_TOKEN,
  HUGE_EUR,
  HUGE_KWD,
  figuresSnapshot,
  monthDay,
} from '../support/figures-workspace.ts';
import { TOKENS, smallSnapshot } from '../support/small-snapshot.ts';

/**
 * The dashboard's figures in a real browser, each checked against the API's answer to the
 * same request with the same token: the text (formatted as the page formats it) and the raw
 * decimal string behind it, field by field.
 */

type Cell = { text: string; value: string | null };
type Row = { userId: string | null; cells: Record<string, Cell> };

const SHOWN = ['billedNet', 'collectedNet', 'compensationCost', 'margin'] as const;
const LABELS: Record<string, string> = {
  billedNet: 'Billed',
  collectedNet: 'Collected',
  compensationCost: 'Compensation cost',
  approvedCost: 'Approved cost',
  estimatedCost: 'Estimated cost',
  paid: 'Paid',
  pending: 'Pending',
  margin: 'Margin',
};
const PRESETS = [
  'this-month',
  'last-month',
  'this-quarter',
  'year-to-date',
  'last-12-months',
] as const;

/** A percentage as the page writes it: the string's decimals, en-US, then " %". */
function percent(value: string | null): string {
  if (value === null) return '–';
  const scale = value.split('.')[1]?.length ?? 0;
  return `${new Intl.NumberFormat('en-US', {
    minimumFractionDigits: scale,
    maximumFractionDigits: scale,
  }).format(value as Intl.StringNumericLiteral)} %`;
}

function duration(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return hours === 0 ? `${rest} min` : rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

const cell = (text: string, value: string | null = null): Cell => ({ text, value });
const isZero = (amount: string) => /^-?0+(\.0+)?$/.test(amount);

/** A metrics row (member or project) as the page should show it, in the base currency. */
function metricsCells(row: Body, base: string, nameKey: 'name' | 'projectName'): Row['cells'] {
  const cells: Row['cells'] = {
    name: cell(row[nameKey] ?? (nameKey === 'name' ? '–' : 'No project')),
  };
  for (const metric of SHOWN) cells[metric] = cell(money(row[metric], base), row[metric]);
  cells.marginPercent = cell(percent(row.marginPercent), row.marginPercent);
  cells.native = cell(
    (row.nativeAmounts as Body[])
      .filter((n) => !isZero(n.amount))
      .map((n) => `${LABELS[n.metric]} ${money(n.amount, n.currency)}`)
      .join('; '),
  );
  cells.flags = cell(
    [row.missingFx ? 'missing FX rate' : '', row.missingPayRate ? 'missing pay rate' : '']
      .filter(Boolean)
      .join(', '),
  );
  return cells;
}

/** The rows of a table the page drew (`selector` names the table), cell by cell. */
async function readTable(page: Page, selector: string): Promise<Row[]> {
  return page.evaluate((selector) => {
    const table = document.querySelector(selector);
    if (!table) throw new Error(`no table ${selector}`);
    return [...table.querySelectorAll(':scope > tbody > tr:not(.projects)')].map((tr) => {
      const cells: Record<string, { text: string; value: string | null }> = {};
      // An empty table has one row saying so.
      const empty = tr.querySelector(':scope > td.empty');
      if (empty) cells.empty = { text: empty.textContent ?? '', value: null };
      for (const td of (tr as HTMLTableRowElement).cells) {
        if (!td.dataset.key) continue;
        // The drill button beside a member's name is not part of the name.
        const copy = td.cloneNode(true) as HTMLElement;
        for (const button of copy.querySelectorAll('button')) button.remove();
        cells[td.dataset.key] = { text: copy.textContent ?? '', value: td.dataset.value ?? null };
      }
      return { userId: (tr as HTMLElement).dataset.userId ?? null, cells };
    });
  }, selector);
}

async function card(page: Page, testid: string): Promise<Cell> {
  const element = page.getByTestId(testid);
  return {
    text: (await element.locator('dd').textContent()) ?? '',
    value: await element.getAttribute('data-value'),
  };
}

/**
 * Runs `action` and waits until the element `testid` is drawn anew (the old one is marked
 * first, so the wait cannot be met by what was on the page before).
 */
async function redrawn(page: Page, testid: string, action: () => Promise<unknown>) {
  await page.getByTestId(testid).evaluate((el) => el.setAttribute('data-stale', ''));
  await action();
  await page.locator(`[data-testid="${testid}"]:not([data-stale])`).waitFor();
}

/** The first and last day of the month `offset` months from the month of `date`. */
function month(date: string, offset: number) {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7)) - 1 + offset;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return { from: day(new Date(Date.UTC(y, m, 1))), to: day(new Date(Date.UTC(y, m + 1, 0))) };
}

describe('dashboard figures equal the API', () => {
  let harness: Harness;
  let browser: Browser;
  let base: string;
  const snapshot = figuresSnapshot();
  // The small workspace with its FX rate and its payee's pay rate taken away.
  const warned = smallSnapshot();
  warned.fxRates = [];
  warned.payees[0]!.rates = [];
  const warnedMonth = month(warned.timeEntries[0]!.entryDate, 0);

  async function api(path: string, token = FIGURES_TOKEN): Promise<Body> {
    const res = await apiRequest(harness.app, { method: 'GET', path, token });
    expect(res.status, path).toBe(200);
    return res.body;
  }
  const query = (params: Record<string, string | number | undefined>) =>
    new URLSearchParams(
      Object.entries(params).filter((e): e is [string, string | number] => e[1] !== undefined) as [
        string,
        string,
      ][],
    ).toString();

  async function open(viewport = DESKTOP, token = FIGURES_TOKEN) {
    const opened = await newPage(browser, viewport);
    await signIn(opened.page, base, token);
    await opened.page.getByTestId('overview-summary').waitFor();
    return opened;
  }

  async function goTo(page: Page, hash: string, testid: string) {
    await page.evaluate((hash) => (location.hash = hash), hash);
    await page.getByTestId(testid).waitFor();
  }

  async function expectNoOverflow(page: Page) {
    expect(
      await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      ),
    ).toBe(0);
  }

  async function expectPayoutCards(page: Page, summary: Body) {
    expect(summary.currencies.length).toBeGreaterThan(0);
    for (const c of summary.currencies as Body[])
      for (const key of ['accrued', 'approved', 'paid', 'outstanding', 'overdue', 'credit'])
        expect(await card(page, `payout-${c.currency}-${key}`), `${c.currency} ${key}`).toEqual(
          cell(money(c[key], c.currency), c[key]),
        );
    expect(await page.locator('[data-testid^="payouts-"][class="currency-group"]').count()).toBe(
      summary.currencies.length,
    );
    expect(await card(page, 'payout-last-payment')).toEqual(
      summary.lastPaymentAmount === null
        ? cell('none yet')
        : cell(
            `${money(summary.lastPaymentAmount, summary.lastPaymentCurrency)} on ${summary.lastPaymentDate}`,
            summary.lastPaymentAmount,
          ),
    );
    expect((await card(page, 'payout-member-count')).text).toBe(String(summary.memberCount));
    expect(await card(page, 'payout-missing-rates')).toEqual(
      cell(String(summary.missingRateCount), String(summary.missingRateCount)),
    );
  }

  async function expectSummary(page: Page, report: Body) {
    for (const metric of SHOWN)
      expect(await card(page, `summary-${metric}`), metric).toEqual(
        cell(money(report.summary[metric], report.baseCurrency), report.summary[metric]),
      );
    expect(await card(page, 'summary-marginPercent')).toEqual(
      cell(percent(report.summary.marginPercent), report.summary.marginPercent),
    );
  }

  /** The profitability view as drawn: its range, summary, members and margin line. */
  async function expectProfitability(
    page: Page,
    filters: { userId?: string; projectId?: string; clientId?: string; page?: number } = {},
    token = FIGURES_TOKEN,
  ): Promise<Body> {
    const shown = page.getByTestId('shown-range');
    const from = (await shown.getAttribute('data-from'))!;
    const to = (await shown.getAttribute('data-to'))!;
    const report = (
      await api(
        `/team-payouts/profitability?${query({ from, to, ...filters, perPage: 25 })}`,
        token,
      )
    ).data as Body;
    expect(report.from).toBe(from);
    expect(report.to).toBe(to);
    await expectSummary(page, report);
    expect(await readTable(page, '[data-testid="members"]')).toEqual(
      report.members.length === 0
        ? [{ userId: null, cells: { empty: cell('No work in this range.') } }]
        : (report.members as Body[]).map((m) => ({
            userId: m.userId,
            cells: metricsCells(m, report.baseCurrency, 'name'),
          })),
    );
    // The margin line: one point per month of the range, the API's month summaries.
    const line = page.locator('[data-testid="margin-line"][data-state="drawn"]');
    await line.waitFor();
    const months: { from: string; to: string }[] = [];
    for (let i = 0; month(from, i).from <= to; i++) {
      const m = month(from, i);
      months.push({ from: m.from < from ? from : m.from, to: m.to > to ? to : m.to });
    }
    const percents: (string | null)[] = [];
    const { userId, projectId, clientId } = filters;
    for (const m of months) {
      const path = `/team-payouts/profitability?${query({ ...m, userId, projectId, clientId, perPage: 1 })}`;
      percents.push((await api(path, token)).data.summary.marginPercent);
    }
    expect(JSON.parse((await line.getAttribute('data-values'))!)).toEqual(percents);
    return report;
  }

  beforeAll(async () => {
    harness = await createHarness({ dashboard: true });
    await harness.importObject(snapshot);
    await harness.importObject(warned);
    await harness.sync();
    base = await listen(harness);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  it('shows the payout cards and this month on the overview as the API says, every digit', async () => {
    for (const [viewport, name] of [
      [DESKTOP, 'desktop'],
      [PHONE, 'phone'],
    ] as const) {
      const { context, page, errors } = await open(viewport);
      const summary = (await api('/team-payouts/summary')).data as Body;
      await expectPayoutCards(page, summary);
      const report = (await api('/team-payouts/profitability?perPage=1')).data as Body;
      const section = page.getByTestId('overview-profitability');
      expect(await section.getAttribute('data-from')).toBe(report.from);
      expect(await section.getAttribute('data-to')).toBe(report.to);
      await expectSummary(page, report);
      // The amounts past 2^53 are on the cards with all their digits.
      const eur = summary.currencies.find((c: Body) => c.currency === 'EUR');
      expect(eur.credit).toBe('12345678901234.56');
      expect((await card(page, 'payout-EUR-credit')).text).toBe('€12,345,678,901,234.56');
      expect((await card(page, 'payout-JPY-approved')).text).toMatch(/^¥[\d,]+$/);
      expect((await card(page, 'payout-KWD-approved')).text).toMatch(/^KWD\s[\d,]+\.\d{3}$/);
      await expectNoOverflow(page);
      await screenshot(page, `figures-overview-${name}`);
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it('pages through the outstanding and overdue bills and the unpaid time as the API does', async () => {
    const { context, page, errors } = await open();
    await goTo(page, '#/payouts', 'unpaid');
    await expectPayoutCards(page, (await api('/team-payouts/summary')).data as Body);
    const payees = new Map<string, string>(
      ((await api('/team-payouts/payees?limit=200')).data as Body[]).map((p) => [p.id, p.name]),
    );
    const billRow = (b: Body): Row => ({
      userId: null,
      cells: {
        number: cell(b.number),
        payee: cell(payees.get(b.payeeId)!),
        dueDate: cell(b.dueDate ?? '–'),
        remaining: cell(money(b.remaining, b.currency), b.remaining),
      },
    });
    const unpaidRow = (i: Body): Row => ({
      userId: null,
      cells: {
        workDate: cell(i.workDate),
        name: cell(i.name),
        project: cell(i.projectName ?? '–'),
        task: cell(i.taskName ?? '–'),
        section: cell(i.section === 'default' ? 'Billable' : 'Non-billable'),
        duration: cell(duration(i.durationSeconds)),
        hourlyRate: cell(money(i.hourlyRate, i.currency), i.hourlyRate),
        amount: cell(money(i.amount, i.currency), i.amount),
      },
    });

    /** Every page forward, then back to the first, each equal to the API's page. */
    async function pageThrough(
      testid: string,
      path: string,
      toRow: (item: Body) => Row,
    ): Promise<number> {
      const pages: Row[][] = [];
      let cursor: string | undefined;
      for (;;) {
        const answer = await api(`${path}&${query({ limit: 25, cursor })}`);
        const expected = (answer.data as Body[]).map(toRow);
        pages.push(expected);
        expect(
          await readTable(page, `[data-testid="${testid}"]`),
          `${testid} page ${pages.length}`,
        ).toEqual(expected);
        cursor = answer.pagination.nextCursor ?? undefined;
        const next = page.getByTestId(`${testid}-next`);
        expect(await next.isDisabled()).toBe(cursor === undefined);
        if (!cursor) break;
        await redrawn(page, testid, () => next.click());
      }
      for (let i = pages.length - 2; i >= 0; i--) {
        await redrawn(page, testid, () => page.getByTestId(`${testid}-previous`).click());
        expect(await readTable(page, `[data-testid="${testid}"]`)).toEqual(pages[i]);
      }
      expect(await page.getByTestId(`${testid}-previous`).isDisabled()).toBe(true);
      return pages.length;
    }

    await page.getByTestId('bills-outstanding').waitFor();
    expect(
      await pageThrough(
        'bills-outstanding',
        '/team-payouts/bills?outstandingOnly=true&sort=dueDate',
        billRow,
      ),
    ).toBeGreaterThan(1);
    await page.getByTestId('bills-overdue').waitFor();
    await pageThrough(
      'bills-overdue',
      '/team-payouts/bills?overdueOnly=true&sort=dueDate',
      billRow,
    );
    expect(
      await pageThrough(
        'unpaid',
        '/team-payouts/unpaid-time?scope=default&sort=-entryDate',
        unpaidRow,
      ),
    ).toBeGreaterThan(1);
    // The bills' amounts past 2^53 are there with all their digits.
    const remaining = (await readTable(page, '[data-testid="bills-outstanding"]')).map(
      (r) => r.cells.remaining!.value,
    );
    expect(remaining).toEqual(expect.arrayContaining([HUGE_EUR, BIG_JPY]));
    await redrawn(page, 'unpaid', () => page.getByTestId('unpaid-scope-all').check());
    expect(
      await pageThrough('unpaid', '/team-payouts/unpaid-time?scope=all&sort=-entryDate', unpaidRow),
    ).toBeGreaterThan(1);
    await screenshot(page, 'figures-payouts-desktop');
    expect(errors).toEqual([]);
    await context.close();

    const phone = await open(PHONE);
    await goTo(phone.page, '#/payouts', 'unpaid');
    await phone.page.getByTestId('bills-outstanding').waitFor();
    await expectNoOverflow(phone.page);
    await screenshot(phone.page, 'figures-payouts-phone');
    expect(phone.errors).toEqual([]);
    await phone.context.close();
  });

  it('shows each range the API answers for: the presets and two days', async () => {
    const { context, page, errors } = await open();
    await goTo(page, '#/profitability', 'shown-range');
    const current = (await api('/team-payouts/profitability?perPage=1')).data as Body;
    const thisMonth = { from: current.from as string, to: current.to as string };
    const startMonth = Number(thisMonth.from.slice(5, 7));
    const expected: Record<(typeof PRESETS)[number], { from: string; to: string }> = {
      'this-month': thisMonth,
      'last-month': month(thisMonth.from, -1),
      'this-quarter': {
        from: month(thisMonth.from, -((startMonth - 1) % 3)).from,
        to: month(thisMonth.from, 2 - ((startMonth - 1) % 3)).to,
      },
      'year-to-date': { from: `${thisMonth.from.slice(0, 4)}-01-01`, to: thisMonth.to },
      'last-12-months': { from: month(thisMonth.from, -11).from, to: thisMonth.to },
    };
    await expectProfitability(page);
    for (const preset of PRESETS) {
      if (preset !== 'this-month')
        await redrawn(page, 'shown-range', () => page.selectOption('#range', preset));
      const shown = page.getByTestId('shown-range');
      expect(
        { from: await shown.getAttribute('data-from'), to: await shown.getAttribute('data-to') },
        preset,
      ).toEqual(expected[preset]);
      await expectProfitability(page);
    }
    // Two days of choice, spanning three months.
    await page.selectOption('#range', 'custom');
    const from = monthDay(-2, 15);
    const to = monthDay(0, 1);
    await page.fill('#from', from);
    await page.fill('#to', to);
    await redrawn(page, 'shown-range', () => page.getByRole('button', { name: 'Show' }).click());
    expect(await page.getByTestId('shown-range').getAttribute('data-from')).toBe(from);
    expect(await page.getByTestId('shown-range').getAttribute('data-to')).toBe(to);
    const report = await expectProfitability(page);
    expect(report.memberTotal).toBeGreaterThan(25);
    // Names with markup are text: no element was made of them.
    expect(
      await page.locator('[data-testid="members"] b, [data-testid="members"] img').count(),
    ).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('filters by member, project and client as the API does', async () => {
    const { context, page, errors } = await open();
    await goTo(page, '#/profitability?range=last-month', 'shown-range');
    await expectProfitability(page);
    const user = snapshot.users.find((u) => u.name === AWKWARD_NAMES[0])!;
    const project = snapshot.projects[1]!;
    const client = snapshot.clients[2]!;
    // The options are named as typed.
    await redrawn(page, 'shown-range', () => page.selectOption('#userId', { label: user.name }));
    let report = await expectProfitability(page, { userId: user.id });
    expect((report.members as Body[]).map((m): unknown => m.userId)).toEqual([user.id]);
    await redrawn(page, 'shown-range', () => page.selectOption('#userId', ''));
    await redrawn(page, 'shown-range', () =>
      page.selectOption('#projectId', { label: project.name }),
    );
    report = await expectProfitability(page, { projectId: project.id });
    expect(report.memberTotal).toBeGreaterThan(1);
    await redrawn(page, 'shown-range', () =>
      page.selectOption('#clientId', { label: client.name }),
    );
    // Project and client together: the API's answer to both.
    report = await expectProfitability(page, { projectId: project.id, clientId: client.id });
    await redrawn(page, 'shown-range', () => page.selectOption('#projectId', ''));
    report = await expectProfitability(page, { clientId: client.id });
    expect(report.memberTotal).toBeGreaterThan(1);
    // A KWD amount of three decimals past 2^53 in the member's own currency, every digit.
    const native = (await readTable(page, '[data-testid="members"]')).map(
      (r) => r.cells.native!.text,
    );
    expect(native.join('\n')).toContain(`Compensation cost ${money(HUGE_KWD, 'KWD')}`);
    expect(money(HUGE_KWD, 'KWD')).toMatch(/^KWD\s12,345,678,901,234\.567$/);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('pages through the members and opens their projects as the API lists them', async () => {
    const { context, page, errors } = await open();
    await goTo(page, '#/profitability?range=last-month', 'shown-range');
    const first = await expectProfitability(page);
    expect(first.memberTotal).toBeGreaterThan(25);
    expect(await page.getByTestId('members-previous').isDisabled()).toBe(true);
    await redrawn(page, 'shown-range', () => page.getByTestId('members-next').click());
    const second = await expectProfitability(page, { page: 2 });
    expect(second.members.length).toBe(first.memberTotal - 25);
    expect(await page.getByTestId('members-next').isDisabled()).toBe(true);
    await redrawn(page, 'shown-range', () => page.getByTestId('members-previous').click());
    const again = await expectProfitability(page);
    expect(again).toEqual(first);

    for (const member of first.members as Body[]) {
      const row = page.locator(`[data-testid="members"] tr[data-user-id="${member.userId}"]`);
      const drill = row.getByTestId('drill');
      await drill.click();
      expect(await drill.getAttribute('aria-expanded')).toBe('true');
      // A member's projects are its drill-down, asked for when it opens.
      const projects = `[data-testid="members"] tr[data-user-id="${member.userId}"] + tr.projects [data-testid="member-projects"]`;
      await page.locator(projects).waitFor();
      expect(await readTable(page, projects)).toEqual(
        (member.projects as Body[]).map((p) => ({
          userId: null,
          cells: metricsCells(p, first.baseCurrency, 'projectName'),
        })),
      );
    }
    expect(await page.getByTestId('member-projects').count()).toBe(first.members.length);
    // A second click closes the projects again.
    const firstRow = page.locator(
      `[data-testid="members"] tr[data-user-id="${first.members[0].userId}"]`,
    );
    await firstRow.getByTestId('drill').click();
    expect(await page.getByTestId('member-projects').count()).toBe(first.members.length - 1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('redraws only the parts of the profitability view whose answers changed', async () => {
    const { context, page, errors } = await open();
    await goTo(page, '#/profitability?range=last-month', 'shown-range');
    const { from, to } = await expectProfitability(page);
    const parts = ['controls', 'range', 'figures', 'charts', 'members', 'loose', 'exports'];
    expect(
      await page
        .locator('#main > [data-part]')
        .evaluateAll((els) => els.map((e) => e.dataset.part)),
    ).toEqual(parts);
    // Marks every part, then waits for the view to be drawn from newer data (its poll of the
    // data's freshness), and says which parts were drawn anew.
    const redrawnAfter = async (write: string, values: unknown[]) => {
      const before = await page.locator('#main').getAttribute('data-drawn-from');
      await page
        .locator('#main > [data-part]')
        .evaluateAll((els) => els.forEach((e) => e.setAttribute('data-stale', '')));
      await harness.pool.query(write, values);
      await harness.sync();
      await page.waitForFunction(
        (before) => document.getElementById('main')!.dataset.drawnFrom !== before,
        before,
        { timeout: 20_000 },
      );
      return page
        .locator('#main > [data-part]:not([data-stale])')
        .evaluateAll((els) => els.map((e) => e.dataset.part));
    };
    const { rows } = await harness.pool.query<{ id: string }>(
      `SELECT id FROM time_entries WHERE entry_date BETWEEN $1 AND $2 AND deleted_at IS NULL
       AND NOT is_running ORDER BY id LIMIT 1`,
      [from, to],
    );
    const entry = rows[0]!.id;
    // A change no figure shows: the data moved, nothing is drawn again.
    expect(
      await redrawnAfter(
        `UPDATE time_entries SET note = coalesce(note, '') || '.', updated_at = now() WHERE id = $1`,
        [entry],
      ),
    ).toEqual([]);
    // The entry moved out of the range (a year back): its figures, charts and members change;
    // the rest stays as it was.
    const changed = await redrawnAfter(
      `UPDATE time_entries SET entry_date = entry_date - 365, updated_at = now() WHERE id = $1`,
      [entry],
    );
    expect(changed).toEqual(expect.arrayContaining(['figures', 'members']));
    expect(changed.filter((p) => ['controls', 'range', 'exports'].includes(p ?? ''))).toEqual([]);
    await expectProfitability(page);
    // Back where it was, for the tests after this one.
    expect(
      await redrawnAfter(
        `UPDATE time_entries SET entry_date = entry_date + 365, updated_at = now() WHERE id = $1`,
        [entry],
      ),
    ).toEqual(expect.arrayContaining(['figures', 'members']));
    expect(errors).toEqual([]);
    await context.close();
  });

  it('draws the profitability view at desktop and phone width, with a drill-down open', async () => {
    for (const [viewport, name] of [
      [DESKTOP, 'desktop'],
      [PHONE, 'phone'],
    ] as const) {
      const { context, page, errors } = await open(viewport);
      await goTo(page, '#/profitability?range=last-12-months', 'shown-range');
      await expectProfitability(page);
      await expectNoOverflow(page);
      await screenshot(page, `figures-profitability-${name}`);
      await page.getByTestId('drill').first().click();
      await page.getByTestId('member-projects').waitFor();
      await expectNoOverflow(page);
      await screenshot(page, `figures-profitability-drill-${name}`);
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it('says what the figures leave out: amounts without an FX rate, time without a pay rate', async () => {
    for (const [viewport, name] of [
      [DESKTOP, 'desktop'],
      [PHONE, 'phone'],
    ] as const) {
      const { context, page, errors } = await open(viewport, TOKENS.owner);
      const summary = (await api('/team-payouts/summary', TOKENS.owner)).data as Body;
      expect(summary.missingRateCount).toBeGreaterThan(0);
      await expectPayoutCards(page, summary);
      expect(await page.getByTestId('payout-missing-rates-warning').textContent()).toContain(
        `${summary.missingRateCount} payee`,
      );
      await screenshot(page, `figures-warnings-overview-${name}`);
      await goTo(
        page,
        `#/profitability?range=custom&from=${warnedMonth.from}&to=${warnedMonth.to}`,
        'shown-range',
      );
      const report = (
        await api(
          `/team-payouts/profitability?${query({ ...warnedMonth, perPage: 25 })}`,
          TOKENS.owner,
        )
      ).data as Body;
      expect(report.missingFx.length).toBeGreaterThan(0);
      expect(report.missingRateCount).toBeGreaterThan(0);
      const warnings = page.getByTestId('profitability-warnings');
      const fx = await warnings.getByTestId('warning-missing-fx').allTextContents();
      expect(fx).toHaveLength(report.missingFx.length);
      (report.missingFx as Body[]).forEach((m, i) => {
        expect(fx[i]).toContain(`No ${m.fromCurrency} → ${m.toCurrency} rate`);
        expect(fx[i]).toContain(money(m.amount, m.fromCurrency));
        expect(fx[i]).toContain(LABELS[m.metric]!.toLowerCase());
      });
      expect(await warnings.getByTestId('warning-missing-rates').textContent()).toContain(
        `${report.missingRateCount} member`,
      );
      await expectProfitability(page, {}, TOKENS.owner);
      await expectNoOverflow(page);
      await screenshot(page, `figures-warnings-profitability-${name}`);
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it('downloads every export of the range shown: CSV byte for byte, Parquet row for row', async () => {
    const { context, page, errors } = await open();
    await goTo(page, '#/profitability?range=last-month', 'shown-range');
    const shown = page.getByTestId('shown-range');
    const from = (await shown.getAttribute('data-from'))!;
    const to = (await shown.getAttribute('data-to'))!;
    const reports = [
      'profitability-members',
      'profitability-projects',
      'time-entries',
      'bills',
      'payments',
      'unpaid-time',
    ];
    for (const report of reports)
      for (const format of ['csv', 'parquet'] as const) {
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByTestId(`export-${report}-${format}`).click(),
        ]);
        const file = await download.path();
        const res = await harness.app.inject({
          url: `/api/v1/exports/${report}?${query({ format, from, to })}`,
          headers: { authorization: `Bearer ${FIGURES_TOKEN}` },
        });
        expect(res.statusCode, `${report}.${format}`).toBe(200);
        expect(download.suggestedFilename()).toBe(
          /filename="([^"]+)"/.exec(String(res.headers['content-disposition']))![1],
        );
        const bytes = await readFile(file);
        if (format === 'csv') {
          expect(bytes.equals(res.rawPayload), report).toBe(true);
          if (report === 'profitability-members')
            for (const name of AWKWARD_NAMES)
              expect(bytes.toString('utf8')).toContain(
                /[",\n]/.test(name) ? `"${name.replaceAll('"', '""')}"` : name,
              );
        } else {
          // Parquet's bytes name its writer and are not promised identical: the rows are.
          const answered = `${file}.answered.parquet`;
          await writeFile(answered, res.rawPayload);
          const rows = await parquetRows(file);
          expect(rows, report).toEqual(await parquetRows(answered));
          if (report === 'profitability-members') expect(rows.length).toBeGreaterThan(0);
        }
      }
    expect(errors).toEqual([]);
    await context.close();
  });

  // Last: it changes the store.
  it('follows a change in the store: the time of data and the figures move to the new answer', async () => {
    const { context, page, errors } = await open();
    const asOf = page.getByTestId('data-as-of');
    const before = await asOf.getAttribute('data-value');
    const oldReport = (await api('/team-payouts/profitability?perPage=1')).data as Body;
    await expectSummary(page, oldReport);
    const entry = snapshot.timeEntries.find(
      (e) =>
        (e as Body).entryDate === monthDay(0, 1) &&
        (e as Body).billable === true &&
        (e as Body).userId === snapshot.users[4]!.id,
    ) as Body;
    await harness.pool.query(
      'UPDATE time_entries SET duration_seconds = duration_seconds + 36000 WHERE id = $1',
      [entry.id],
    );
    await harness.sync();
    const res = await apiRequest(harness.app, {
      method: 'GET',
      path: '/team-payouts/profitability?perPage=1',
      token: FIGURES_TOKEN,
    });
    const after = String(res.headers['x-data-as-of']);
    expect(after > before!).toBe(true);
    const newReport = res.body.data as Body;
    expect(newReport.summary.compensationCost).not.toBe(oldReport.summary.compensationCost);
    // The page asks every five seconds whether the data moved.
    await page.locator(`[data-testid="data-as-of"][data-value="${after}"]`).waitFor({
      timeout: 15_000,
    });
    expect(await asOf.textContent()).toBe(
      `Data as of ${new Date(after).toLocaleString('en-US', { timeZone: 'UTC' })}`,
    );
    await page
      .locator(
        `[data-testid="summary-compensationCost"][data-value="${newReport.summary.compensationCost}"]`,
      )
      .waitFor({ timeout: 15_000 });
    await expectSummary(page, newReport);
    await expectPayoutCards(page, (await api('/team-payouts/summary')).data as Body);
    expect(errors).toEqual([]);
    await context.close();
  });
});

/** A Parquet file's rows as text, in a fixed order, read by DuckDB. */
async function parquetRows(file: string): Promise<string[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(
      'SELECT CAST(t AS VARCHAR) AS row FROM read_parquet($1) t ORDER BY row',
      [file],
    );
    return reader.getRows().map((r) => String(r[0]));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
