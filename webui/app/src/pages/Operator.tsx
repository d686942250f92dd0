import { Download } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Schemas } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { useI18n } from '../i18n/I18nProvider';
import { format, type MessageKey } from '../i18n/messages';
import { apiGet } from '../identityApi';
import { useApi } from '../useApi';
import { usePageTitle } from '../usePageTitle';
import './Operator.css';

type Report = Schemas['Report'];
type DayReport = Schemas['DayReport'];

const PERIODS = [7, 30, 90] as const;

const getReport = (days: number, signal?: AbortSignal) => apiGet<Report>(`/api/operator/stats?days=${days}`, signal);

// OperatorPage is the server's dashboard (/operator): the anonymous
// counters the server keeps, drawn for reading at a glance. It is lazy
// loaded, so its chart library weighs on no other page. The server decides
// who may read it (operator_required for anyone else).
export default function OperatorPage() {
  const { t } = useI18n();
  usePageTitle('operator.title');
  const [days, setDays] = useState<number>(30);
  const load = useCallback((signal: AbortSignal) => getReport(days, signal), [days]);
  const [report, reload] = useApi(load);
  return (
    <div className="operator-page" data-testid="operator-page">
      <div className="operator-head">
        <h1>{t('operator.title')}</h1>
        <label className="operator-period">
          {t('operator.period')}
          <select value={days} onChange={(e) => setDays(Number(e.target.value))} data-testid="operator-period">
            {PERIODS.map((d) => (
              <option key={d} value={d}>
                {format(t('operator.days'), { n: d })}
              </option>
            ))}
          </select>
        </label>
        <a className="button" href={`/api/operator/stats.csv?days=${days}`} download data-testid="operator-csv">
          <Download aria-hidden="true" size={16} />
          {t('operator.csv')}
        </a>
      </div>
      <p className="hint">{t('operator.hint')}</p>
      {report.state === 'loading' && <p role="status">{t('common.loading')}</p>}
      {report.state === 'error' && <ErrorNotice code={report.code} onRetry={reload} />}
      {report.state === 'ok' && <Dashboard report={report.data} />}
    </div>
  );
}

const sum = (days: DayReport[], pick: (d: DayReport) => number) => days.reduce((n, d) => n + pick(d), 0);

