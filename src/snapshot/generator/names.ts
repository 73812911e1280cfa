/** Word lists the generator draws names and notes from (a few with accents, on purpose). */

/** Splits a comma-separated word list. */
function list(words: string): readonly string[] {
  return words.split(', ');
}

export const WORKSPACE_NAMES = [
  'Northwind Studio',
  'Bright Harbor Agency',
  'Kestrel & Finch',
  'Studio Lumen',
  'Paper Crane Digital',
  'Fieldwork Collective',
  'Atlas Made',
  'Copper Lane Creative',
];

export const FIRST_NAMES = list(
  'Ada, Grace, Alan, Katherine, Linus, Margaret, Dennis, Barbara, Ken, Frances, Edsger, Hedy, Niklaus, Radia, Tim, Annie, John, Karen, Donald, Sophie, Björn, Zoë, Mateo, Amélie, Yuki, Priya, Omar, Lena, Jonas, Chiara, Emeka, Ingrid, Rafael, Mei, Tomás, Aisha, Pavel, Nora, Kenji, Fatima',
);

export const LAST_NAMES = list(
  'Lovelace, Hopper, Turing, Johnson, Torvalds, Hamilton, Ritchie, Liskov, Thompson, Allen, Dijkstra, Lamarr, Wirth, Perlman, Berners-Lee, Easley, Backus, Spärck Jones, Knuth, Wilson, Andersson, Müller, García, Dubois, Tanaka, Sharma, Haddad, Schmidt, Novak, Rossi, Okafor, Larsen, Costa, Chen, Fernández, Rahman, Ivanov, Byrne, Sato, Benali',
);

export const COMPANY_WORDS = list(
  'Globex, Initech, Umbrella, Hooli, Vandelay, Soylent, Stark, Wayne, Tyrell, Cyberdyne, Wonka, Acme, Gringotts, Monarch, Oscorp, Pied Piper, Aperture, Blue Sun, Massive Dynamic, Nakatomi, Duff, Gekko, Dunder Mifflin, Sterling',
);

export const COMPANY_SUFFIXES = list('GmbH, Ltd, Inc., KK, Group, AG, LLC, S.A., Co.');

export const CITIES = list(
  'Berlin, London, New York, Tokyo, Kuwait City, Paris, Madrid, Vienna, Osaka, Boston, Manchester, Munich',
);

export const PROJECT_NAMES = list(
  'Website relaunch, Brand refresh, Mobile app, Design system, Q3 campaign, E-commerce platform, Data migration, Customer portal, Analytics dashboard, Onboarding flow, Annual report, Trade fair booth, SEO audit, Support retainer, API integration, Packaging design, Video series, Accessibility review',
);

export const PROJECT_COLORS = list('#4f46e5, #0ea5e9, #10b981, #f59e0b, #ef4444, #8b5cf6');

export const TASK_NAMES = list(
  'Discovery, Design, Development, QA, Project management, Meetings, Content, Copywriting, Research, Deployment, Code review, Workshops, Illustration',
);

export const TASK_TAGS = list('frontend, backend, ux, urgent, client-request, internal');

export const ENTRY_NOTES = [
  'Kick-off call',
  'Wireframes for the landing page',
  'Fixed checkout bug',
  'Review with the client',
  'Refactored "cart" module',
  'Weekly sync',
  'Prepared handover notes',
  'Stakeholder interviews',
  'Performance tuning',
  'Copy edits, round 2',
  'Café meeting with marketing',
  'Sprint planning',
];

export const EXPENSE_DESCRIPTIONS: Record<string, readonly string[]> = {
  TRAVEL: ['Train to client site', 'Flight to kick-off', 'Taxi from airport'],
  MEALS: ['Workshop lunch', 'Team dinner with client'],
  LODGING: ['Hotel, two nights', 'Hotel near venue'],
  SOFTWARE: ['Font licence', 'Stock photo subscription', 'Testing service'],
  EQUIPMENT: ['Test devices', 'Camera rental'],
  SUBCONTRACTOR: ['Freelance illustrator', 'Translation service'],
  OTHER: ['Printing', 'Courier'],
};

export const OTHER_LINE_DESCRIPTIONS = [
  'Hosting and maintenance',
  'Monthly retainer',
  'Rush fee',
  'Licence pass-through',
];

export const BILL_BONUS_REASONS = ['Performance bonus', 'Travel allowance', 'Weekend on-call'];
export const BILL_DEDUCTION_REASONS = ['Equipment deduction', 'Advance repayment'];
export const VOID_REASONS = ['Wrong rate applied', 'Duplicate of another bill', 'Hours corrected'];
export const REVERSAL_REASONS = ['Bounced: wrong IBAN', 'Sent to the wrong account', 'Bank recall'];
export const CREDIT_REASONS = ['Advance', 'Overpayment carried forward', 'Signing bonus'];
