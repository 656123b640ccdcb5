/**
 * The New crawl form: seeds, scope, robots, politeness, overrides, limits, WARC and identity.
 * Checks run in the core as you type (crawl.check, scope.test, robots.test), debounced, and a
 * late answer to an old question is dropped. A problem is named by its setting's label from the
 * settings registry, and a number's problem is told in its field's unit (MB, min).
 */
import type {
  CrawlCheck,
  CrawlCheckRequest,
  RobotsTestResult,
  ScopeTestResult,
  SettingsCheckPatch,
  SettingsIssue,
} from '../../../core/api/app-types.ts';
import type { CrawlSettings, PolitenessPreset } from '../../../core/api/settings.ts';
import type { ProfileInfo } from '../../../core/api/profile-types.ts';
import { SETTING_ROWS, type POLITENESS_PRESETS } from '../../../core/api/settings-registry.ts';
import { unwrap, type TroveApi } from './bridge.ts';
import { attempt } from './attempt.ts';
import { fieldProblem, labelOf } from './setting-fields.ts';
import { debounce } from './debounce.ts';

type Presets = typeof POLITENESS_PRESETS;

export const DEFAULT_CUSTOM_ROBOTS = 'User-agent: *\nDisallow: /private/\n';

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');

export class NewCrawlState {
  name = $state('');
  seedsText = $state('');
  /** Every crawl setting, starting from the core's defaults (set in the constructor). */
  settings = $state<CrawlSettings>({} as CrawlSettings);
  includeText = $state('');
  excludeText = $state('');
  candidateText = $state('');
  /** Custom robots.txt (custom policy), or a site's robots.txt pasted to try a policy on. */
  robotsText = $state(DEFAULT_CUSTOM_ROBOTS);
  robotsTestUrl = $state('/private/page.html');
  scopeTestUrl = $state('');
  scopeTestHops = $state('L');
  showAdvanced = $state(false);

  check = $state.raw<CrawlCheck | null>(null);
  checkError = $state<string | null>(null);
  scopeResult = $state.raw<ScopeTestResult | null>(null);
  scopeError = $state<string | null>(null);
  robotsResult = $state.raw<RobotsTestResult | null>(null);
  robotsError = $state<string | null>(null);
  starting = $state(false);
  startError = $state<string | null>(null);
  /** The library's browser profiles (saved logins) the crawl may start from. */
  profiles = $state.raw<ProfileInfo[]>([]);

  readonly api: TroveApi;
  readonly presets: Presets;
  private seq = { check: 0, scope: 0, robots: 0 };

  constructor(api: TroveApi, defaults: CrawlSettings, presets: Presets) {
    this.api = api;
    this.presets = presets;
    this.settings = { ...defaults, seeds: [] };
  }

  /** What the core is asked to check: the settings with the line lists applied (no proxies). */
  patch(): SettingsCheckPatch {
    const rest = { ...($state.snapshot(this.settings) as CrawlSettings) } as Record<string, unknown>;
    // Seeds go as the checked seedsText; the settings the app may not set (paths) are not sent.
    delete rest.seeds;
    for (const row of SETTING_ROWS) if (row.app !== true && !row.key.includes('.')) delete rest[row.key];
    return {
      ...(rest as SettingsCheckPatch),
      include: lines(this.includeText),
      exclude: lines(this.excludeText),
      candidateAgents: lines(this.candidateText.replace(/,/g, '\n')),
    };
  }

  checkRequest(): CrawlCheckRequest {
    const req: CrawlCheckRequest = { seedsText: this.seedsText, settings: this.patch() };
    if (this.settings.robots === 'custom') req.customRobots = this.robotsText;
    return req;
  }

  /** Read by the screen's effects so they re-run on any change. */
  checkKey = $derived(JSON.stringify([this.seedsText, this.settings, this.includeText, this.excludeText, this.candidateText, this.settings.robots === 'custom' ? this.robotsText : '']));
  scopeKey = $derived(JSON.stringify([this.seedsText, this.settings, this.includeText, this.excludeText, this.scopeTestUrl, this.scopeTestHops]));
  robotsKey = $derived(JSON.stringify([this.robotsText, this.robotsTestUrl, this.settings.robots, this.settings.userAgent, this.candidateText, this.settings.masquerade]));

  issues = $derived<SettingsIssue[]>(this.check?.issues ?? []);
  seedCount = $derived(this.check?.urls.length ?? 0);
  canStart = $derived(this.check !== null && this.check.valid && !this.starting);

  /**
   * A problem in the words its field uses: a number setting's bounds in the field's unit (the
   * core speaks bytes and seconds), anything else as the core says it.
   */
  messageOf(issue: SettingsIssue): string {
    if (issue.field.includes('[')) return issue.message;
    const [top, sub] = issue.field.split('.') as [string, string | undefined];
    const group = (this.settings as unknown as Record<string, unknown>)[top];
    const value = sub === undefined ? group : (group as Record<string, unknown> | undefined)?.[sub];
    return fieldProblem(issue.field, value) ?? issue.message;
  }