function Dashboard({ report }: { report: Report }) {
  const { t, lang } = useI18n();
  const n = (v: number) => v.toLocaleString(lang);
  const days = report.days;
  const turns = sum(days, (d) => d.solo_turns);
  const failed = sum(days, (d) => d.turns_failed);
  const demo = sum(days, (d) => d.tokens_demo);
  const budget = sum(days, (d) => d.demo_budget);
  const tiles: { key: MessageKey; value: string; id: string }[] = [
    { key: 'operator.tile.visits', value: n(sum(days, (d) => d.visits)), id: 'visits' },
    { key: 'operator.tile.people', value: n(sum(days, (d) => d.came)), id: 'people' },
    { key: 'operator.tile.turns', value: n(turns), id: 'turns' },
    { key: 'operator.tile.failed', value: turns + failed === 0 ? '–' : `${((100 * failed) / (turns + failed)).toFixed(1)} %`, id: 'failed' },
    { key: 'operator.tile.latency', value: `${ms(t, report.latency.p50_ms)} / ${ms(t, report.latency.p95_ms)}`, id: 'latency' },
    {
      key: 'operator.tile.demo',
      value: report.demo_daily_tokens === 0 ? t('operator.noDemo') : budget === 0 ? n(demo) : `${n(demo)} (${Math.round((100 * demo) / budget)} %)`,
      id: 'demo',
    },
  ];
  return (
    <>
      <dl className="operator-tiles">
        {tiles.map((tile) => (
          <div key={tile.id} className="operator-tile" data-testid={`tile-${tile.id}`}>
            <dt>{t(tile.key)}</dt>
            <dd>{tile.value}</dd>
          </div>
        ))}
      </dl>
      <div className="operator-charts">
        <Chart
          title={t('operator.chart.visits')}
          id="visits"
          days={days}
          series={[{ label: t('operator.series.visits'), color: '--accent', values: days.map((d) => d.visits), bars: true }]}
        />
        <Chart
          title={t('operator.chart.funnel')}
          id="funnel"
          days={days}
          series={[
            { label: t('operator.series.came'), color: '--focus', values: days.map((d) => d.came) },
            { label: t('operator.series.made'), color: '--accent', values: days.map((d) => d.made) },
            { label: t('operator.series.played'), color: '--ok', values: days.map((d) => d.played) },
            { label: t('operator.series.returned'), color: '--whisper-fg', values: days.map((d) => d.returned) },
          ]}
        />
        <Chart
          title={t('operator.chart.latency')}
          id="latency"
          days={days}
          unit="ms"
          series={[
            { label: 'p50', color: '--focus', values: days.map((d) => quantile(d.first_token_p50_ms)) },
            { label: 'p95', color: '--damage', values: days.map((d) => quantile(d.first_token_p95_ms)) },
          ]}
        />
        <Chart
          title={t('operator.chart.demo')}
          id="demo"
          days={days}
          series={[
            { label: t('operator.series.demoSpent'), color: '--accent', values: days.map((d) => d.tokens_demo), bars: true },
            { label: t('operator.series.demoBudget'), color: '--muted', values: days.map((d) => d.demo_budget), dashed: true },
            { label: t('operator.series.byok'), color: '--focus', values: days.map((d) => d.tokens_byok) },
          ]}
        />
      </div>
      <div className="operator-lists">
        <BarList
          title={t('operator.failures')}
          id="failures"
          empty={t('operator.none')}
          rows={report.failures.map((f) => ({ label: f.code, detail: t(f.what === 'turn' ? 'operator.what.turn' : 'operator.what.step'), hits: f.hits }))}
        />
        <BarList title={t('operator.pages')} id="pages" empty={t('operator.none')} rows={report.visits_by_page.map((v) => ({ label: v.label, hits: v.hits }))} />
        <BarList
          title={t('operator.latencyBuckets')}
          id="buckets"
          empty={t('operator.none')}
          rows={report.latency.calls === 0 ? [] : report.latency.buckets.map((b) => ({ label: bucketName(t, b.label), hits: b.hits }))}
        />
        <BarList title={t('operator.limited')} id="limited" empty={t('operator.none')} rows={report.rate_limited.map((r) => ({ label: r.label, hits: r.hits }))} />
        <BarList title={t('operator.seats')} id="seats" empty={t('operator.none')} rows={report.ai_seats.map((r) => ({ label: r.label, hits: r.hits }))} />
      </div>
    </>
  );
}

// quantile is a day's quantile for the chart: no call is no point, above
// every bucket is drawn at the last bound.
const quantile = (v: number) => (v === 0 ? null : v < 0 ? 32000 : v);

function ms(t: (k: MessageKey) => string, v: number): string {
  if (v === 0) return '–';
  if (v < 0) return format(t('operator.over'), { s: 32 });
  return v < 1000 ? `≤ ${v} ms` : `≤ ${v / 1000} s`;
}

function bucketName(t: (k: MessageKey) => string, label: string): string {
  if (label === 'le_inf') return format(t('operator.over'), { s: 32 });
  return ms(t, Number(label.slice(3)));
}

type Series = { label: string; color: string; values: (number | null)[]; bars?: boolean; dashed?: boolean };

// cssColor resolves a colour token (light-dark(...)) to what the page
// shows now, for the canvas.
function cssColor(el: HTMLElement, token: string): string {
  const probe = document.createElement('span');
  probe.style.color = `var(${token})`;
  el.appendChild(probe);
  const c = getComputedStyle(probe).color;
  probe.remove();
  return c;
}

// useThemeGeneration changes whenever the page's colours may have: a
// theme chosen in the app, or the system's scheme.
function useThemeGeneration(): number {
  const [gen, setGen] = useState(0);
  useEffect(() => {
    const bump = () => setGen((g) => g + 1);
    const observer = new MutationObserver(bump);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    media.addEventListener('change', bump);
    return () => {
      observer.disconnect();
      media.removeEventListener('change', bump);
    };
  }, []);
  return gen;
}

