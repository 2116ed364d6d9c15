import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Table types, camelCase (CamelCasePlugin maps them to snake_case columns).
 * The source of truth for row shapes: domain types derive from these.
 *
 * Glossary: org = workspace; site = project; micros = integer micro-dollars.
 */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;

export type Plan = 'free' | 'starter' | 'pro' | 'enterprise';
export type Role = 'owner' | 'admin' | 'member' | 'viewer';
export type KeyRole = Exclude<Role, 'owner'>;

export interface OrgsTable {
  id: Generated<number>;
  name: string;
  plan: ColumnType<Plan, Plan | undefined, Plan>;
  limitSites: number | null;
  limitPromptsPerSite: number | null;
  limitScansPerMonth: number | null;
  limitMembers: number | null;
  balanceMicros: Generated<number>;
  reservedMicros: Generated<number>;
  reportName: string | null;
  reportLogo: string | null;
  /** Months of answers kept before the current one; null keeps everything (domain/facts/retention.ts). */
  retentionMonths: number | null;
  /** balance.low fires when the balance falls under this; null: 10% of the last top-up (domain/webhooks). */
  balanceAlertMicros: ColumnType<number | null, number | null | undefined, number | null>;
  createdAt: CreatedAt;
}

export interface UsersTable {
  id: Generated<number>;
  email: string;
  name: string;
  createdAt: CreatedAt;
}

export interface MembershipsTable {
  orgId: number;
  userId: number;
  role: Role;
  createdAt: CreatedAt;
}

export interface InvitationsTable {
  id: Generated<number>;
  orgId: number;
  email: string;
  role: KeyRole;
  status: ColumnType<'pending' | 'accepted' | 'cancelled', 'pending' | undefined, 'pending' | 'accepted' | 'cancelled'>;
  tokenHash: string;
  invitedBy: number | null;
  createdAt: CreatedAt;
}

export interface ApiKeysTable {
  id: Generated<number>;
  orgId: number;
  createdBy: number;
  name: string;
  prefix: string;
  keyHash: string;
  role: KeyRole;
  lastUsedAt: Timestamp | null;
  revokedAt: Timestamp | null;
  createdAt: CreatedAt;
}