  /** "Label: message" for the start bar, where the problem is not next to its field. */
  describeIssue(issue: SettingsIssue): string {
    const label = labelOf(issue.field);
    return label ? `${label}: ${this.messageOf(issue)}` : this.messageOf(issue);
  }

  /** The start bar's line: the first `shown` problems by label, and how many more there are. */
  describeIssues(issues: readonly SettingsIssue[], shown = 3): string {
    const more = issues.length - shown;
    return issues.slice(0, shown).map((i) => this.describeIssue(i)).join(' · ') + (more > 0 ? ` · and ${more} more` : '');
  }

  /** Every problem the core reports for one setting key (e.g. `perHost`, `overrides[0].host`), joined. */
  issueFor(field: string): string | null {
    const found = this.issues.filter((i) => i.field === field).map((i) => this.messageOf(i));
    return found.length ? [...new Set(found)].join('; ') : null;
  }

  /** Read the library's profiles (for the Login card's choice). */
  async loadProfiles(): Promise<void> {
    const r = await attempt(this.api.profile.list({}));
    if (r.ok) this.profiles = r.value;
  }

  async runCheck(): Promise<void> {
    const n = ++this.seq.check;
    const r = await attempt(this.api.crawl.check(this.checkRequest()));
    if (n !== this.seq.check) return; // a newer check was asked meanwhile
    if (r.ok) this.check = r.value;
    this.checkError = r.ok ? null : r.message;
  }

  async runScopeTest(): Promise<void> {
    const n = ++this.seq.scope;
    if (this.scopeTestUrl.trim() === '') {
      this.scopeResult = null;
      this.scopeError = null;
      return;
    }
    const r = await attempt(this.api.scope.test({ seedsText: this.seedsText, settings: this.patch(), url: this.scopeTestUrl, hopsPath: this.scopeTestHops }));
    if (n !== this.seq.scope) return; // the URL or the settings changed meanwhile
    this.scopeResult = r.ok ? r.value : null;
    this.scopeError = r.ok ? null : r.message;
  }

  async runRobotsTest(): Promise<void> {
    const n = ++this.seq.robots;
    if (this.robotsTestUrl.trim() === '') {
      this.robotsResult = null;
      return;
    }
    const r = await attempt(
      this.api.robots.test({
        robotsText: this.robotsText,
        userAgent: this.settings.userAgent,
        url: this.robotsTestUrl,
        policy: this.settings.robots,
        candidateAgents: lines(this.candidateText.replace(/,/g, '\n')),
        masquerade: this.settings.masquerade,
      }),
    );
    if (n !== this.seq.robots) return; // the robots.txt, URL or policy changed meanwhile
    this.robotsResult = r.ok ? r.value : null;
    this.robotsError = r.ok ? null : r.message;
  }

  scheduleCheck = debounce(() => void this.runCheck(), 200);
  scheduleScopeTest = debounce(() => void this.runScopeTest(), 200);
  scheduleRobotsTest = debounce(() => void this.runRobotsTest(), 150);

  applyPoliteness(preset: PolitenessPreset): void {
    this.settings.politeness = preset;
    Object.assign(this.settings, this.presets[preset]);
  }

  /** True when the advanced numbers differ from the chosen preset. */
  customized = $derived.by(() => {
    const p = this.presets[this.settings.politeness] as Record<string, unknown> | undefined;
    const now = this.settings as unknown as Record<string, unknown>;
    return !!p && Object.entries(p).some(([k, v]) => now[k] !== v);
  });

  addOverride(): void {
    this.settings.overrides.push({ host: '', minDelayMs: this.settings.minDelayMs, maxDelayMs: this.settings.maxDelayMs, perHost: 1 });
  }

  removeOverride(i: number): void {
    this.settings.overrides.splice(i, 1);
  }

  /** Seeds from a loaded text file: appended, one a line. */
  addSeedsFromText(text: string): void {
    const add = lines(text).filter((l) => !l.startsWith('#'));
    this.seedsText = [...lines(this.seedsText), ...add].join('\n') + '\n';
  }

  /** Exclude a pattern the scope test rejected or accepted (one click from the test box). */
  addExclude(pattern: string): void {
    const current = lines(this.excludeText);
    if (!current.includes(pattern)) this.excludeText = [...current, pattern].join('\n');
  }

  async start(): Promise<string | null> {
    this.startError = null;
    const r = await attempt(async (): Promise<string | null> => {
      await this.runCheck();
      if (!this.check?.valid) {
        const first = this.check?.issues[0];
        this.startError = (first ? this.describeIssue(first) : null) ?? this.checkError ?? 'the settings are not valid yet';
        return null;
      }
      // Sent as checked: an override row without a host is a problem the check reports, never dropped here.
      const { id } = await unwrap(
        this.api.crawl.start({
          name: this.name.trim(),
          settings: { ...this.patch(), seeds: this.check.urls },
          ...(this.settings.robots === 'custom' ? { customRobots: this.robotsText } : {}),
        }),
      );
      return id;
    }, (on) => (this.starting = on));
    if (!r.ok) this.startError = r.message;
    return r.ok ? r.value : null;
  }
}
