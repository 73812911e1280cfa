import { Money } from '../../money/money.ts';
import { amountOf, hourlyRateIn, priceIn, type GeneratedCurrency } from './amounts.ts';
import { addMonths, isoDate } from './calendar.ts';
import type { Generation } from './context.ts';
import type { PayeeModel, PayeeRateModel, Role, UserModel } from './model.ts';
import { CREDIT_REASONS, FIRST_NAMES, LAST_NAMES } from './names.ts';
import type { Random } from './random.ts';

/**
 * Users with their member roles: exactly one OWNER (the first user), then ~5% ADMIN and
 * ~12% MANAGER (at least one each), the rest MEMBER (at least one).
 */
export function buildUsers(g: Generation, domain: string): UserModel[] {
  const rng = g.setupRandom;
  const count = g.settings.members;
  const admins = Math.max(1, Math.round(count * 0.05));
  const managers = Math.max(1, Math.round(count * 0.12));
  const emails = new Set<string>();
  const users: UserModel[] = [];
  for (let index = 0; index < count; index++) {
    const first = rng.pick(FIRST_NAMES);
    const last = rng.pick(LAST_NAMES);
    const name = `${first} ${last}`;
    users.push({
      index,
      id: rng.uuid(),
      name,
      nameJson: JSON.stringify(name),
      email: uniqueEmail(emails, `${slug(first)}.${slug(last)}`, domain),
      role: roleOf(index, admins, managers),
      weight: rng.pick([10, 10, 10, 8, 5]),
      projects: [],
      runsTimer: index % 4 === 1,
      payee: null,
    });
  }
  return users;
}

function roleOf(index: number, admins: number, managers: number): Role {
  if (index === 0) return 'OWNER';
  if (index <= admins) return 'ADMIN';
  return index <= admins + managers ? 'MANAGER' : 'MEMBER';
}

/** Lower-case ASCII letters and digits of a name ("Zoë Spärck Jones" -> "zoesparckjones"). */
export function slug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

function uniqueEmail(taken: Set<string>, local: string, domain: string): string {
  let email = `${local}@${domain}`;
  for (let n = 2; taken.has(email); n++) email = `${local}${n}@${domain}`;
  taken.add(email);
  return email;
}

export async function writeUsersAndMembers(g: Generation, users: UserModel[]): Promise<void> {
  for (const user of users) {
    await g.record('user', { id: user.id, name: user.name, email: user.email });
  }
  for (const user of users) await g.record('member', { userId: user.id, role: user.role });
}

/**
 * Exactly four test tokens, one per role, each owned by the first member with that role:
 * `tt_test_<prefix12>_<secret32>`, base62 from the seed.
 */
export async function writeTokens(g: Generation, users: UserModel[]): Promise<void> {
  for (const role of ['OWNER', 'ADMIN', 'MANAGER', 'MEMBER'] as const) {
    const owner = users.find((u) => u.role === role);
    if (!owner) throw new Error(`no member with role ${role}`);
    const token = `tt_test_${g.setupRandom.base62(12)}_${g.setupRandom.base62(32)}`;
    await g.record('token', { token, userId: owner.id, scopes: ['read', 'write'] });
  }
}

// The first payees get these currencies so even a tiny workspace pays in several.
const FIRST_PAYEE_CURRENCIES: GeneratedCurrency[] = ['EUR', 'GBP', 'USD', 'EUR', 'JPY', 'KWD'];
const PAYEE_CURRENCIES: GeneratedCurrency[] = ['EUR', 'USD', 'GBP', 'JPY', 'KWD'];
const PAYEE_CURRENCY_WEIGHTS = [70, 10, 10, 5, 5];
const BASE_PAY_EURO = [30, 35, 40, 45, 50, 55, 60, 70, 80];

/**
 * Payees for most members: never the owner, and ~8% of the others have none. Which payee
 * shows which edge case is fixed for the first ones (so a small workspace has them all)
 * and drawn for the rest: payee #1 starts mid-range (after their first entries), #2 gets
 * their first rate only after their start (entries without a rate), #3 changes currency.
 */