export interface SitesTable {
  id: Generated<number>;
  orgId: number;
  name: string;
  url: string;
  domain: string;
  industry: string | null;
  brandTerms: ColumnType<string[], string[] | undefined, string[]>;
  language: ColumnType<string, string | undefined, string>;
  location: ColumnType<string, string | undefined, string>;
  scanFrequencyDays: ColumnType<number, number | undefined, number>;
  monthlyCapMicros: number | null;
  scanSettings: ColumnType<ScanSettingsJson, string | undefined, string>;
  allowedProviders: string[] | null;
  scheduleEnabled: ColumnType<boolean, boolean | undefined, boolean>;
  scheduleBatch: ColumnType<boolean, boolean | undefined, boolean>;
  nextScanAt: Timestamp | null;
  brandVersion: ColumnType<number, number | undefined, number>;
  /** Phrases in which the brand's names never count ("Amazon rainforest"). */
  excludePhrases: ColumnType<string[], string[] | undefined, string[]>;
  createdBy: number | null;
  createdAt: CreatedAt;
  updatedAt: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** Stored form of a site's saved scan settings (money in micros). */
export interface ScanSettingsJson {
  providers?: string[];
  models?: Record<string, string>;
  category?: string;
  budgetMicros?: number;
  skipAtCap?: boolean;
  /** Answers per prompt and assistant in each scan (1 to 5; 1 when unset). */
  samples?: number;
}

export interface CompetitorsTable {
  id: Generated<number>;
  siteId: number;
  name: string;
  domain: string | null;
  aliases: ColumnType<string[], string[] | undefined, string[]>;
  /** Phrases in which this competitor's names never count. */
  excludePhrases: ColumnType<string[], string[] | undefined, string[]>;
  color: string | null;
  logo: string | null;
  createdAt: CreatedAt;
}

export interface PersonasTable {
  id: Generated<number>;
  siteId: number;
  name: string;
  context: string;
  createdAt: CreatedAt;
  updatedAt: ColumnType<Date, Date | string | undefined, Date | string>;
}

export type SiteEventType = 'site' | 'model' | 'campaign' | 'other';

export interface SiteEventsTable {
  id: Generated<number>;
  siteId: number;
  title: string;
  /** YYYY-MM-DD */
  date: string;
  type: SiteEventType;
  note: string | null;
  createdAt: CreatedAt;
}

/** A revocable public link to a site's report (variant A); only the token's SHA-256 is stored. */
export interface ShareLinksTable {
  id: Generated<number>;
  siteId: number;
  tokenHash: string;
  tokenPrefix: string;
  label: string | null;
  createdBy: number | null;
  createdAt: CreatedAt;
  revokedAt: Timestamp | null;
}

export interface CategoriesTable {
  id: Generated<number>;
  siteId: number;
  name: string;
  createdAt: CreatedAt;
}

export type Intent = 'informational' | 'navigational' | 'commercial' | 'transactional';
export type Funnel = 'awareness' | 'consideration' | 'decision';
export type PromptStatus = 'draft' | 'active' | 'paused';

export interface PromptsTable {
  id: Generated<number>;
  siteId: number;
  text: string;
  intent: ColumnType<Intent, Intent | undefined, Intent>;
  funnel: ColumnType<Funnel, Funnel | undefined, Funnel>;
  status: ColumnType<PromptStatus, PromptStatus | undefined, PromptStatus>;
  personaId: number | null;
  raw: ColumnType<boolean, boolean | undefined, boolean>;
  createdBy: number | null;
  createdAt: CreatedAt;
  updatedAt: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface PromptCategoriesTable {
  promptId: number;
  categoryId: number;
}

export type ScanStatus = 'queued' | 'running' | 'cancelling' | 'cancelled' | 'done' | 'failed';
export type ScanTrigger = 'manual' | 'schedule' | 'import';
export type StopReason = 'budget' | 'cap' | 'balance' | 'cancelled' | 'error';
export type Verdict = 'failed' | 'cited' | 'named' | 'lost' | 'missing';
export type Tone = 'positive' | 'neutral' | 'negative';

/** Stored form of what a scan asks: frozen when it starts. */
export interface ScanPlanJson {
  providers?: string[];
  models?: Record<string, string>;
  promptIds?: number[];
  category?: string | null;
  sample?: number | null;
  /** Answers per prompt and assistant (1 when unset: scans before samples). */
  samples?: number;
  /** Providers the bundled simulator answered for (not the real service). */
  simulated?: string[];
  /** Providers whose answers are not charged (simulated in `auto` mode: src/domain/providers/providers.ts answersFree). */
  free?: string[];
}

export interface ScansTable {
  id: Generated<number>;
  orgId: number;
  siteId: number;
  status: ColumnType<ScanStatus, ScanStatus | undefined, ScanStatus>;
  trigger: ColumnType<ScanTrigger, ScanTrigger | undefined, ScanTrigger>;
  label: string | null;
  batch: ColumnType<boolean, boolean | undefined, boolean>;
  plan: ColumnType<ScanPlanJson, string | undefined, string>;
  budgetMicros: ColumnType<number, number | undefined, number>;
  spentMicros: ColumnType<number, number | undefined, number>;
  reservedMicros: ColumnType<number, number | undefined, number>;
  cancelRequestedAt: Timestamp | null;
  stopReason: StopReason | null;
  answersTotal: ColumnType<number, number | undefined, number>;
  answersDone: ColumnType<number, number | undefined, number>;
  answersFailed: ColumnType<number, number | undefined, number>;
  error: string | null;
  createdBy: number | null;
  createdAt: CreatedAt;
  startedAt: Timestamp | null;
  finishedAt: Timestamp | null;
}

/** A cited source as stored with an answer. */
export interface CitationJson {
  url: string;
  title: string | null;
  /** The provider's own source domain where the URL hides it (Gemini's redirect links). */
  domain?: string;
  startIndex?: number;
  endIndex?: number;
  citedText?: string;
}

export interface AnswersTable {
  id: Generated<number>;
  scanId: number;
  siteId: number;
  promptId: number;
  provider: string;
  model: string;
  askedAt: Timestamp;
  day: string;
  text: string | null;
  citations: ColumnType<CitationJson[], string | undefined, string>;
  searches: ColumnType<string[], string | undefined, string>;
  usage: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  raw: ColumnType<unknown, string | null | undefined, string | null>;
  costMicros: ColumnType<number, number | undefined, number>;
  error: string | null;
  truncated: ColumnType<boolean, boolean | undefined, boolean>;
  context: string | null;
  /** Answered by the bundled simulator, not the provider. */
  simulated: ColumnType<boolean, boolean | undefined, boolean>;
  /** Which of the scan's asks of this prompt and assistant (1 to 5). */
  sample: ColumnType<number, number | undefined, number>;
  /** First day of the UTC month its scan was created in: the partition key (migration 20261127T1300), never changed. */
  month: ColumnType<string, string, never>;
}

/** One brand named in an answer, in rank order. */
export interface BrandJson {
  name: string;
  kind: 'brand' | 'competitor';
  competitorId: number | null;
  position: number;
}

/** A citation as analysis classified it. */
export interface FactCitationJson {
  url: string;
  normalizedUrl: string;
  title: string | null;
  domain: string;
  siteType: string;
  competitorId: number | null;
}

export interface AnswerFactsTable {
  answerId: number;
  siteId: number;
  promptId: number;
  provider: string;
  day: string;
  verdict: Verdict;
  mentioned: boolean;
  ownCited: boolean;
  brandRank: number | null;
  brandPosition: number | null;
  brands: ColumnType<BrandJson[], string, string>;
  competitorsNamed: number[];
  competitorsCited: number[];
  citations: ColumnType<FactCitationJson[], string, string>;
  tone: Tone | null;
  toneScore: number | null;
  quote: string | null;
  suggestions: string[];
  brandKey: string;
  /** Its answer's month (the partition key). */
  month: ColumnType<string, string, never>;
  /** Characters of the text the facts were read from; null for facts written before analysis was capped (the whole text). */
  readChars: number | null;
  /** The text is longer than analysis reads (ANALYSIS_MAX_CHARS). */
  readTruncated: ColumnType<boolean, boolean | undefined, boolean>;
  /** Analysis did not finish within its time limit: the facts name nothing. */
  readTimedOut: ColumnType<boolean, boolean | undefined, boolean>;
  /** How each tracked name that occurs was read (src/analysis/readings.ts); null on facts written before readings were kept. */
  nameReadings: ColumnType<NameReadingJson[] | null, string | null, string | null>;
}

/** One name's reading in one answer, as stored (AnswerFacts.names): offsets are UTF-16 units of the answer's text. */
export interface NameReadingJson {
  name: string;
  entity: 'brand' | number;
  counted: number;
  refused: number;
  countedAt?: [number, number];
  refusedAt?: [number, number];
}

/** A reader's correction of one answer's reading (migration 20261128T0930): one per (answer, folded name). */
export interface MentionFeedbackTable {
  id: Generated<number>;
  siteId: number;
  answerId: number;
  answerMonth: string;
  /** As given, trimmed. */
  name: string;
  /** Folded as the brand book compares names. */
  nameKey: string;
  mentioned: boolean;
  /** Whether the reading, without this correction, said what the reader said. */
  readingAgreed: boolean;
  userId: number | null;
  keyId: number | null;
  createdAt: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface RollupSiteDayTable {
  siteId: number;
  day: string;
  provider: string;
  answers: number;
  failed: number;
  mentioned: number;
  ownCited: number;
  rankSum: number;
  rankCount: number;
  competitorMentions: number;
  positive: number;
  neutral: number;
  negative: number;
  toneSum: number;
}

/** Rollups keyed by period kind and start (migration 20261122T0700): see src/domain/facts/rollup-tables.ts. */
export type PeriodKind = 'day' | 'week' | 'month' | 'quarter';

interface PeriodKey {
  siteId: number;
  period: PeriodKind;
  start: string;
}

export interface RollupPromptPeriodTable extends PeriodKey {
  promptId: number;
  answers: number;
  failed: number;
  cited: number;
  named: number;
  lost: number;
  missing: number;
  mentioned: number;
  competitorMentions: number;
  rankSum: number;
  rankCount: number;
  /** Citations of each site type (migration 20261130T1000; rollup-tables.ts `siteTypeColumn`). */
  ownCitations: number;
  competitorCitations: number;
  ugcCitations: number;
  reviewCitations: number;
  newsCitations: number;
  referenceCitations: number;
  socialCitations: number;
  videoCitations: number;
  otherCitations: number;
}

/** Per (prompt, assistant), weeks, months and quarters (migration 20261126T0900): the spread behind per-assistant intervals. */
export interface RollupPromptProviderPeriodTable extends PeriodKey {
  promptId: number;
  provider: string;
  answers: number;
  failed: number;
  mentioned: number;
  ownCited: number;
  competitorMentions: number;
  positive: number;
  neutral: number;
  negative: number;
}

/** Per (competitor, prompt, assistant), weeks, months and quarters (migration 20261127T1200): competitors' per-assistant intervals. */
export interface RollupPromptProviderCompetitorPeriodTable extends PeriodKey {
  competitorId: number;
  promptId: number;
  provider: string;
  mentioned: number;
}

/** Per (cited domain, prompt), weeks, months and quarters (migration 20261127T1200): the sources report's intervals. */
export interface RollupPromptSourcePeriodTable extends PeriodKey {
  domain: string;
  siteType: string;
  promptId: number;
  answers: number;
  namesBrand: number;
  citations: number;
}

export interface RollupPromptCompetitorPeriodTable extends PeriodKey {
  competitorId: number;
  promptId: number;
  mentioned: number;
  bothNamed: number;
}

export interface RollupCompetitorPeriodTable extends PeriodKey {
  competitorId: number;
  provider: string;
  mentioned: number;
  cited: number;
  bothNamed: number;
  brandAhead: number;
  competitorAhead: number;
}

export interface RollupSourcePeriodTable extends PeriodKey {
  domain: string;
  siteType: string;
  answers: number;
  namesBrand: number;
  citations: number;
}

export interface RollupPagePeriodTable extends PeriodKey {
  /** 0 for the brand's own pages. */
  competitorId: number;
  url: string;
  answers: number;
}

export interface RollupOwnPagePromptPeriodTable extends PeriodKey {
  url: string;
  promptId: number;
  provider: string;
  answers: number;
}

export interface RollupSearchPeriodTable extends PeriodKey {
  promptId: number;
  query: string;
  answers: number;
}

export interface RollupModelPeriodTable extends PeriodKey {
  provider: string;
  model: string;
  answers: number;
}

export interface RollupSuggestionPeriodTable extends PeriodKey {
  name: string;
  answers: number;
}

export interface RollupPromptLatestTable {
  promptId: number;
  provider: string;
  siteId: number;
  answerId: number;
  askedAt: Timestamp;
  verdict: Verdict;
  brandRank: number | null;
  competitorsNamed: number[];
  /** The scan of the latest answer, and its samples of this prompt and assistant: asked, answered, named or cited. */
  scanId: number;
  samples: number;
  answered: number;
  named: number;
}

export interface RollupPromptSummaryTable {
  promptId: number;
  siteId: number;
  scannedAt: Timestamp;
  brandRank: number | null;
  /** Sums of the assistants' latest samples, and named / answered (null when none answered). */
  answered: number;
  named: number;
  consistency: number | null;
}

export interface SiteSpendTable {
  siteId: number;
  month: string;
  spentMicros: ColumnType<number, number | undefined, number>;
  reservedMicros: ColumnType<number, number | undefined, number>;
}

/** One request of a submitted batch: which prompt it asks and what was reserved for it. */
export interface BatchItemJson {
  id: string;
  promptId: number;
  /** Which sample of the prompt (1 when absent: batches submitted before samples). */
  sample?: number;
  priceMicros: number;
  context: string | null;
}

export interface ScanBatchesTable {
  id: Generated<number>;
  scanId: number;
  provider: string;
  model: string;
  handle: ColumnType<unknown, string, string>;
  items: ColumnType<BatchItemJson[], string, string>;
  status: ColumnType<'pending' | 'done' | 'abandoned', 'pending' | undefined, 'pending' | 'done' | 'abandoned'>;
  submittedAt: CreatedAt;
  finishedAt: Timestamp | null;
}

export type ReanalysisStatus = 'queued' | 'running' | 'done' | 'failed';

export interface ReanalysesTable {
  id: Generated<number>;
  siteId: number;
  status: ColumnType<ReanalysisStatus, ReanalysisStatus | undefined, ReanalysisStatus>;
  reason: string;
  answers: ColumnType<number, number | undefined, number>;
  verdictsChanged: ColumnType<number, number | undefined, number>;
  error: string | null;
  requestedAt: CreatedAt;
  startedAt: Timestamp | null;
  finishedAt: Timestamp | null;
}

/** A page of a site, from its sitemaps (migration 20261125T1000). */
export interface PagesTable {
  id: Generated<number>;
  siteId: number;
  url: string;
  /** The form analysis gives cited URLs: what own citations are matched on. */
  normalizedUrl: string;
  path: string;
  section: string;
  title: string | null;
  lastmod: Timestamp | null;
  titleFetchedAt: Timestamp | null;
  titleError: string | null;
  firstSeenAt: CreatedAt;
  lastSeenAt: ColumnType<Date, Date | string | undefined, Date | string>;
}

export type SiteJobStatus = 'queued' | 'running' | 'done' | 'failed';
export type SiteJobTrigger = 'create' | 'manual' | 'schedule' | 'cli';

export interface SitemapImportsTable {
  id: Generated<number>;
  siteId: number;
  status: ColumnType<SiteJobStatus, SiteJobStatus | undefined, SiteJobStatus>;
  trigger: SiteJobTrigger;
  requestedBy: number | null;
  foundVia: 'robots' | 'default' | null;
  sitemaps: ColumnType<number, number | undefined, number>;
  urls: ColumnType<number, number | undefined, number>;
  skipped: ColumnType<number, number | undefined, number>;
  added: ColumnType<number, number | undefined, number>;
  kept: ColumnType<number, number | undefined, number>;
  titles: ColumnType<number, number | undefined, number>;
  titlesFailed: ColumnType<number, number | undefined, number>;
  notes: ColumnType<string[], string[] | undefined, string[]>;
  error: string | null;
  requestedAt: CreatedAt;
  startedAt: Timestamp | null;
  finishedAt: Timestamp | null;
}

/** One AI crawler's access as a crawler check stored it. */
export interface CrawlerResultJson {
  agent: string;
  access: 'allowed' | 'partial' | 'blocked';
  decidingLine: { line: number; text: string } | null;
  group: string | null;
}

export interface CrawlerChecksTable {
  id: Generated<number>;
  siteId: number;
  status: ColumnType<SiteJobStatus, SiteJobStatus | undefined, SiteJobStatus>;
  trigger: SiteJobTrigger;
  requestedBy: number | null;
  robotsUrl: string | null;
  robotsState: 'found' | 'missing' | 'unreachable' | null;
  robotsStatus: number | null;
  robotsBytes: number | null;
  robotsNote: string | null;
  llmsUrl: string | null;
  llmsState: 'present' | 'missing' | 'invalid' | null;
  llmsStatus: number | null;
  llmsTitle: string | null;
  llmsLinks: number | null;
  llmsNote: string | null;
  /** SHA-256 of the llms.txt read (null when none was): llms_txt.changed compares it. */
  llmsSha256: ColumnType<string | null, string | null | undefined, string | null>;
  crawlers: ColumnType<CrawlerResultJson[], string | undefined, string>;
  error: string | null;
  requestedAt: CreatedAt;
  startedAt: Timestamp | null;
  finishedAt: Timestamp | null;
}

/** An import of a server access log (migration 20261128T1200): what it read and what it counted. */
export interface CrawlerLogImportsTable {
  id: Generated<number>;
  siteId: number;
  status: ColumnType<SiteJobStatus, SiteJobStatus | undefined, SiteJobStatus>;
  source: 'upload' | 'pull' | 'cli';
  format: 'auto' | 'combined' | 'json';
  formats: ColumnType<string[], string[] | undefined, string[]>;
  url: string | null;
  pullUrl: string | null;
  payload: Buffer | null;
  bytes: ColumnType<number, number | undefined, number>;
  lines: ColumnType<number, number | undefined, number>;
  counted: ColumnType<number, number | undefined, number>;
  duplicates: ColumnType<number, number | undefined, number>;
  skipped: ColumnType<number, number | undefined, number>;
  other: ColumnType<number, number | undefined, number>;
  agentHits: ColumnType<number, number | undefined, number>;
  referrals: ColumnType<number, number | undefined, number>;
  firstDay: string | null;
  lastDay: string | null;
  errors: ColumnType<{ line: number; reason: string }[], string | undefined, string>;
  error: string | null;
  resumeLine: ColumnType<number, number | undefined, number>;
  rollupsPending: ColumnType<boolean, boolean | undefined, boolean>;
  requestedBy: number | null;
  requestedAt: CreatedAt;
  startedAt: Timestamp | null;
  progressedAt: Timestamp | null;
  finishedAt: Timestamp | null;
}

/** A page AI agents or referred visitors reached, by its path (migration 20261128T1200). */
export interface TrafficPathsTable {
  id: Generated<number>;
  siteId: number;
  path: string;
  normalizedUrl: string;
  isPage: boolean;
  lastCrawled: string | null;
}

/** The hit counters of an agent (and a page), per period. */
interface TrafficCounters {
  hits: number;
  verified: number;
  spoofed: number;
  s2xx: number;
  s3xx: number;
  s4xx: number;
  s5xx: number;
}

export interface TrafficPagePeriodTable extends PeriodKey, TrafficCounters {
  agent: string;
  pathId: number;
}

export interface TrafficAgentPeriodTable extends PeriodKey, TrafficCounters {
  agent: string;
  pages: ColumnType<number, number | undefined, number>;
  top: ColumnType<TrafficTopPageJson[], string | undefined, string>;
}

/** One of an agent's most fetched pages in a period, as an import's end writes it. */
export interface TrafficTopPageJson {
  path: string;
  url: string;
  hits: number;
  s2xx: number;
  s3xx: number;
  s4xx: number;
  s5xx: number;
}

export interface TrafficPeriodPagesTable extends PeriodKey {
  pathId: number;
  path: string;
  normalizedUrl: string;
  isPage: boolean;
  hits: number;
  spoofed: number;
  s2xx: number;
  s3xx: number;
  s4xx: number;
  s5xx: number;
  agents: string[];
}

export interface TrafficReferralPeriodTable extends PeriodKey {
  assistant: string;
  pathId: number;
  visits: number;
}

/** A page that served agents redirects or errors, in a period's totals. */
export interface TrafficStatusPageJson {
  path: string;
  url: string;
  hits: number;
  s3xx: number;
  s4xx: number;
  s5xx: number;
}

export interface TrafficPeriodTotalsTable extends PeriodKey {
  pages: number;
  statusPages: ColumnType<TrafficStatusPageJson[], string, string>;
  referralAssistants: ColumnType<
    { assistant: string; visits: number; pages: { path: string; url: string; visits: number }[] }[],
    string,
    string
  >;
  referralPages: ColumnType<
    { path: string; url: string; visits: number; assistants: { assistant: string; visits: number }[] }[],
    string,
    string
  >;
}

export interface TrafficSaltsTable {
  siteId: number;
  day: string;
  salt: string;
}

export interface TrafficSeenTable {
  siteId: number;
  day: string;
  hash: string;
}

/** A published address prefix of an AI crawler, loaded by the operator. */
export interface CrawlerRangesTable {
  agent: string;
  prefix: string;
  source: string;
  createdAt: string | null;
  loadedAt: CreatedAt;
}

export type LedgerKind = 'topup' | 'charge' | 'adjustment';

/** A site whose rollups must be rebuilt after retention dropped a month of its answers (domain/facts/retention.ts). */
export interface RetentionRebuildsTable {
  siteId: number;
  createdAt: CreatedAt;
}

export interface LedgerEntriesTable {
  id: Generated<number>;
  orgId: number;
  kind: LedgerKind;
  amountMicros: number;
  balanceAfterMicros: number;
  siteId: number | null;
  scanId: number | null;
  answerId: number | null;
  description: ColumnType<string, string | undefined, string>;
  createdBy: number | null;
  createdAt: CreatedAt;
}

export type WebhookFormat = 'standard' | 'slack';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A workspace's webhook endpoint (migration 20261128T1000, domain/webhooks). */
export interface WebhooksTable {
  id: Generated<number>;
  orgId: number;
  url: string;
  /** Event types it receives, or ['*']. */
  events: string[];
  /** Sites it receives events of (`site_ids`, migration 20261130T0900; the API's `projectIds`); null: every site. */
  siteIds: number[] | null;
  format: ColumnType<WebhookFormat, WebhookFormat | undefined, WebhookFormat>;
  description: string | null;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  disabledReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Timestamp | null;
  consecutiveFailures: ColumnType<number, number | undefined, number>;
  failingSince: Timestamp | null;
  createdBy: number | null;
  createdAt: CreatedAt;
  updatedAt: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** The outbox: one row per event, written in the transaction of the change that causes it. */
export interface WebhookEventsTable {
  id: Generated<number>;
  /** `evt_` + 32 hex: the webhook-id of every delivery of it. */
  uid: Generated<string>;
  orgId: number;
  siteId: number | null;
  type: string;
  /** Set for events that may happen once (a scan's end, a month's cap): unique. */
  dedupeKey: string | null;
  data: ColumnType<Record<string, unknown>, string, string>;
  createdAt: CreatedAt;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhookId: number;
  eventId: number;
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  attempts: ColumnType<number, number | undefined, number>;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: ColumnType<Date, Date | string | undefined, Date | string>;
  /** A run of its job holds it until then (no two sends of one delivery at once). */
  leaseUntil: Timestamp | null;
  replays: ColumnType<number, number | undefined, number>;
  deliveredAt: Timestamp | null;
  createdAt: CreatedAt;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  deliveryId: number;
  replay: ColumnType<boolean, boolean | undefined, boolean>;
  attemptedAt: Timestamp;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  /** The first 1 KB of the receiver's answer. */
  response: string | null;
}

export interface WebhookPeriodChecksTable {
  siteId: number;
  period: 'week' | 'month' | 'quarter';
  start: string;
  checkedAt: CreatedAt;
}

export interface Database {
  orgs: OrgsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  invitations: InvitationsTable;
  apiKeys: ApiKeysTable;
  sites: SitesTable;
  competitors: CompetitorsTable;
  ledgerEntries: LedgerEntriesTable;
  retentionRebuilds: RetentionRebuildsTable;
  personas: PersonasTable;
  siteEvents: SiteEventsTable;
  pages: PagesTable;
  sitemapImports: SitemapImportsTable;
  crawlerChecks: CrawlerChecksTable;
  crawlerLogImports: CrawlerLogImportsTable;
  trafficPaths: TrafficPathsTable;
  trafficPagePeriod: TrafficPagePeriodTable;
  trafficAgentPeriod: TrafficAgentPeriodTable;
  trafficReferralPeriod: TrafficReferralPeriodTable;
  trafficPeriodPages: TrafficPeriodPagesTable;
  trafficPeriodTotals: TrafficPeriodTotalsTable;
  trafficSalts: TrafficSaltsTable;
  trafficSeen: TrafficSeenTable;
  crawlerRanges: CrawlerRangesTable;
  shareLinks: ShareLinksTable;
  categories: CategoriesTable;
  prompts: PromptsTable;
  promptCategories: PromptCategoriesTable;
  scans: ScansTable;
  answers: AnswersTable;
  answerFacts: AnswerFactsTable;
  mentionFeedback: MentionFeedbackTable;
  rollupSiteDay: RollupSiteDayTable;
  reanalyses: ReanalysesTable;
  siteSpend: SiteSpendTable;
  scanBatches: ScanBatchesTable;
  rollupPromptPeriod: RollupPromptPeriodTable;
  rollupPromptProviderPeriod: RollupPromptProviderPeriodTable;
  rollupPromptCompetitorPeriod: RollupPromptCompetitorPeriodTable;
  rollupPromptProviderCompetitorPeriod: RollupPromptProviderCompetitorPeriodTable;
  rollupPromptSourcePeriod: RollupPromptSourcePeriodTable;
  rollupCompetitorPeriod: RollupCompetitorPeriodTable;
  rollupSourcePeriod: RollupSourcePeriodTable;
  rollupPagePeriod: RollupPagePeriodTable;
  rollupOwnPagePromptPeriod: RollupOwnPagePromptPeriodTable;
  rollupSearchPeriod: RollupSearchPeriodTable;
  rollupModelPeriod: RollupModelPeriodTable;
  rollupSuggestionPeriod: RollupSuggestionPeriodTable;
  rollupPromptLatest: RollupPromptLatestTable;
  rollupPromptSummary: RollupPromptSummaryTable;
  webhooks: WebhooksTable;
  webhookEvents: WebhookEventsTable;
  webhookDeliveries: WebhookDeliveriesTable;
  webhookAttempts: WebhookAttemptsTable;
  webhookPeriodChecks: WebhookPeriodChecksTable;
}

export type OrgRow = Selectable<OrgsTable>;
export type UserRow = Selectable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type SiteRow = Selectable<SitesTable>;
export type NewSite = Insertable<SitesTable>;
export type SiteUpdate = Updateable<SitesTable>;
export type CompetitorRow = Selectable<CompetitorsTable>;
export type LedgerEntryRow = Selectable<LedgerEntriesTable>;
export type InvitationRow = Selectable<InvitationsTable>;
export type PersonaRow = Selectable<PersonasTable>;
export type SiteEventRow = Selectable<SiteEventsTable>;
export type PageRow = Selectable<PagesTable>;
export type SitemapImportRow = Selectable<SitemapImportsTable>;
export type CrawlerCheckRow = Selectable<CrawlerChecksTable>;
export type CrawlerLogImportRow = Selectable<CrawlerLogImportsTable>;
export type ShareLinkRow = Selectable<ShareLinksTable>;
export type CategoryRow = Selectable<CategoriesTable>;
export type PromptRow = Selectable<PromptsTable>;
export type ScanRow = Selectable<ScansTable>;
export type AnswerRow = Selectable<AnswersTable>;
export type AnswerFactsRow = Selectable<AnswerFactsTable>;
export type MentionFeedbackRow = Selectable<MentionFeedbackTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookEventRow = Selectable<WebhookEventsTable>;
