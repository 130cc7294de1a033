import { asset } from '../assets.js';
import { Icon } from '../partials/icons.js';
import { Alert, PageHeader } from '../partials/ui.js';

/**
 * The import page (docs/web-ui.md#importing-links): pick a file, preview what
 * a dry run would do, then import it. Without JavaScript the form posts and
 * the answer is this page with the report; with it (static/js/import.js) the
 * same form is sent in the background, rows fill the table as the server
 * reports them, a bar shows the progress and the report can be downloaded.
 */

export interface ImportFormatOption {
  name: string;
  label: string;
}

/** One row of the report, as the links layer tells it. */
export interface ImportRowView {
  line: number;
  slug?: string;
  written?: string;
  action: 'created' | 'updated' | 'skipped' | 'refused';
  reason?: string;
  changes?: string[];
  notes: string[];
  sourceClicks?: number;
}

export interface ImportSummaryView {
  format: string;
  dryRun: boolean;
  rows: number;
  created: number;
  updated: number;
  skipped: number;
  refused: number;
  sourceClicks: number;
}

export interface ImportPageState {
  formats: readonly ImportFormatOption[];
  isAdmin: boolean;
  maxMiB: number;
  from: string;
  keepOwners: boolean;
  error: string | null;
  result: { formatLabel: string; summary: ImportSummaryView; rows: readonly ImportRowView[] } | null;
}

const ACTION_BADGE: Record<ImportRowView['action'], string> = {
  created: 'badge-success',
  updated: 'badge-info',
  skipped: 'badge-ghost border-base-content/30',
  refused: 'badge-error',
};

/** What the details cell says: the reason, the fields an update changes, the notes. */
export function rowDetails(row: ImportRowView): string[] {
  const out: string[] = [];
  if (row.reason && row.reason !== 'unchanged') out.push(row.reason);
  if (row.action === 'skipped') out.push('unchanged');
  if (row.changes && row.changes.length > 0) out.push(`changes ${row.changes.join(', ')}`);
  out.push(...row.notes);
  if (row.sourceClicks !== undefined) out.push(`${row.sourceClicks} ${row.sourceClicks === 1 ? 'click' : 'clicks'} in the source`);
  return out;
}

function ResultRow({ row }: { row: ImportRowView }) {
  return (
    <tr data-action={row.action}>
      <td class="tabular-nums align-top">{row.line}</td>
      <td class="align-top min-w-0">
        <div class="wrap-anywhere font-mono text-sm font-semibold">{row.slug ?? row.written ?? '—'}</div>
        <ul class="space-y-0.5 text-sm break-words text-base-content/80">
          {rowDetails(row).map((d) => (
            <li>{d}</li>
          ))}
        </ul>
      </td>
      <td class="align-top text-right">
        <span class={`badge badge-sm ${ACTION_BADGE[row.action]}`}>{row.action}</span>
      </td>
    </tr>
  );
}

function Stat({ label, value, id }: { label: string; value: number; id: string }) {
  return (
    <div class="rounded-box border border-base-300 bg-base-100 px-3 py-2">
      <div class="text-xs text-base-content/70">{label}</div>
      <div class="text-xl font-semibold tabular-nums" data-count={id}>
        {value}
      </div>
    </div>
  );
}