export function buildPayees(g: Generation, users: UserModel[]): PayeeModel[] {
  const rng = g.setupRandom;
  const payees: PayeeModel[] = [];
  for (const user of users) {
    if (user.role === 'OWNER' || rng.chance(0.08)) continue;
    const k = payees.length;
    const currency =
      FIRST_PAYEE_CURRENCIES[k] ?? PAYEE_CURRENCIES[rng.weighted(PAYEE_CURRENCY_WEIGHTS)] ?? 'EUR';
    const startDay = payeeStartDay(g, rng, k === 1 || (k > 5 && rng.chance(0.2)));
    const payee: PayeeModel = { id: rng.uuid(), userIndex: user.index, startDay, rates: [] };
    payee.rates = payeeRates(g, payee, currency, {
      lateFirstRate: k === 2 || (k > 5 && rng.chance(0.1)),
      switchCurrency: k === 3 || (k > 5 && rng.chance(0.12)),
    });
    user.payee = payee;
    payees.push(payee);
  }
  return payees;
}

/** Mid-range: 2-8 months into the range. Otherwise before the range, or no start date. */
function payeeStartDay(g: Generation, rng: Random, midRange: boolean): number | null {
  if (midRange) return addMonths(g.rangeStart, rng.between(2, 8)) + rng.between(0, 20);
  if (rng.chance(0.12)) return null;
  return g.rangeStart - rng.between(1, 400);
}

/**
 * 2-4 rates, each 3-7 months after the previous one and 3-12% higher. A rate that switches
 * currency takes effect on the first of a month, so one month of work is in one currency
 * (one bill per payee and month). The first rate is on the first of a month at or before
 * the range start, or, with `lateFirstRate`, 1-3 months after the payee's start.
 */
function payeeRates(
  g: Generation,
  payee: PayeeModel,
  firstCurrency: GeneratedCurrency,
  options: { lateFirstRate: boolean; switchCurrency: boolean },
): PayeeRateModel[] {
  const rng = g.setupRandom;
  const begin = Math.max(payee.startDay ?? g.rangeStart, g.rangeStart);
  let fromDay = options.lateFirstRate
    ? addMonths(begin, rng.between(1, 3)) + rng.between(0, 14)
    : addMonths(g.rangeStart, -rng.between(0, 12));
  let currency = firstCurrency;
  let euro = new Money(rng.pick(BASE_PAY_EURO));
  const rates: PayeeRateModel[] = [];
  const count = rng.between(2, 4);
  for (let i = 0; i < count; i++) {
    if (i > 0) {
      const switching = i === 1 ? options.switchCurrency : rng.chance(0.05);
      if (switching) currency = currency === 'EUR' ? rng.pick(['USD', 'GBP'] as const) : 'EUR';
      fromDay = addMonths(fromDay, rng.between(3, 7)) + (switching ? 0 : rng.between(0, 20));
      euro = euro.times(100 + rng.between(3, 12)).div(100);
    }
    const hourlyRate = hourlyRateIn(euro.toFixed(4), currency);
    rates.push({
      id: rng.uuid(),
      fromDay,
      hourlyRate,
      currency,
      key: g.rates.intern(hourlyRate, currency),
    });
  }
  return rates;
}

export async function writePayees(
  g: Generation,
  users: UserModel[],
  payees: PayeeModel[],
): Promise<void> {
  for (const payee of payees) {
    const user = users[payee.userIndex];
    if (!user) throw new Error('payee without user');
    await g.record('payee', {
      id: payee.id,
      userId: user.id,
      name: user.name,
      email: user.email,
      startDate: payee.startDay === null ? null : isoDate(payee.startDay),
      rates: payee.rates.map((r) => ({
        id: r.id,
        effectiveFrom: isoDate(r.fromDay),
        hourlyRate: r.hourlyRate,
        currency: r.currency,
      })),
      credits: payeeCredits(g, payee),
    });
  }
}

/** Every fifth payee holds a credit (an advance) in their first currency; remaining <= amount. */
function payeeCredits(g: Generation, payee: PayeeModel): object[] {
  const rng = g.setupRandom;
  const currency = payee.rates[0]?.currency;
  if (currency === undefined || g.nth('payee credit') % 5 !== 1) return [];
  const amount = priceIn(rng.between(2, 10) * 50, currency);
  const share = rng.pick([0, 100, rng.between(10, 90)]);
  const remaining = amountOf(amount.value.times(share).div(100), currency);
  return [
    {
      id: rng.uuid(),
      currency,
      amount: amount.text,
      remaining: remaining.text,
      reason: rng.pick(CREDIT_REASONS),
    },
  ];
}