// Chart draws series over the report's days with uPlot (canvas: nothing
// inline that the CSP would refuse). The numbers are also in the table
// under it for screen readers and for copying.
function Chart({ title, id, days, series, unit }: { title: string; id: string; days: DayReport[]; series: Series[]; unit?: string }) {
  const { t, lang } = useI18n();
  const box = useRef<HTMLDivElement>(null);
  const theme = useThemeGeneration();
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const fg = cssColor(el, '--muted');
    const grid = cssColor(el, '--border');
    const xs = days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000);
    const bars = uPlot.paths.bars?.({ size: [0.6, 24] });
    const opts: uPlot.Options = {
      width: el.clientWidth,
      height: 200,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      legend: { show: true, live: false },
      cursor: { drag: { x: false, y: false } },
      // latency on a log scale (100 ms to 32 s), so p50 and p95 both read;
      // counts from zero
      scales: {
        // half a day either side, so the first and last days' bars show whole
        x: { time: true, range: (_u, min, max) => [min - 43200, max + 43200] },
        y: unit === 'ms' ? { distr: 3, log: 10, range: () => [100, 32000] } : { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] },
      },
      axes: [
        { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
        {
          stroke: fg,
          grid: { stroke: grid, width: 1 },
          ticks: { stroke: grid },
          size: unit === 'ms' ? 64 : 56,
          // latency is marked at the histogram's bucket bounds
          splits: unit === 'ms' ? () => [100, 250, 500, 1000, 2000, 4000, 8000, 16000, 32000] : undefined,
          values: (_u, vals) =>
            vals.map((v) => (v == null ? '' : unit === 'ms' && v >= 1000 ? `${v / 1000} s` : unit === 'ms' ? `${v} ms` : compact(v, lang))),
        },
      ],
      series: [
        {},
        ...series.map((s) => {
          const color = cssColor(el, s.color);
          return {
            label: s.label,
            stroke: color,
            width: 2,
            dash: s.dashed ? [6, 4] : undefined,
            fill: s.bars ? color.replace('rgb(', 'rgba(').replace(')', ', 0.35)') : undefined,
            paths: s.bars ? bars : undefined,
            points: { show: days.length <= 31 && !s.bars, size: 5 },
            spanGaps: false,
          } satisfies uPlot.Series;
        }),
      ],
    };
    const plot = new uPlot(opts, [xs, ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 200 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days, series, unit, lang, theme]);
  return (
    <figure className="operator-chart" data-testid={`chart-${id}`}>
      <figcaption>{title}</figcaption>
      <div ref={box} className="operator-plot" role="img" aria-label={title} />
      <details className="operator-data">
        <summary>{t('operator.asTable')}</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">{t('operator.day')}</th>
              {series.map((s) => (
                <th key={s.label} scope="col">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((d, i) => (
              <tr key={d.day}>
                <th scope="row">{d.day}</th>
                {series.map((s) => (
                  <td key={s.label}>{s.values[i] ?? '–'}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

function compact(v: number, lang: string): string {
  return new Intl.NumberFormat(lang, { notation: 'compact', maximumFractionDigits: 1 }).format(v);
}

// BarList is a labelled count per row with a bar as long as its share of
// the largest: errors by code and the like, read at a glance.
function BarList({ title, id, rows, empty }: { title: string; id: string; rows: { label: string; detail?: string; hits: number }[]; empty: string }) {
  const { lang } = useI18n();
  const top = Math.max(1, ...rows.map((r) => r.hits));
  return (
    <section className="operator-list" aria-label={title} data-testid={`list-${id}`}>
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <p className="hint">{empty}</p>
      ) : (
        <ul>
          {rows.map((r) => (
            <li key={`${r.detail ?? ''}${r.label}`}>
              <span className="operator-list-label">
                <code>{r.label}</code>
                {r.detail && <span className="hint"> {r.detail}</span>}
              </span>
              <span className="operator-list-count">{r.hits.toLocaleString(lang)}</span>
              <svg className="operator-bar" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true">
                <rect x="0" y="0" height="6" width={(100 * r.hits) / top} rx="1" />
              </svg>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