/** The report: the totals, what the source counted, and one table row per file row. */
export function ImportResult({ result, hidden }: { result: ImportPageState['result']; hidden?: boolean }) {
  const s = result?.summary;
  return (
    <section id="import-result" class="space-y-4" aria-labelledby="import-result-title" hidden={hidden}>
      <div class="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="import-result-title" class="text-lg font-semibold" data-import-title>
          {s ? (s.dryRun ? `Preview: ${result!.formatLabel}` : `Imported: ${result!.formatLabel}`) : 'Report'}
        </h2>
        <div class="flex flex-wrap gap-2" data-import-downloads hidden>
          <button type="button" class="btn btn-sm" data-import-download="csv">
            <Icon name="download" class="size-4" />
            Report (CSV)
          </button>
          <button type="button" class="btn btn-sm" data-import-download="json">
            <Icon name="download" class="size-4" />
            Report (JSON)
          </button>
        </div>
      </div>
      <div data-import-progress hidden>
        <progress class="progress progress-primary w-full" max="100" value="0" aria-label="Import progress"></progress>
        <p class="text-sm text-base-content/70 mt-1" data-import-status role="status" aria-live="polite"></p>
      </div>
      <div class="grid grid-cols-2 sm:grid-cols-4 gap-2">
        <Stat label="Created" value={s?.created ?? 0} id="created" />
        <Stat label="Updated" value={s?.updated ?? 0} id="updated" />
        <Stat label="Skipped" value={s?.skipped ?? 0} id="skipped" />
        <Stat label="Refused" value={s?.refused ?? 0} id="refused" />
      </div>
      <p class="text-sm text-base-content/70" data-import-extra>
        {s && extraLine(s)}
      </p>
      <div class="rounded-box border border-base-300 bg-base-100">
        <table class="table table-sm w-full table-fixed">
          <colgroup>
            <col class="w-12" />
            <col />
            <col class="w-24" />
          </colgroup>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Slug and details</th>
              <th scope="col" class="text-right">
                Result
              </th>
            </tr>
          </thead>
          <tbody data-import-rows>
            {(result?.rows ?? []).map((row) => (
              <ResultRow row={row} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function extraLine(s: ImportSummaryView): string {
  const parts = [`${s.rows} rows read`];
  if (s.sourceClicks > 0) parts.push(`${s.sourceClicks} clicks counted by the source (reported, not stored)`);
  if (s.dryRun) parts.push('nothing was written');
  return `${parts.join('; ')}.`;
}

export function ImportPage(state: ImportPageState) {
  const { formats, isAdmin, maxMiB, from, keepOwners, error, result } = state;
  return (
    <div class="max-w-5xl space-y-6" data-import-page>
      <PageHeader
        title="Import links"
        subtitle="From golink, Trotto, Slash, Shlink, YOURLS, Bitly, Dub, Kutt, or a joe-links export. Preview first: nothing is written until you import."
        back={{ href: '/dashboard', label: 'Dashboard' }}
      />
      {error && <Alert level="error">{error}</Alert>}
      <form
        method="post"
        action="/dashboard/links/import"
        enctype="multipart/form-data"
        class="card bg-base-100 border border-base-300"
        data-import-form
      >
        <div class="card-body gap-4">
          <div class="grid gap-4 sm:grid-cols-2">
            <div>
              <label for="import-from" class="block text-sm font-medium mb-1">
                Exported from
              </label>
              <select id="import-from" name="from" class="select w-full" aria-describedby="import-from-help">
                <option value="" selected={from === ''}>
                  Detect from the file
                </option>
                {formats.map((f) => (
                  <option value={f.name} selected={from === f.name}>
                    {f.label}
                  </option>
                ))}
              </select>
              <p id="import-from-help" class="text-xs text-base-content/70 mt-1">
                The tool that wrote the file; which of its exports it is comes from the file itself.
              </p>
            </div>
            <div>
              <label for="import-file" class="block text-sm font-medium mb-1">
                File
              </label>
              <input id="import-file" name="file" type="file" required class="file-input w-full" aria-describedby="import-file-help" />
              <p id="import-file-help" class="text-xs text-base-content/70 mt-1">
                {`Up to ${maxMiB} MiB. You own the links you import.`}
              </p>
            </div>
          </div>
          {isAdmin && (
            <label class="flex items-start gap-2 text-sm">
              <input type="checkbox" name="keep_owners" value="true" class="checkbox checkbox-sm mt-0.5" checked={keepOwners} />
              <span>Give links to the owners the file names (by email); rows whose owners are not users here stay yours.</span>
            </label>
          )}
          <div class="flex flex-wrap gap-2">
            <button type="submit" name="mode" value="preview" class="btn btn-primary">
              <Icon name="eye" class="size-4" />
              Preview
            </button>
            <button type="submit" name="mode" value="import" class="btn">
              <Icon name="download" class="size-4" />
              Import
            </button>
          </div>
          {result?.summary.dryRun && (
            <p class="text-sm text-base-content/70" data-import-noscript-hint>
              To import after this preview, choose the file again and press Import.
            </p>
          )}
        </div>
      </form>
      <ImportResult result={result} hidden={result === null} />
      <script src={asset('js/import.js')} defer></script>
    </div>
  );
}
